"""Check-in: before a round's matches are played, each player says he is there; who is not when the
window closes forfeits (its own stream, ``checkin-{championship}``, beside the championship's).

How long the window is open is how the platform runs the championship (its ``RunSettings``), not a rule of
the tournament; who counts as checked in and what a no-show costs are rules, and live here.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from domain.tournament.commands import RecordDoubleForfeit, RecordForfeit
from domain.tournament.state import ChampionshipState


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


class CheckIns(msgspec.Struct, frozen=True):
    """The check-in stream folded: who checked in for which match, and which rounds' windows closed."""

    version: int = 0
    players: dict[str, frozenset[str]] = msgspec.field(default_factory=dict)   # "round/match" -> players
    closed: dict[int, tuple[str, ...]] = msgspec.field(default_factory=dict)   # round -> absent teams

    def of(self, round_no: int, match_id: str) -> frozenset[str]:
        return self.players.get(f"{round_no}/{match_id}", frozenset())


def evolve(checks: CheckIns, e) -> CheckIns:
    """The check-ins after event ``e``."""
    if isinstance(e, PlayerCheckedIn):
        key = f"{e.round}/{e.match_id}"
        players = {**checks.players, key: checks.of(e.round, e.match_id) | {e.player}}
        return msgspec.structs.replace(checks, players=players)
    return msgspec.structs.replace(checks, closed={**checks.closed, e.round: e.absent})


def team_checked_in(team, checked: frozenset[str]) -> bool:
    """A team is checked in once each of its two players is."""
    return all(p in checked for p in team.players)


def no_show_commands(state: ChampionshipState, round_no: int, absent: set[str]) -> list:
    """A forfeit for each undecided match of the round with a team absent at the close (both: double)."""
    if state.status != "running" or len(state.rounds) != round_no:
        return []
    current = state.rounds[-1]
    out: list = []
    for m in current.matches:
        if m.note or m.team_a is None or m.team_b is None or current.outcomes[m.index] is not None:
            continue
        gone = [t for t in (m.team_a, m.team_b) if t in absent]
        if len(gone) == 2:
            out.append(RecordDoubleForfeit(m.match_id, "neither team checked in"))
        elif gone:
            out.append(RecordForfeit(m.match_id, gone[0], "did not check in"))
    return out
