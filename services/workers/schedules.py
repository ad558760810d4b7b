"""Championship schedules: ``championship_tick`` moves a championship on, from its events and the clock.

What each tick does is ``domain/tournament/progression.py``'s: the next step from the championship's fold,
its check-in window and the database's clock (``now()``, read once a tick); this worker carries the steps
out, one after the other, until one leaves the championship waiting. Every effect goes through
``ChampionshipService.execute`` with the step's deterministic command id (``tick/round-3/start``,
``tick/round-3/no-shows``, ``tick/finish``...), so a tick delivered twice, or two ticks at once, have one
effect. A tick is enqueued after each append to a running championship (in worker processes), when a slot or
a window is about to come due (a delayed message), and by the reconciler for every unfinished championship,
so a lost message only delays a championship. A full tick first collects the results of finished tables (a
game-end hook lost in a crash).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging

import dramatiq

from domain.tournament import FinishChampionship, StartRound
from domain.tournament import checkin, progression
from domain.tournament.progression import (
    CheckingIn,
    ClosingRegistration,
    Course,
    Drawing,
    Finishing,
    NoShows,
    Playing,
    RoundStarting,
    Wait,
)
from services.championships import Championship, ChampionshipService, CheckIns, closes_at, stream_of
from services.eventstore import reads

log = logging.getLogger("baloot.workers")

ACTOR = "schedule"
LOOKAHEAD = dt.timedelta(seconds=60)   # a time further off is left to the reconciler's ticks
PREFIX = stream_of("")                 # the championships' streams


def runs_itself(champ: Championship) -> bool:
    """Whether the workers run (some rounds of) this championship: it has a schedule."""
    return progression.runs_itself(champ.state)


class Schedules:
    """The ``championship_tick`` actor and the championship service of each worker runtime."""

    def __init__(self, workers):
        self.workers = workers

        async def championship_tick(championship_id: str, full: bool = True) -> None:
            await self.tick(championship_id, full)

        self.championship_tick = dramatiq.actor(championship_tick, queue_name="championships",
                                                broker=workers.broker, max_retries=10, min_backoff=200,
                                                max_backoff=5000)

    async def championships(self) -> ChampionshipService:
        return await self.workers.runtime.championships()

    async def moved(self, championship_id: str, champ: Championship) -> None:
        """The championship's stream moved: tick, if the workers run it (or close its check-in windows)."""
        if champ.state.status != "finished" and (runs_itself(champ) or champ.run.check_in_seconds is not None):
            await self.send(championship_id, full=False)

    async def send(self, championship_id: str, delay_ms: int = 0, full: bool = True) -> None:
        await asyncio.to_thread(self.championship_tick.send_with_options, args=(championship_id, full),
                                delay=delay_ms or None)

    async def later(self, championship_id: str, due: dt.datetime, now: dt.datetime) -> None:
        """Tick again when ``due`` comes, if that is soon (otherwise a reconciler's tick will)."""
        if dt.timedelta(0) < due - now <= LOOKAHEAD:
            await self.send(championship_id, int((due - now).total_seconds() * 1000) + 20)

    # ------------------------------------------------------------ the tick

    async def tick(self, championship_id: str, full: bool = True) -> str:
        """Move the championship on as far as its events and the clock allow; returns where it stands.

        A tick after a move of the stream (``full`` False: one per match result) neither re-collects the
        round's results nor re-opens its tables unless it started the round: that is the full ticks' work
        (the reconciler's, a delayed one), so a round of N matches costs O(N), not O(N²)."""
        svc = await self.championships()
        champ = await svc.load(championship_id, missing_ok=True)
        state = champ.state
        if champ.version == 0 or state.status == "finished":
            return state.status if champ.version else "unknown"
        if state.status == "running" and full:
            await svc.matches.collect_results(championship_id)      # a game-end hook lost in a crash
            champ = await svc.load(championship_id)
        now = await svc.pool.fetchval("SELECT now()")
        asked = -1
        while champ.version != asked:          # a step that stored nothing would be asked for again: stop
            asked, checks = champ.version, await self._check_ins(svc, championship_id, champ)
            step = progression.next_step(self.course(champ, checks), now, full=full)
            match step:
                case Wait(reason, until):
                    if until is not None:
                        await self.later(championship_id, until, now)
                    return reason
                case ClosingRegistration():
                    champ = await self._do(svc, championship_id, step.command_id,
                                           lambda c: svc.close_registration(championship_id, c))
                case Drawing():
                    champ = await self._do(svc, championship_id, step.command_id,
                                           lambda c: [svc.make_draw(championship_id, c, {})])
                case RoundStarting(n):
                    champ = await self._do(svc, championship_id, step.command_id, lambda _, n=n: [StartRound(n)])
                    full = True                         # this tick started the round: it opens its tables
                case Finishing():
                    await self._do(svc, championship_id, step.command_id, lambda _: [FinishChampionship()])
                    return "finished"
                case Playing(n, open_tables):
                    if open_tables:
                        await svc.matches.open_round_tables(championship_id, n, ACTOR)
                    return f"round {n} playing"
                case CheckingIn(n, closes):
                    checks = await svc.check_ins.check_in_bots(championship_id, champ, checks)
                    await svc.check_ins.open_ready_tables(championship_id, champ, checks, ACTOR)
                    await self.later(championship_id, closes, now)
                    return f"round {n} checking in"
                case NoShows(n, close):
                    if close:
                        checks = await svc.check_ins.close(championship_id, n)
                    absent = set(checks.closed[n])
                    champ = await self._do(svc, championship_id, step.command_id,
                                           lambda c: checkin.no_show_commands(c.state, n, absent))
                    await svc.check_ins.open_ready_tables(championship_id, champ, checks, ACTOR)
                    return f"round {n} playing"
        return f"{step.command_id} stored nothing"

    @staticmethod
    def course(champ: Championship, checks: CheckIns | None) -> Course:
        """The championship as its progression sees it: its state, and its current round's check-in window."""
        rounds = champ.state.rounds
        if checks is None or not rounds:
            return Course(champ.state)
        n = rounds[-1].number
        return Course(champ.state, closes_at(champ, n, checks), n in checks.closed)

    @staticmethod
    async def _check_ins(svc: ChampionshipService, championship_id: str, champ: Championship) -> CheckIns | None:
        """The check-ins, read only when a round with a check-in window is being played (when its progression
        looks at them)."""
        rounds = champ.state.rounds
        if champ.run.check_in_seconds is None or not rounds or not rounds[-1].undecided:
            return None
        return await svc.check_ins.of(championship_id)

    async def _do(self, svc: ChampionshipService, championship_id: str, command_id: str, make) -> Championship:
        outcome, champ = await svc.execute(championship_id, command_id, make, actor=ACTOR)
        if outcome.events:
            log.info("championship %s: %s -> version %s (%s)", championship_id, command_id, outcome.version,
                     ", ".join(outcome.events),
                     extra={"championship_id": championship_id, "command_id": command_id})
        return champ

    # ------------------------------------------------------------ reconciling

    async def reconcile(self) -> int:
        """Enqueue a tick for every unfinished championship; returns how many."""
        svc = await self.championships()
        ids = [s[len(PREFIX):] for s in await reads.streams_begun_by(svc.pool, "championship_created",
                                                                       lacking=("championship_finished",),
                                                                       prefix=PREFIX)]
        for championship_id in ids:
            await self.send(championship_id)
        return len(ids)
