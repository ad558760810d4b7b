"""Check-in at the platform: a round's window (``RunSettings.check_in_seconds`` from the round's start), its
stream (``checkin-{championship}``), and the tables it opens (the rules: ``domain/tournament/checkin.py``).

With a check-in window, a match's table opens only once both teams have checked in (every player; bots check
in by themselves), and the workers forfeit whoever has not when the window closes. Closing the window is an
event of the same stream, so a check-in and the closing are ordered by the stream's version: a check-in
either counts or is refused, never both.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import TYPE_CHECKING

import msgspec

from domain.tournament import checkin
from domain.tournament.checkin import CheckInClosed, CheckInExtended, CheckIns, PlayerCheckedIn
from services.errors import Conflict, Forbidden
from services.eventstore import Codec, ConcurrencyError, DuplicateEventError, append, append_reporting, read_stream

if TYPE_CHECKING:
    from services.championships.service import Championship, ChampionshipService
    from services.tables import Table

CHECK_IN_CODEC = Codec((PlayerCheckedIn, CheckInClosed, CheckInExtended))


def check_in_stream(championship_id: str) -> str:
    return f"checkin-{championship_id}"


def fold_check_ins(rows) -> CheckIns:
    checks = CheckIns()
    for r in rows:
        checks = checkin.evolve(checks, CHECK_IN_CODEC.decode(r))
    return msgspec.structs.replace(checks, version=rows[-1].version if rows else 0)


def closes_at(champ: Championship, round_no: int, checks: CheckIns | None) -> dt.datetime | None:
    """When the round's check-in window closes (None: the championship has no check-in): its start and the
    window's length, and what the organiser added (``checks``, the check-in stream, holds the extensions)."""
    if champ.run.check_in_seconds is None or not 1 <= round_no <= len(champ.round_started_at):
        return None
    extra = checks.extended.get(round_no, 0.0) if checks is not None else 0.0
    return champ.round_started_at[round_no - 1] + dt.timedelta(seconds=champ.run.check_in_seconds + extra)


class CheckInService:
    def __init__(self, championships: ChampionshipService):
        self.championships = championships
        self.pool = championships.pool

    async def of(self, championship_id: str) -> CheckIns:
        return fold_check_ins(await read_stream(self.pool, check_in_stream(championship_id)))

    def _row(self, championship_id: str, event, name: str, actor: str):
        return CHECK_IN_CODEC.encode(event, event_id=uuid.uuid5(
            self.championships.namespace, f"{championship_id}/check-in/{name}"), metadata={"actor": actor})

    async def check_in(self, championship_id: str, match_id: str, player: str, *, by: str
                       ) -> tuple[bool, CheckIns, Championship]:
        """Check ``player`` in for a match of the round being played; returns (stored now?, check-ins, champ).

        Once both teams are in, the match's table opens. Checking in twice stores nothing new.
        """
        for _ in range(self.championships.max_attempts):
            champ = await self.championships.load(championship_id)
            state = champ.state
            if champ.run.check_in_seconds is None:
                raise Conflict("no_check_in", f"championship {championship_id} has no check-in: each match's "
                                              "table opens when its round starts")
            round_, match = checkin.match_to_check_in(state, match_id)
            team_id = next((t for t in (match.team_a, match.team_b) if player in state.teams[t].players), None)
            if team_id is None:
                raise Forbidden("not_in_match", f"{player} does not play in match {match_id}")
            checks = await self.of(championship_id)
            now = await self.pool.fetchval("SELECT now()")
            event = checkin.check_in(checks, round_.number, match, team_id, player, by, now=now,
                                     closes=closes_at(champ, round_.number, checks))
            if event is None:
                return False, checks, champ
            row = self._row(championship_id, event, f"{round_.number}/{match_id}/{player}", by)
            try:
                stored = (await append_reporting(self.pool, check_in_stream(championship_id), checks.version,
                                                 [row])).stored
            except (ConcurrencyError, DuplicateEventError):
                continue                  # another check-in (maybe this player's own, sent twice) came first
            checks = await self.of(championship_id)
            await self.open_ready_tables(championship_id, champ, checks, by)
            return stored, checks, champ
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    async def extend(self, championship_id: str, round_no: int, seconds: float, *, by: str, command_id: str
                     ) -> CheckIns:
        """Keep round ``round_no``'s window open ``seconds`` longer: ordered with the check-ins and the closing
        by the stream's version, so that a window is never extended after it closed; the same ``command_id``
        sent again extends it once."""
        for _ in range(self.championships.max_attempts):
            champ = await self.championships.load(championship_id)
            if champ.run.check_in_seconds is None:
                raise Conflict("no_check_in", f"championship {championship_id} has no check-in")
            checks = await self.of(championship_id)
            now = await self.pool.fetchval("SELECT now()")
            event = checkin.extend(champ.state, checks, round_no, seconds, by, now=now,
                                   closes=closes_at(champ, round_no, checks))
            row = self._row(championship_id, event, f"{round_no}/extend/{by}/{command_id}", by)
            try:
                await append(self.pool, check_in_stream(championship_id), checks.version, [row])
            except DuplicateEventError:
                pass                              # this command was stored already: once is enough
            except ConcurrencyError:
                continue                          # a check-in (or the closing) came first: decide again
            return await self.of(championship_id)
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    async def check_in_bots(self, championship_id: str, champ: Championship, checks: CheckIns) -> CheckIns:
        """Check in every bot player of the current round's matches who is not in yet (one append)."""
        current = champ.state.rounds[-1]
        people = [p for m in current.to_play() for t in (m.team_a, m.team_b) for p in champ.state.teams[t].players]
        bots = {r[0] for r in await self.pool.fetch(
            "SELECT user_id FROM users WHERE user_id = ANY($1) AND kind = 'bot'", people)}
        events = checkin.bots_to_check_in(champ.state, checks, bots)
        if events:
            rows = [self._row(championship_id, e, f"{e.round}/{e.match_id}/{e.player}", "bot") for e in events]
            try:
                await append(self.pool, check_in_stream(championship_id), checks.version, rows)
            except ConcurrencyError:
                pass                                  # someone checked in meanwhile: the next tick retries
            checks = await self.of(championship_id)
        return checks

    async def open_ready_tables(self, championship_id: str, champ: Championship, checks: CheckIns, actor: str
                                ) -> list[Table]:
        """Open the table of each current match whose two teams have both checked in."""
        ready = checkin.ready(champ.state, checks)
        if not ready:
            return []
        return await self.championships.matches.open_round_tables(championship_id, champ.state.rounds[-1].number,
                                                                  actor, only=ready)

    async def close(self, championship_id: str, round_no: int) -> CheckIns:
        """Store that the round's window closed, with the teams absent then (once: a fixed event id)."""
        for _ in range(self.championships.max_attempts):
            champ = await self.championships.load(championship_id)
            checks = await self.of(championship_id)
            closing = checkin.closing(champ.state, checks, round_no)
            if closing is None:
                return checks
            try:
                await append(self.pool, check_in_stream(championship_id), checks.version,
                             [self._row(championship_id, closing, f"{round_no}/closed", "system")])
            except (ConcurrencyError, DuplicateEventError):
                continue                              # a check-in (or the same closing) came first
            return await self.of(championship_id)
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")
