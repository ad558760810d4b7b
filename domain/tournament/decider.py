"""The tournament decider: `decide(state, command) -> events`, `evolve(state, event) -> state`.

`decide` checks the championship rules and raises `ChampionshipRuleError` naming the broken rule;
`evolve` never validates, it only folds. A pairing is decided once, by the format, when a round
starts, and recorded with its inputs in `RoundPaired`; withdrawn teams forfeit at once.
"""

from __future__ import annotations

import re

from msgspec.structs import replace

from domain.tournament import commands as c
from domain.tournament import events as e
from domain.tournament.bracket import outcome_of_note
from domain.tournament.draw import commitment as seed_commitment
from domain.tournament.draw import rating_order, seeded_order
from domain.tournament.errors import ChampionshipRuleError
from domain.tournament import duplicate
from domain.tournament.formats import final_ranking, next_round, planned_rounds
from domain.tournament.groups import check_settings
from domain.tournament.persistent import PVec
from domain.tournament.results import MatchResult, games_to_win
from domain.tournament.state import MatchOutcome, Round, Team, ChampionshipState, initial, parse_match_id, playable

__all__ = ["decide", "evolve", "fold", "initial"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


def _fail(rule: str, message: str):
    raise ChampionshipRuleError(rule, message)


def _current_match(state: ChampionshipState, match_id: str) -> tuple[Round, e.Match]:
    if state.status != "running":
        _fail("no_round", f"no round is being played (the championship is {state.status})")
    where = parse_match_id(match_id)
    current = state.rounds[-1]
    if where is None or where[0] != current.number or where[1] >= len(current.matches):
        _fail("unknown_match",
              f"match {match_id} is not a match of round {current.number}, the round being played")
    match = current.matches[where[1]]
    if match.note:
        _fail("nothing_to_play", f"match {match_id} is a {match.note}: there is nothing to play")
    if current.outcomes[match.index] is not None:
        _fail("match_decided", f"match {match_id} already has a result")
    return current, match


def _check_result(state: ChampionshipState, match_id: str, result: MatchResult) -> None:
    s = state.settings
    if s.format == "duplicate":
        problem = duplicate.result_problem(result, s.duplicate_boards)
        if problem:
            _fail(*problem)
        return
    needed = games_to_win(s.match_games)
    if max(result.team_a_games, result.team_b_games) != needed or min(
            result.team_a_games, result.team_b_games) >= needed:
        _fail("match_length",
              f"match {match_id} is best of {s.match_games}: the winner needs exactly {needed} game wins")
    winner_games = result.team_a_games if result.winner == "a" else result.team_b_games
    if winner_games != needed:
        _fail("tournament_rule", f"match {match_id}: the declared winner did not win {needed} games")
    if len(result.final_scores) != result.team_a_games + result.team_b_games:
        _fail("tournament_rule", f"match {match_id}: one final score is needed per game played")
    if result.game_ends and len(result.game_ends) != len(result.final_scores):
        _fail("tournament_rule", f"match {match_id}: say how each game ended, or none")
    if s.table_mode == "strict":
        for n, (a, b) in enumerate(result.final_scores, 1):
            ended_by = result.game_ends[n - 1] if result.game_ends else "target"
            if ended_by == "target" and (max(a, b) < s.game_target or a == b):
                _fail("game_target", f"match {match_id}, game {n}: a game ends when a team reaches"
                                     f" {s.game_target} and leads, not at {a}-{b}")


def _forfeits_of_withdrawn(state: ChampionshipState, matches: list[e.Match] | tuple[e.Match, ...]
                           ) -> list:
    out: list = []
    teams = state.teams
    for m in filter(playable, matches):
        gone_a, gone_b = teams[m.team_a].withdrawn, teams[m.team_b].withdrawn
        if gone_a and gone_b:
            out.append(e.MatchDoubleForfeited(m.match_id, (m.team_a, m.team_b), "both teams withdrew"))
        elif gone_a or gone_b:
            absent, present = (m.team_a, m.team_b) if gone_a else (m.team_b, m.team_a)
            out.append(e.MatchForfeited(m.match_id, present, absent, "withdrawn"))
    return out


def decide(state: ChampionshipState, command: c.ChampionshipCommand) -> list:
    """The events a command causes, or a `ChampionshipRuleError` naming the rule it breaks."""
    if state.status == "new" and not isinstance(command, c.CreateChampionship):
        _fail("tournament_rule", "no championship has been created yet")
    if state.status == "finished" and not isinstance(command, c.CreateChampionship):
        _fail("championship_finished", "the championship is finished")
    decider = _DECIDERS.get(type(command))
    if decider is None:
        _fail("tournament_rule", f"unknown command {type(command).__name__}")
    return decider(state, command)


def _decide_create(state: ChampionshipState, command: c.CreateChampionship) -> list:
    settings = command.settings
    if state.status != "new":
        _fail("championship_exists", f"championship {state.championship_id} already exists")
    if settings.format not in e.FORMATS:
        _fail("unknown_format", f"unknown format {settings.format!r}: one of {', '.join(e.FORMATS)}")
    if settings.match_games < 1 or settings.match_games % 2 == 0:
        _fail("match_length", f"a match is best of an odd number of games, not {settings.match_games}")
    if settings.game_target < 1:
        _fail("game_target", "the game target must be positive")
    if settings.format == "groups_knockout":
        check_settings(settings)
    return [e.ChampionshipCreated(command.championship_id, settings)]


def _decide_register(state: ChampionshipState, command: c.RegisterTeam) -> list:
    team_id, players, substitutes = command.team_id, command.players, command.substitutes
    late = state.status in ("drawn", "running")
    if state.status != "registration" and settings_format(state) != "swiss":
        _fail("registration_closed", "registration is closed: late entries are accepted only in Swiss")
    if team_id in state.teams:
        _fail("already_registered", f"team {team_id} is already registered")
    people = (*players, *substitutes)
    sizes = (2, 4) if settings_format(state) == "duplicate" else (2,)   # duplicate: one pair a table
    if len(set(people)) != len(people) or len(players) not in sizes:
        _fail("team_players", f"team {team_id} needs {' or '.join(map(str, sizes))} different players, and "
                              "substitutes who are none of them")
    for player in people:
        if player in state.players:
            _fail("already_registered", f"player {player} is already registered with team {state.players[player]}")
    return [e.TeamRegistered(team_id, tuple(players), tuple(substitutes), late, command.info)]


def _decide_withdraw(state: ChampionshipState, command: c.WithdrawTeam) -> list:
    team = _team(state, command.team_id)
    if team.withdrawn:
        _fail("team_withdrawn", f"team {command.team_id} has already withdrawn")
    out: list = [e.TeamWithdrawn(command.team_id, command.reason)]
    if state.status == "running":
        current = state.rounds[-1]
        pending = [m for m in current.matches if command.team_id in (m.team_a, m.team_b)
                   and current.outcomes[m.index] is None]
        after = replace(state, teams=state.teams.set(command.team_id, replace(team, withdrawn=True)))
        out += _forfeits_of_withdrawn(after, pending)
    return out


def _decide_close(state: ChampionshipState, command: c.CloseRegistration) -> list:
    if state.status != "registration":
        _fail("registration_not_open", "registration is not open")
    return [e.RegistrationClosed(state.active_count)]


def _decide_commit(state: ChampionshipState, command: c.CommitDraw) -> list:
    if state.status not in ("registration", "closed"):
        _fail("draw_commitment", "the draw commitment must be published before the draw")
    if state.settings.seeding != "draw":
        _fail("tournament_rule", f"this championship is seeded {'by rating' if state.settings.seeding == 'rating' else 'by its organiser'}: "
                                 "there is no random draw")
    if state.commitment:
        _fail("draw_commitment", "the draw commitment is already published")
    if not _HEX64.fullmatch(command.commitment):
        _fail("draw_commitment", "the commitment must be the sha256 hex digest of the seed")
    return [e.DrawCommitted(command.commitment)]


def _decide_draw(state: ChampionshipState, command: c.MakeDraw) -> list:
    if state.status != "closed":
        _fail("draw_not_allowed", "the draw is made once, after registration closes")
    field = [t for t in state.team_order if not state.teams[t].withdrawn]
    if not field:
        _fail("no_teams", "there are no teams to draw")
    s = state.settings
    rounds = planned_rounds(s.format, len(field), s.swiss_rounds)
    if s.seeding == "rating":
        given = dict(command.ratings)
        missing = next((t for t in field if t not in given), None)
        if missing is not None:
            _fail("missing_rating", f"team {missing} has no rating: seeding by rating needs every team's")
        used = tuple((t, float(given[t])) for t in field)
        return [e.DrawMade("rating", "", tuple(rating_order(field, given)), used, rounds)]
    if s.seeding == "manual":
        if sorted(command.order) != sorted(field):         # the field's teams are distinct: each once
            missing = next((t for t in field if t not in command.order), None)
            _fail("draw_order", "a manual draw orders every team of the field once"
                                + (f": team {missing} is missing" if missing else ", and only them"))
        return [e.DrawMade("manual", "", tuple(command.order), (), rounds)]
    if not state.commitment:
        _fail("draw_commitment", "the draw commitment must be published before the draw")
    if seed_commitment(command.seed) != state.commitment:
        _fail("seed_mismatch", "the revealed seed does not match the published commitment")
    return [e.DrawMade("seeded", command.seed, tuple(seeded_order(field, command.seed)), (), rounds)]


def _decide_start_round(state: ChampionshipState, command: c.StartRound) -> list:
    number = command.round
    if state.status not in ("drawn", "running"):
        _fail("draw_first", "rounds start after the draw")
    expected = len(state.rounds) + 1
    if number != expected:
        _fail("wrong_round", f"the next round is round {expected}, not {number}")
    if state.rounds and state.rounds[-1].undecided:
        _fail("round_undecided", f"round {expected - 1} still has {state.rounds[-1].undecided} undecided matches")
    pairing = next_round(state)
    if pairing is None:
        _fail("championship_decided", f"the championship is decided: there is no round {number}")
    matches, inputs = pairing
    return [e.RoundPaired(number, tuple(matches), inputs), *_forfeits_of_withdrawn(state, matches)]


def _decide_result(state: ChampionshipState, command: c.RecordMatchResult) -> list:
    match_id, result = command.match_id, command.result
    _, match = _current_match(state, match_id)
    _check_result(state, match_id, result)
    winner, loser = (match.team_a, match.team_b) if result.winner == "a" else (match.team_b, match.team_a)
    return [e.MatchResultRecorded(match_id, winner, loser, result)]


def _decide_forfeit(state: ChampionshipState, command: c.RecordForfeit) -> list:
    _, match = _current_match(state, command.match_id)
    if command.absent not in (match.team_a, match.team_b):
        _fail("not_in_match", f"team {command.absent} does not play in match {command.match_id}")
    present = match.team_b if command.absent == match.team_a else match.team_a
    return [e.MatchForfeited(command.match_id, present, command.absent, command.reason)]


def _decide_double_forfeit(state: ChampionshipState, command: c.RecordDoubleForfeit) -> list:
    _, match = _current_match(state, command.match_id)
    return [e.MatchDoubleForfeited(command.match_id, (match.team_a, match.team_b), command.reason)]


def _decide_substitute(state: ChampionshipState, command: c.SubstitutePlayer) -> list:
    team_id = command.team_id
    team = _team(state, team_id)
    if team.withdrawn:
        _fail("team_withdrawn", f"team {team_id} has withdrawn")
    if command.player_out not in team.players:
        _fail("not_in_team", f"player {command.player_out} is not playing for team {team_id}")
    if command.player_in not in team.substitutes:
        _fail("not_a_substitute", f"player {command.player_in} is not a registered substitute of team {team_id}")
    return [e.PlayerSubstituted(team_id, command.player_out, command.player_in, len(state.rounds) + 1)]


def _decide_finish(state: ChampionshipState, command: c.FinishChampionship) -> list:
    if state.status not in ("drawn", "running"):
        _fail("draw_first", "a championship finishes after its draw")
    if state.rounds and state.rounds[-1].undecided:
        _fail("round_undecided",
              f"round {len(state.rounds)} still has {state.rounds[-1].undecided} undecided matches")
    if next_round(state) is not None:
        _fail("rounds_remaining", f"round {len(state.rounds) + 1} remains to be played")
    champion, ranking = final_ranking(state)
    return [e.ChampionshipFinished(champion, ranking)]


_DECIDERS = {
    c.CreateChampionship: _decide_create, c.RegisterTeam: _decide_register, c.WithdrawTeam: _decide_withdraw,
    c.CloseRegistration: _decide_close, c.CommitDraw: _decide_commit, c.MakeDraw: _decide_draw,
    c.StartRound: _decide_start_round, c.RecordMatchResult: _decide_result, c.RecordForfeit: _decide_forfeit,
    c.RecordDoubleForfeit: _decide_double_forfeit, c.SubstitutePlayer: _decide_substitute,
    c.FinishChampionship: _decide_finish,
}


def settings_format(state: ChampionshipState) -> str:
    return state.settings.format


def _team(state: ChampionshipState, team_id: str) -> Team:
    team = state.teams.get(team_id)
    if team is None:
        _fail("unknown_team", f"team {team_id} is not registered")
    return team


def _decided(state: ChampionshipState, match_id: str, outcome: MatchOutcome) -> ChampionshipState:
    _, index = parse_match_id(match_id)
    current = state.rounds[-1]
    current = replace(current, outcomes=current.outcomes.set(index, outcome),
                      undecided=current.undecided - 1)
    return replace(state, rounds=state.rounds[:-1] + (current,))


def evolve(state: ChampionshipState, event) -> ChampionshipState:
    """The state after an event (no validation: events are facts)."""
    match event:
        case e.ChampionshipCreated(championship_id, settings):
            return replace(state, championship_id=championship_id, settings=settings, status="registration")
        case e.TeamRegistered(team_id, players, substitutes, late, info):
            people = state.players
            for player in (*players, *substitutes):
                people = people.set(player, team_id)
            return replace(state, teams=state.teams.set(team_id, Team(team_id, players, substitutes, late,
                                                                      info=info)),
                           team_order=state.team_order.append(team_id), players=people,
                           active_count=state.active_count + 1)
        case e.TeamWithdrawn(team_id):
            team = state.teams[team_id]
            return replace(state, teams=state.teams.set(team_id, replace(team, withdrawn=True)),
                           active_count=state.active_count - 1)
        case e.RegistrationClosed():
            return replace(state, status="closed")
        case e.DrawCommitted(commitment):
            return replace(state, commitment=commitment)
        case e.DrawMade():
            return replace(state, draw=event, status="drawn")
        case e.RoundPaired(number, matches, inputs):
            outcomes = [outcome_of_note(m) for m in matches]
            undecided = sum(o is None for o in outcomes)
            round_ = Round(number, matches, inputs, PVec(outcomes), undecided)
            return replace(state, rounds=state.rounds + (round_,), status="running")
        case e.MatchResultRecorded(match_id, winner, loser, result):
            return _decided(state, match_id, MatchOutcome("played", winner, (loser,), result))
        case e.MatchForfeited(match_id, winner, absent):
            return _decided(state, match_id, MatchOutcome("forfeit", winner, (absent,)))
        case e.MatchDoubleForfeited(match_id, absent):
            return _decided(state, match_id, MatchOutcome("double_forfeit", None, tuple(absent)))
        case e.PlayerSubstituted(team_id, player_out, player_in):
            team = state.teams[team_id]
            players = tuple(player_in if p == player_out else p for p in team.players)
            subs = tuple(player_out if p == player_in else p for p in team.substitutes)
            return replace(state, teams=state.teams.set(team_id, replace(team, players=players,
                                                                         substitutes=subs)))
        case e.ChampionshipFinished(champion, ranking):
            return replace(state, status="finished", champion=champion, ranking=ranking)
    return state


def fold(events, state: ChampionshipState | None = None) -> ChampionshipState:
    """The state after a sequence of events."""
    state = initial() if state is None else state
    for event in events:
        state = evolve(state, event)
    return state
