"""Check-in: before a round's matches are played, each player says he is there; who is not when the
window closes forfeits (its own stream, ``checkin-{championship}``, beside the championship's).

Its decider: ``decide(check_ins, command) -> events`` and ``evolve(check_ins, event) -> check_ins``. The
commands carry what they need of the championship (read from its own stream), and the time (the clock is
the caller's): a check-in and the closing are ordered by the check-in stream's version alone.

How long the window is open is how the platform runs the championship (its ``RunSettings``), not a rule of
the tournament; who counts as checked in and what a no-show costs are rules, and live here.
"""

from __future__ import annotations

import datetime as dt
from typing import ClassVar

import msgspec

from domain.tournament.commands import RecordDoubleForfeit, RecordForfeit
from domain.tournament.errors import ChampionshipRuleError
from domain.tournament.events import Match
from domain.tournament.state import ChampionshipState, Round


class PlayerCheckedIn(msgspec.Struct, frozen=True, tag="player_checked_in", kw_only=True):
    """A player is at the venue for a match of the round being played."""

    schema_version: ClassVar[int] = 1
    round: int
    match_id: str
    team_id: str
    player: str
    by: str                                   # who checked them in: the player, or "bot"


class CheckInClosed(msgspec.Struct, frozen=True, tag="check_in_closed", kw_only=True):
    """The round's check-in window closed; ``absent`` teams had not checked in (they forfeit)."""

    schema_version: ClassVar[int] = 1
    round: int
    absent: tuple[str, ...]


class CheckInExtended(msgspec.Struct, frozen=True, tag="check_in_extended", kw_only=True):
    """The organiser keeps round ``round``'s window open ``seconds`` longer (before it has closed)."""

    schema_version: ClassVar[int] = 1
    round: int
    seconds: float
    by: str


MAX_EXTENSION = 3600.0        # one extension at most; several may follow each other


class CheckIns(msgspec.Struct, frozen=True):
    """The check-in stream folded: who checked in for which match, and which rounds' windows closed."""

    version: int = 0
    players: dict[str, frozenset[str]] = msgspec.field(default_factory=dict)   # "round/match" -> players
    closed: dict[int, tuple[str, ...]] = msgspec.field(default_factory=dict)   # round -> absent teams
    extended: dict[int, float] = msgspec.field(default_factory=dict)           # round -> seconds added

    def of(self, round_no: int, match_id: str) -> frozenset[str]:
        return self.players.get(f"{round_no}/{match_id}", frozenset())


class CheckIn(msgspec.Struct, frozen=True, kw_only=True):
    """``player`` of ``team_id`` checks in for match ``match_id`` of round ``round`` (``by`` himself, or "bot"),
    at ``now``; the window closes at ``closes``."""

    round: int
    match_id: str
    team_id: str
    player: str
    by: str
    now: dt.datetime
    closes: dt.datetime


class CheckInBots(msgspec.Struct, frozen=True, kw_only=True):
    """Every player of ``bots`` in the current round's matches of ``championship`` checks in."""

    championship: ChampionshipState
    bots: frozenset[str]


class ExtendCheckIn(msgspec.Struct, frozen=True, kw_only=True):
    """The organiser (``by``) keeps round ``round``'s window open ``seconds`` longer, at ``now``; it closes at
    ``closes``."""

    championship: ChampionshipState
    round: int
    seconds: float
    by: str
    now: dt.datetime
    closes: dt.datetime


class CloseCheckIn(msgspec.Struct, frozen=True, kw_only=True):
    """Round ``round``'s window of ``championship`` closes."""

    championship: ChampionshipState
    round: int


def evolve(checks: CheckIns, e) -> CheckIns:
    """The check-ins after event ``e``."""
    if isinstance(e, PlayerCheckedIn):
        key = f"{e.round}/{e.match_id}"
        players = {**checks.players, key: checks.of(e.round, e.match_id) | {e.player}}
        return msgspec.structs.replace(checks, players=players)
    if isinstance(e, CheckInExtended):
        return msgspec.structs.replace(checks, extended={**checks.extended,
                                                         e.round: checks.extended.get(e.round, 0.0) + e.seconds})
    return msgspec.structs.replace(checks, closed={**checks.closed, e.round: e.absent})


def team_checked_in(team, checked: frozenset[str]) -> bool:
    """A team is checked in once each of its two players is."""
    return all(p in checked for p in team.players)


