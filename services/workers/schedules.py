"""Championship schedules: ``championship_tick`` moves a championship on, from its events and the clock.

Which championships run by themselves: those with a schedule (the schedule is the organiser's consent), from
the round of its first slot on. A schedule whose first slot is round 2 or later leaves the rounds before it
to the organiser (registration, the draw and round 1 when he chooses) and starts the next ones itself: the
console's "the next rounds start as soon as the last one is decided" with no time for round 1. For them,
derived from the championship's events, its check-ins and the database's clock (``now()``):

* a slot for round 1, registration open, its time come, at least two teams registered: close registration (publishing
  the draw commitment), make the draw (a random draw; a championship seeded by rating waits for its
  organiser's draw) and start round 1;
* a round being played with a check-in window (``RunSettings.check_in_seconds``, from the round's
  start): bots check in by themselves, a match's table opens once both its teams are in, and when the
  window closes a team not in forfeits the match (both not in: a double forfeit);
* a round whose every match has its result (results of finished tables are collected first): the next
  round starts at its slot's time, or at once when it has none; when no round is left, the championship
  finishes with its ranking.

A championship with no schedule is run by its organiser; its ticks only collect finished tables'
results and run the check-in of the rounds the organiser starts. Every effect goes through
``ChampionshipService.execute`` with a deterministic command id (``tick/round-3/start``,
``tick/round-3/no-shows``, ``tick/finish``...), so a tick delivered twice, or two
ticks at once, have one effect. A tick is enqueued after each append to a running championship (in
worker processes), when a slot or a window is about to come due (a delayed message), and by the
reconciler for every unfinished championship, so a lost message only delays a championship.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging

import dramatiq

from domain.tournament import (
    FinishChampionship,
    Settings,
    StartRound,
)
from domain.tournament import checkin
from domain.tournament.formats import next_round
from services.championships import Championship, ChampionshipService, CheckIns, closes_at
from services.eventstore import reads

log = logging.getLogger("baloot.workers")

ACTOR = "schedule"
LOOKAHEAD = dt.timedelta(seconds=60)   # a time further off is left to the reconciler's ticks
PREFIX = "championship-"


def slot_times(settings: Settings) -> dict[int, dt.datetime]:
    """Each scheduled round's start as an aware datetime (a time without zone is UTC)."""
    out = {}
    for slot in settings.schedule:
        at = dt.datetime.fromisoformat(slot.starts_at)
        out[slot.round] = at if at.tzinfo else at.replace(tzinfo=dt.UTC)
    return out


def runs_itself(champ: Championship) -> bool:
    """Whether the workers run (some rounds of) this championship: it has a schedule."""
    settings = champ.state.settings
    return settings is not None and bool(settings.schedule)


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
        if not runs_itself(champ):
            # Its organiser starts the rounds; the workers still close its check-in windows.
            if champ.state.status == "running" and champ.state.rounds[-1].undecided \
                    and champ.run.check_in_seconds is not None:
                return await self._playing(svc, championship_id, champ, now, full)
            return "run by its organiser"
        slots = slot_times(champ.state.settings)
        first = min(slots)
        if not champ.state.rounds and first > 1:
            return "waiting for the organiser's round 1"
        if not champ.state.rounds:
            state = champ.state
            if now < slots[1]:
                await self.later(championship_id, slots[1], now)
                return "waiting for round 1"
            if state.status == "registration":
                if state.active_count < 2:
                    return "waiting for teams"
                champ = await self._do(svc, championship_id, "tick/registration/close",
                                       lambda c: svc.close_registration(championship_id, c))
            if champ.state.status == "closed":
                if champ.state.settings.seeding != "draw":
                    return "waiting for the organiser's draw"
                champ = await self._do(svc, championship_id, "tick/draw",
                                       lambda c: [svc.make_draw(championship_id, c, {})])
            champ = await self._do(svc, championship_id, "tick/round-1/start", lambda _: [StartRound(1)])
            full = True                             # this tick started the round: it opens its tables
        while True:
            state = champ.state
            current = state.rounds[-1]
            if current.undecided:
                return await self._playing(svc, championship_id, champ, now, full)
            if next_round(state) is None:
                await self._do(svc, championship_id, "tick/finish", lambda _: [FinishChampionship()])
                return "finished"
            n = current.number + 1
            if n < first:
                return f"round {n} is the organiser's to start"
            due = slots.get(n)
            if due is not None and now < due:
                await self.later(championship_id, due, now)
                return f"waiting for round {n}"
            champ = await self._do(svc, championship_id, f"tick/round-{n}/start",
                                   lambda _, n=n: [StartRound(n)])
            full = True

    async def _playing(self, svc: ChampionshipService, championship_id: str, champ: Championship,
                       now: dt.datetime, full: bool = True) -> str:
        """The current round has matches to decide: run its check-in, open the tables that may open."""
        n = champ.state.rounds[-1].number
        if champ.run.check_in_seconds is None:
            if full:
                await svc.matches.open_round_tables(championship_id, n, ACTOR)
            return f"round {n} playing"
        checks: CheckIns = await svc.check_ins.of(championship_id)
        closes = closes_at(champ, n, checks)
        if n not in checks.closed and now < closes:
            checks = await svc.check_ins.check_in_bots(championship_id, champ, checks)
            await svc.check_ins.open_ready_tables(championship_id, champ, checks, ACTOR)
            await self.later(championship_id, closes, now)
            return f"round {n} checking in"
        if n not in checks.closed:
            checks = await svc.check_ins.close(championship_id, n)
        absent = set(checks.closed[n])
        champ = await self._do(svc, championship_id, f"tick/round-{n}/no-shows",
                               lambda c: checkin.no_show_commands(c.state, n, absent))
        await svc.check_ins.open_ready_tables(championship_id, champ, checks, ACTOR)
        return f"round {n} playing"

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
