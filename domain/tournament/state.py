"""The tournament's state: a frozen fold of its events (see `decider.evolve`)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.tournament.events import DrawMade, Match, PairingInputs, RankEntry, Settings, TeamInfo
from domain.tournament.persistent import PMap, PVec
from domain.tournament.results import MatchResult

Status = Literal["new", "registration", "closed", "drawn", "running", "finished"]
OutcomeKind = Literal["played", "forfeit", "double_forfeit", "bye", "walkover", "void"]


class Team(msgspec.Struct, frozen=True):
    team_id: str
    players: tuple[str, ...]                  # two; a duplicate team may be four (two pairs)
    substitutes: tuple[str, ...] = ()
    late: bool = False
    withdrawn: bool = False
    info: TeamInfo | None = None              # name, club, region, rating, if the organiser gave them


class MatchOutcome(msgspec.Struct, frozen=True):
    """How a match ended: `winner` advances (None if nobody does), `losers` took a loss."""

    kind: OutcomeKind
    winner: str | None
    losers: tuple[str, ...] = ()
    result: MatchResult | None = None


def playable(match: Match) -> bool:
    """A match played at a table: two teams, and neither a bye nor a walkover (its ``note``)."""
    return not match.note and match.team_a is not None and match.team_b is not None


class Round(msgspec.Struct, frozen=True):
    number: int
    matches: tuple[Match, ...]
    inputs: PairingInputs
    outcomes: PVec          # MatchOutcome | None, by match index
    undecided: int

    def to_play(self) -> list[Match]:
        """Its matches still to be played at a table: playable, and without an outcome yet."""
        return [m for m in self.matches if playable(m) and self.outcomes[m.index] is None]


class ChampionshipState(msgspec.Struct, frozen=True):
    championship_id: str = ""
    status: Status = "new"
    settings: Settings | None = None
    teams: PMap = PMap()                  # team_id -> Team
    team_order: PVec = PVec()             # team ids in registration order
    players: PMap = PMap()                # player (and substitute) -> team_id
    active_count: int = 0                 # registered and not withdrawn
    commitment: str = ""
    draw: DrawMade | None = None
    rounds: tuple[Round, ...] = ()
    champion: str | None = None
    ranking: tuple[RankEntry, ...] = ()


def initial() -> ChampionshipState:
    """The state before any event."""
    return ChampionshipState()


def match_id(round_number: int, index: int) -> str:
    """Round 3, table 17 is match "3-17" (tables count from 1)."""
    return f"{round_number}-{index + 1}"


def parse_match_id(text: str) -> tuple[int, int] | None:
    """(round, index) of a match id, or None if it is not one."""
    head, _, tail = text.partition("-")
    if not (head.isdigit() and tail.isdigit()) or int(tail) < 1:
        return None
    return int(head), int(tail) - 1


def seed_order(state: ChampionshipState) -> list[str]:
    """The field in seed order: the draw, then late entries in order of registration."""
    order = list(state.draw.order) if state.draw else []
    drawn = set(order)
    order.extend(t for t in state.team_order if t not in drawn)
    return order
