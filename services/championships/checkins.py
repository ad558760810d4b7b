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
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import asyncpg
import msgspec

from domain.tournament import checkin
from domain.tournament.checkin import (
    CheckIn, CheckInBots, CheckInClosed, CheckInExtended, CheckIns, CloseCheckIn, ExtendCheckIn, PlayerCheckedIn,
)
from services import people
from services.commands import CommandLoop, Decision
from services.errors import Conflict, Forbidden
from services.eventstore import Codec, ConcurrencyError, read_stream

if TYPE_CHECKING:
    from services.championships.service import Championship
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


class Window(msgspec.Struct, frozen=True):
    """What a check-in command is decided on: the championship, its check-ins, and the database's time."""

    champ: Championship
    checks: CheckIns
    now: dt.datetime | None                   # None: a command that is not timed (the close)


class CheckInService:
    """The check-in stream of each championship: its commands run in the championships' ``commands`` loop,
    decided on the championship as ``load`` gives it; ``open_tables(championship_id, round_no, actor, only)``
    opens the tables of a round's matches (the matches')."""

    def __init__(self, pool: asyncpg.Pool, commands: CommandLoop, namespace: uuid.UUID,
                 load: Callable[[str], Awaitable[Championship]],
                 open_tables: Callable[..., Awaitable[list[Table]]]):
        self.pool, self.commands, self.namespace = pool, commands, namespace
        self.load_championship, self.open_tables = load, open_tables

    async def of(self, championship_id: str) -> CheckIns:
        return fold_check_ins(await read_stream(self.pool, check_in_stream(championship_id)))

    async def _window(self, championship_id: str, *, clock: bool = True) -> Window:
        champ = await self.load_championship(championship_id)
        checks = await self.of(championship_id)
        return Window(champ, checks, await self.pool.fetchval("SELECT now()") if clock else None)

    def _decision(self, championship_id: str, checks: CheckIns, command, name, actor: str) -> Decision:
        """``command`` decided on ``checks``, each event stored once under the id ``name(event)`` gives."""
        events = checkin.decide(checks, command)
        return Decision(events, [self._row(championship_id, e, name(e), actor) for e in events], checks.version)

    async def _run(self, championship_id: str, load, decide, *, once: bool = False):
        return await self.commands.run(check_in_stream(championship_id), load, decide, once=once,
                                       busy=f"championship {championship_id} kept changing; try again")

    def _row(self, championship_id: str, event, name: str, actor: str):
        return CHECK_IN_CODEC.encode(event, event_id=uuid.uuid5(
            self.namespace, f"{championship_id}/check-in/{name}"), metadata={"actor": actor})

    async def check_in(self, championship_id: str, match_id: str, player: str, *, by: str
                       ) -> tuple[bool, CheckIns, Championship]:
        """Check ``player`` in for a match of the round being played; returns (stored now?, check-ins, champ).

        Once both teams are in, the match's table opens. Checking in twice stores nothing new; another check-in
        (maybe this player's own, sent twice) stored first has it decided again."""
        async def load(_attempt: int) -> Window:
            return await self._window(championship_id)

        def decide(w: Window) -> Decision:
            state = w.champ.state
            if w.champ.run.check_in_seconds is None:
                raise Conflict("no_check_in", f"championship {championship_id} has no check-in: each match's "
                                              "table opens when its round starts")
            round_, match = checkin.match_to_check_in(state, match_id)
            team_id = next((t for t in (match.team_a, match.team_b) if player in state.teams[t].players), None)
            if team_id is None:
                raise Forbidden("not_in_match", f"{player} does not play in match {match_id}")
            command = CheckIn(round=round_.number, match_id=match_id, team_id=team_id, player=player, by=by,
                              now=w.now, closes=closes_at(w.champ, round_.number, w.checks))
            return self._decision(championship_id, w.checks, command,
                                  lambda _: f"{round_.number}/{match_id}/{player}", by)

        step = await self._run(championship_id, load, decide)
        if step.appended is None:
            return False, step.fold.checks, step.fold.champ
        checks = await self.of(championship_id)
        await self.open_ready_tables(championship_id, step.fold.champ, checks, by)
        return step.appended.stored, checks, step.fold.champ

    async def extend(self, championship_id: str, round_no: int, seconds: float, *, by: str, command_id: str
                     ) -> CheckIns:
        """Keep round ``round_no``'s window open ``seconds`` longer: ordered with the check-ins and the closing
        by the stream's version, so that a window is never extended after it closed; the same ``command_id``
        sent again extends it once (its event's id names the command: stored already, it is not stored again)."""
        async def load(_attempt: int) -> Window:
            w = await self._window(championship_id)
            if w.champ.run.check_in_seconds is None:
                raise Conflict("no_check_in", f"championship {championship_id} has no check-in")
            return w

        def decide(w: Window) -> Decision:
            command = ExtendCheckIn(championship=w.champ.state, round=round_no, seconds=seconds, by=by, now=w.now,
                                    closes=closes_at(w.champ, round_no, w.checks))
            return self._decision(championship_id, w.checks, command,
                                  lambda _: f"{round_no}/extend/{by}/{command_id}", by)

        await self._run(championship_id, load, decide, once=True)
        return await self.of(championship_id)

    async def check_in_bots(self, championship_id: str, champ: Championship, checks: CheckIns) -> CheckIns:
        """Check in every bot player of the current round's matches who is not in yet (one append; someone who
        checks in meanwhile leaves it to the next tick)."""
        current = champ.state.rounds[-1]
        players = [p for m in current.to_play() for t in (m.team_a, m.team_b) for p in champ.state.teams[t].players]
        bots = await people.bots(self.pool, players)
        command = CheckInBots(championship=champ.state, bots=frozenset(bots))
        decision = self._decision(championship_id, checks, command, lambda e: f"{e.round}/{e.match_id}/{e.player}",
                                  "bot")
        if decision.events:
            try:
                await self.commands.append(check_in_stream(championship_id), decision)
            except ConcurrencyError:
                pass
            checks = await self.of(championship_id)
        return checks

    async def open_ready_tables(self, championship_id: str, champ: Championship, checks: CheckIns, actor: str
                                ) -> list[Table]:
        """Open the table of each current match whose two teams have both checked in."""
        ready = checkin.ready(champ.state, checks)
        if not ready:
            return []
        return await self.open_tables(championship_id, champ.state.rounds[-1].number, actor, only=ready)

    async def close(self, championship_id: str, round_no: int) -> CheckIns:
        """Store that the round's window closed, with the teams absent then (once: a fixed event id; a check-in,
        or the same closing, stored first has it decided again)."""
        async def load(_attempt: int) -> Window:
            return await self._window(championship_id, clock=False)

        def decide(w: Window) -> Decision:
            return self._decision(championship_id, w.checks, CloseCheckIn(championship=w.champ.state, round=round_no),
                                  lambda _: f"{round_no}/closed", "system")

        step = await self._run(championship_id, load, decide)
        return step.fold.checks if step.appended is None else await self.of(championship_id)