def no_show_commands(state: ChampionshipState, round_no: int, absent: set[str]) -> list:
    """A forfeit for each undecided match of the round with a team absent at the close (both: double)."""
    if state.status != "running" or len(state.rounds) != round_no:
        return []
    out: list = []
    for m in state.rounds[-1].to_play():
        gone = [t for t in (m.team_a, m.team_b) if t in absent]
        if len(gone) == 2:
            out.append(RecordDoubleForfeit(m.match_id, "neither team checked in"))
        elif gone:
            out.append(RecordForfeit(m.match_id, gone[0], "did not check in"))
    return out


def match_to_check_in(state: ChampionshipState, match_id: str) -> tuple[Round, Match]:
    """The match of the round being played that ``match_id`` names, if it is still to be played."""
    if state.status != "running":
        raise ChampionshipRuleError("no_round", "no round of the championship is being played")
    current = state.rounds[-1]
    match = next((m for m in current.matches if m.match_id == match_id), None)
    if match is None:
        raise ChampionshipRuleError("unknown_match", f"match {match_id} is not a match of round {current.number}, "
                                                     "the round being played")
    if match not in current.to_play():
        raise ChampionshipRuleError("match_decided", f"match {match_id} is decided: there is nothing to check in for")
    return current, match


def decide(checks: CheckIns, command) -> list:
    """The events of a check-in command, or a ``ChampionshipRuleError`` naming the rule it breaks; none when
    it has happened already (a player in, a window closed)."""
    match command:
        case CheckIn():
            return _decide_check_in(checks, command)
        case CheckInBots():
            return _decide_bots(checks, command)
        case ExtendCheckIn():
            return _decide_extend(checks, command)
        case CloseCheckIn():
            return _decide_close(checks, command)
    raise TypeError(f"{type(command).__name__} is not a check-in command")


def _decide_check_in(checks: CheckIns, command: CheckIn) -> list:
    """Refused once the round's window has closed (its time, or a stored closing)."""
    if command.player in checks.of(command.round, command.match_id):
        return []
    if command.round in checks.closed or command.now >= command.closes:
        raise ChampionshipRuleError("check_in_closed", f"check-in for round {command.round} closed at "
                                                       f"{command.closes.isoformat()}",
                                    closed_at=command.closes.isoformat())
    return [PlayerCheckedIn(round=command.round, match_id=command.match_id, team_id=command.team_id,
                            player=command.player, by=command.by)]


def _decide_bots(checks: CheckIns, command: CheckInBots) -> list:
    """Bots are always there: each bot not in yet checks in; none once the round's window has closed."""
    state = command.championship
    current = state.rounds[-1]
    if current.number in checks.closed:
        return []
    return [PlayerCheckedIn(round=current.number, match_id=m.match_id, team_id=t, player=p, by="bot")
            for m in current.to_play() for t in (m.team_a, m.team_b) for p in state.teams[t].players
            if p in command.bots and p not in checks.of(current.number, m.match_id)]


def _decide_extend(checks: CheckIns, command: ExtendCheckIn) -> list:
    """Only the current round's window, while it is open."""
    state, round_no, seconds = command.championship, command.round, command.seconds
    if not state.rounds or round_no != state.rounds[-1].number:
        raise ChampionshipRuleError("wrong_round", f"round {round_no} is not the round being played")
    if round_no in checks.closed or command.now >= command.closes:
        raise ChampionshipRuleError("check_in_closed", f"check-in for round {round_no} closed at "
                                                       f"{command.closes.isoformat()}",
                                    closed_at=command.closes.isoformat())
    if not 0 < seconds <= MAX_EXTENSION:
        raise ChampionshipRuleError("bad_extension", f"a window is extended by 1 to {MAX_EXTENSION:g} seconds at a "
                                                     f"time, not {seconds:g}")
    return [CheckInExtended(round=round_no, seconds=seconds, by=command.by)]


def _decide_close(checks: CheckIns, command: CloseCheckIn) -> list:
    """The close names the teams not in then (they forfeit)."""
    round_no = command.round
    if round_no in checks.closed:
        return []
    state = command.championship
    round_ = state.rounds[round_no - 1]
    absent = tuple(t for m in round_.to_play() for t in (m.team_a, m.team_b)
                   if not team_checked_in(state.teams[t], checks.of(round_no, m.match_id)))
    return [CheckInClosed(round=round_no, absent=absent)]


def ready(state: ChampionshipState, checks: CheckIns) -> set[str]:
    """The current round's matches still to play whose two teams have both checked in."""
    current = state.rounds[-1]
    return {m.match_id for m in current.to_play()
            if all(team_checked_in(state.teams[t], checks.of(current.number, m.match_id)) for t in (m.team_a, m.team_b))}
