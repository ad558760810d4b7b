"""Run a whole championship in memory through `decide`/`evolve`, with simulated results.

Deterministic: every random choice comes from `random.Random` instances seeded from `seed`.
Used by `baloot tournament simulate`, the benchmark and the property tests. Optional disturbances
(no-shows, double no-shows, withdrawals) exercise the forfeit rules at every stage.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec

from domain.tournament import commands as c
from domain.tournament import duplicate
from domain.tournament.decider import decide, evolve
from domain.tournament.draw import commitment
from domain.tournament.errors import ChampionshipRuleError
from domain.tournament.events import Match, Settings
from domain.tournament.results import MatchGame, MatchResult, game_result, games_to_win, match_result
from domain.tournament.state import ChampionshipState, initial

GameScores = Callable[[int], tuple[int, int]]   # seed -> final scores (team A, team B) of one game
# duplicate: (board, the team at seats 0+2, the team at seats 1+3) -> game points of the board at that table
BoardScores = Callable[[object, str, str], tuple[int, int]]


class Disturbances(msgspec.Struct, frozen=True):
    """Per-match chances of a no-show, of both teams missing, and of a team withdrawing mid-event."""

    forfeit: float = 0.0
    double_forfeit: float = 0.0
    withdrawal: float = 0.0


def team_ids(count: int) -> list[str]:
    width = max(3, len(str(count)))
    return [f"T{i:0{width}d}" for i in range(1, count + 1)]


class Simulation:
    """Holds the current state and every event; `run()` plays the championship to its end."""

    def __init__(self, settings: Settings, teams: int, seed: str = "1", *,
                 game_scores: GameScores | None = None, disturbances: Disturbances = Disturbances(),
                 ratings: dict[str, float] | None = None,
                 on_match: Callable[[Match], None] | None = None,
                 board_scores: BoardScores | None = None) -> None:
        self.settings, self.teams, self.seed = settings, teams, seed
        self.game_scores, self.disturbances, self.ratings = game_scores, disturbances, ratings
        self.on_match = on_match
        self.board_scores = board_scores
        self.rng = random.Random(f"{seed}/results")
        self.state: ChampionshipState = initial()
        self.events: list = []
        ids = team_ids(teams)
        strength_rng = random.Random(f"{seed}/strength")
        self.strength = {t: strength_rng.uniform(1.0, 3.0) for t in ids}

    def apply(self, command) -> list:
        new = decide(self.state, command)
        state = self.state
        for event in new:
            state = evolve(state, event)
        self.state = state
        self.events.extend(new)
        return new

    def register(self) -> None:
        self.apply(c.CreateChampionship(f"sim-{self.seed}", self.settings))
        for team in team_ids(self.teams):
            self.apply(c.RegisterTeam(team, (f"{team}-1", f"{team}-2"), (f"{team}-S",)))
        self.apply(c.CloseRegistration())

    def draw(self) -> None:
        if self.settings.seeding == "rating":
            ratings = self.ratings or self.strength
            self.apply(c.MakeDraw(ratings=tuple(ratings.items())))
        else:
            self.apply(c.CommitDraw(commitment(self.seed)))
            self.apply(c.MakeDraw(seed=self.seed))

    def result(self, match: Match) -> MatchResult:
        """Games of a match until it is decided: engine games with `game_scores`, else instant scores."""
        if self.settings.format == "duplicate":
            return self.duplicate(match)
        needed = games_to_win(self.settings.match_games)
        games: list[MatchGame] = []
        wins = {"a": 0, "b": 0}
        sa, sb = self.strength[match.team_a], self.strength[match.team_b]
        while max(wins.values()) < needed:
            if self.game_scores is not None:
                scores = self.game_scores(self.rng.getrandbits(32))
                while scores[0] == scores[1]:       # a level game is replayed with a fresh seed
                    scores = self.game_scores(self.rng.getrandbits(32))
                game = game_result(scores, self.settings.game_target)
            else:
                a_wins = self.rng.random() < sa / (sa + sb)
                high = self.settings.game_target + self.rng.randrange(0, 40)
                low = self.rng.randrange(0, self.settings.game_target)
                game = MatchGame(*(high, low) if a_wins else (low, high), "a" if a_wins else "b")
            wins[game.winner] += 1
            games.append(game)
        return match_result(games, self.settings.match_games)

    def duplicate(self, match: Match) -> MatchResult:
        """The round's boards at two tables, seats swapped: played with ``board_scores``, else instant (each
        table's deal goes to a team with odds by strength, worth 16 or 26 GP)."""
        a, b = match.team_a, match.team_b
        boards = []
        for board in duplicate.round_boards(self.state, match.round):
            if self.board_scores is not None:
                one, two = self.board_scores(board, a, b), self.board_scores(board, b, a)
            else:
                one, two = self._instant_table(a, b), self._instant_table(b, a)
            boards.append(duplicate.board_score(one, two))
        return duplicate.duplicate_result(boards)

    def _instant_table(self, first: str, second: str) -> tuple[int, int]:
        s1, s2 = self.strength[first], self.strength[second]
        value = self.rng.choice((16, 26))
        return (value, 0) if self.rng.random() < s1 / (s1 + s2) else (0, value)

    def play_round(self) -> bool:
        """Start and complete the next round; False when the championship is decided."""
        try:
            self.apply(c.StartRound(len(self.state.rounds) + 1))
        except ChampionshipRuleError as error:
            if error.rule == "championship_decided":
                return False
            raise
        current = self.state.rounds[-1]
        d, rng = self.disturbances, self.rng
        for match in current.matches:
            if self.state.rounds[-1].outcomes[match.index] is None:
                roll = rng.random() if (d.forfeit or d.double_forfeit or d.withdrawal) else 1.0
                if roll < d.withdrawal:
                    self.apply(c.WithdrawTeam(rng.choice((match.team_a, match.team_b)), "simulated"))
                elif roll < d.withdrawal + d.double_forfeit:
                    self.apply(c.RecordDoubleForfeit(match.match_id))
                elif roll < d.withdrawal + d.double_forfeit + d.forfeit:
                    self.apply(c.RecordForfeit(match.match_id, rng.choice((match.team_a, match.team_b))))
                else:
                    self.apply(c.RecordMatchResult(match.match_id, self.result(match)))
            if self.on_match is not None:
                self.on_match(match)
        return True

    def run(self) -> ChampionshipState:
        if self.state.status == "new":
            self.register()
        if self.state.status == "closed":
            self.draw()
        while self.play_round():
            pass
        self.apply(c.FinishChampionship())
        return self.state


def expected_matches(format_: str, teams: int, rounds: int = 0) -> int:
    """Roughly how many matches a championship has (for progress bars)."""
    if format_ in ("single_elimination", "groups_knockout"):
        return max(teams - 1, 0)
    if format_ == "double_elimination":
        return max(2 * teams - 1, 0)
    if format_ == "round_robin":
        return teams * (teams - 1) // 2 + (teams % 2) * (teams - 1 if teams > 1 else 0) // 2
    return rounds * ((teams + 1) // 2)
