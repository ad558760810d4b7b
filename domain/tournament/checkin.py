"""Check-in: before a round's matches are played, each player says he is there; who is not when the
window closes forfeits (its own stream, ``checkin-{championship}``, beside the championship's).

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


def check_in(checks: CheckIns, round_no: int, match: Match, team_id: str, player: str, by: str, *,
             now: dt.datetime, closes: dt.datetime) -> PlayerCheckedIn | None:
    """``player`` of ``team_id`` checks in for ``match`` (``by`` himself, or "bot"); None when he is in
    already. Refused once the round's window has closed (``closes``, or a stored closing)."""
    if player in checks.of(round_no, match.match_id):
        return None
    if round_no in checks.closed or now >= closes:
        raise ChampionshipRuleError("check_in_closed", f"check-in for round {round_no} closed at "
                                                       f"{closes.isoformat()}", closed_at=closes.isoformat())
    return PlayerCheckedIn(round=round_no, match_id=match.match_id, team_id=team_id, player=player, by=by)


def bots_to_check_in(state: ChampionshipState, checks: CheckIns, bots: set[str]) -> list[PlayerCheckedIn]:
    """A check-in for every bot player of the current round's matches who is not in yet (bots are always
    there); none once the round's window has closed."""
    current = state.rounds[-1]
    if current.number in checks.closed:
        return []
    return [PlayerCheckedIn(round=current.number, match_id=m.match_id, team_id=t, player=p, by="bot")
            for m in current.to_play() for t in (m.team_a, m.team_b) for p in state.teams[t].players
            if p in bots and p not in checks.of(current.number, m.match_id)]


def ready(state: ChampionshipState, checks: CheckIns) -> set[str]:
    """The current round's matches still to play whose two teams have both checked in."""
    current = state.rounds[-1]
    return {m.match_id for m in current.to_play()
            if all(team_checked_in(state.teams[t], checks.of(current.number, m.match_id)) for t in (m.team_a, m.team_b))}


def closing(state: ChampionshipState, checks: CheckIns, round_no: int) -> CheckInClosed | None:
    """The close of round ``round_no``'s window, naming the teams not in then; None when it is closed."""
    if round_no in checks.closed:
        return None
    round_ = state.rounds[round_no - 1]
    absent = tuple(t for m in round_.to_play() for t in (m.team_a, m.team_b)
                   if not team_checked_in(state.teams[t], checks.of(round_no, m.match_id)))
    return CheckInClosed(round=round_no, absent=absent)


def extend(state: ChampionshipState, checks: CheckIns, round_no: int, seconds: float, by: str, *,
           now: dt.datetime, closes: dt.datetime) -> CheckInExtended:
    """Keep the current round's open window ``seconds`` longer; refused once it has closed, or for another
    round."""
    if not state.rounds or round_no != state.rounds[-1].number:
        raise ChampionshipRuleError("wrong_round", f"round {round_no} is not the round being played")
    if round_no in checks.closed or now >= closes:
        raise ChampionshipRuleError("check_in_closed", f"check-in for round {round_no} closed at "
                                                       f"{closes.isoformat()}", closed_at=closes.isoformat())
    if not 0 < seconds <= MAX_EXTENSION:
        raise ChampionshipRuleError("bad_extension", f"a window is extended by 1 to {MAX_EXTENSION:g} seconds at a "
                                                     f"time, not {seconds:g}")
    return CheckInExtended(round=round_no, seconds=seconds, by=by)
