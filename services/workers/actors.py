"""The actors: a thin shell around the pure domain (load events, decide, append at the expected version).

Each actor re-derives from the table's events whether its work is still due (``pending_work``); if the
table moved on, the message is stale and does nothing, and if it came before its due time (a clock, a
paced table's bot) it is sent again with the delay left. Its effect is a table command with a
deterministic command id (``bot:<version>``, ``clock:<version>``) and ``expected_version``, so a second
delivery replays the first outcome or is refused as stale: one effect or none.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import logging
import math

import dramatiq

from domain.baloot.events import RecordResult
from domain.table import game_of, timeout_command
from services.anchor import default_signer
from services.errors import StaleVersion
from services.championships import ChampionshipService
from services.flow import WorkQueue
from services.db import create_pool
from services.platform import Platform
from services.tables import TableService, command_digest
from services.eventstore.migrations import migrate
from services.tables.pending import Work, pending_work
from services.workers.projections import ProjectionWorker
from services.workers.schedules import Schedules
from services.workers.resident import EvaluationWorker, FairPlayWorker, WebhookWorker
from services.workers.broker import broker_unavailable_errors, waiting
from services.eventstore import reads, stream_version
from services.tables.service import stream_of

log = logging.getLogger("baloot.workers")

# A periodic reconciler pass while bot turns wait in their queue: only tables quiet this long (seconds).
BACKLOGGED = 300.0
# Runs of bot turns (a run: to a person's turn or the deal's end) one worker plays in a row before handing the
# table on to the broker: a whole game of bots, nearly always (a 152-point game is 9-37 deals). A game handed on
# midway comes back behind every table queued meanwhile (a round's tables all queue at its start: its games
# handed on all came back at the round's end) and half the time to another process, which reads the whole game
# back and folds it: with 16, that was a round's tail, played at half the rate.
CHAIN = 64
_PLAYING: contextvars.ContextVar[str | None] = contextvars.ContextVar("baloot_playing", default=None)


class Runtime:
    """One per worker process: the database, and per event loop a pool and the platform on it
    (``services/platform.py``), whose appends hand their work to ``work`` (the workers)."""

    def __init__(self, database_url: str, work: WorkQueue, pool_size: int = 4, secret: bytes | None = None):
        self.database_url, self.work, self.pool_size = database_url, work, pool_size
        self.secret = secret              # None: the configured server secret (services.secret)
        self._platforms: dict[int, Platform] = {}

    async def platform(self) -> Platform:
        loop = asyncio.get_running_loop()
        platform = self._platforms.get(id(loop))
        if platform is None:
            # Migrate first (idempotent, serialised by an advisory lock): on a fresh database the workers
            # may start before `baloot serve` has created the tables they read.
            pool = await create_pool(self.database_url, min_size=1, max_size=self.pool_size)
            await migrate(pool)
            platform = self._platforms[id(loop)] = await Platform.on(pool, secret=self.secret,
                                                                      signer=default_signer(), work=self.work)
        return platform

    async def tables(self) -> TableService:
        return (await self.platform()).tables

    async def championships(self) -> ChampionshipService:
        return (await self.platform()).championships

    async def close(self) -> None:
        """Close the pool of the running loop (each loop closes its own)."""
        platform = self._platforms.pop(id(asyncio.get_running_loop()), None)
        if platform is not None:
            await platform.pool.close()


class Workers:
    """The actors, declared on ``broker``; their ``runtime`` gives each process its database (``secret``: the
    server secret, None: the configured one). The workers are the ``work`` of the flow: told when a table or
    a championship moved, they queue what is due. With ``schedules``, the championship schedules and the
    read models' projections run here too (``services/workers/schedules.py``)."""

    def __init__(self, broker: dramatiq.Broker, database_url: str, *, secret: bytes | None = None,
                 schedules: bool = False, pool_size: int = 4):
        self.broker = broker
        self.runtime = Runtime(database_url, self, pool_size, secret=secret)
        self.unavailable = broker_unavailable_errors()   # the flow leaves such work to the reconciler
        options = dict(broker=broker, max_retries=10, min_backoff=200, max_backoff=5000)

        async def bot_turn(table_id: str, version: int) -> None:
            await self.play_bot_turn(table_id, version)

        async def turn_clock(table_id: str, version: int) -> None:
            await self.run_turn_clock(table_id, version)

        self.bot_turn = dramatiq.actor(bot_turn, queue_name="bots", **options)
        self.turn_clock = dramatiq.actor(turn_clock, queue_name="clocks", **options)
        self.schedules = Schedules(self) if schedules else None
        self.projections = ProjectionWorker(database_url) if schedules else None
        if self.projections is not None:
            broker.add_middleware(self.projections)
            broker.add_middleware(WebhookWorker(database_url))
            broker.add_middleware(FairPlayWorker(database_url, secret))
            broker.add_middleware(EvaluationWorker(database_url, secret))

    async def table_moved(self, table) -> None:
        """Queue what the table waits for, if anything (the reconciler catches lost messages); a bot turn
        that the worker which just played goes on with itself (``play_bot_turn``) is not queued."""
        work = pending_work(table)
        if work is None or (work.kind == "bot" and _PLAYING.get() == work.table_id):
            return
        await self.enqueue(work)

    async def tables_moved(self, tables) -> None:
        """``table_moved`` for a batch of tables (a round's, just opened): their bot turns sent in one go."""
        works = [w for w in map(pending_work, tables) if w is not None]
        bots = [w for w in works if w.kind == "bot"]
        if bots:
            await asyncio.to_thread(lambda: [self._send_bot(w) for w in bots])
        for work in works:
            if work.kind != "bot":
                await self.enqueue(work)

    async def championship_moved(self, championship_id: str, champ) -> None:
        if self.schedules is not None:
            await self.schedules.moved(championship_id, champ)

    async def enqueue(self, work: Work) -> None:
        if work.kind == "bot":
            await asyncio.to_thread(self._send_bot, work)
            return
        await asyncio.to_thread(self.turn_clock.send_with_options, args=(work.table_id, work.version),
                                delay=_delay_ms(work.due))

    def _send_bot(self, work: Work) -> None:
        """Send a bot turn (blocking): at once, or at a paced table with the delay until it is due."""
        if work.due is None:
            self.bot_turn.send(work.table_id, work.version)
        else:
            self.bot_turn.send_with_options(args=(work.table_id, work.version), delay=_delay_ms(work.due))

    # ------------------------------------------------------------ actors

    async def play_bot_turn(self, table_id: str, version: int) -> str:
        """The bots due at ``version`` act, through the table's command path, each on its seat's view only:
        the whole run of consecutive bot turns (to a person's turn, or the deal's end) in one append, and
        while the next deal opens with a bot's turn, the next run (up to ``CHAIN`` runs: then a message),
        with the table kept hot here rather than sent round the broker.

        At a paced table (``bot_pace``) one bot turn, once it is due (a message that comes earlier is sent
        again with the delay left, as a clock's is), and the next turn goes as a message delayed by the
        pace: the worker never sleeps.

        The table is this process's own fold when it is at ``version`` (no read first; a stale fold makes
        the append fail and the table is read again)."""
        svc = await self.runtime.tables()
        table = svc.feeds.get(table_id)
        if table is not None and table.version > version:
            return "stale"                        # a table's version only grows: this process played past it
        if table is None or table.version != version:
            if await stream_version(svc.pool, stream_of(table_id)) != version:
                return "stale"                    # a duplicate (the reconciler's, a retry): one cheap read
            table = await svc.load(table_id)
        work = pending_work(table)
        if work is None or work.kind != "bot" or work.version != version:
            return "stale"
        if work.due is not None and await svc.pool.fetchval("SELECT now()") < work.due:
            await self.enqueue(work)              # delivered early (a retry, the reconciler, clock skew)
            return "early"
        token = _PLAYING.set(table_id)
        try:
            for runs in range(1, CHAIN + 1):
                try:
                    outcome, table = await svc.play_bots(table_id, work.version, game_of(table).choose_from, table)
                except StaleVersion:
                    return "stale" if runs == 1 else "done"
                log.info("table %s: bots from version %s -> %s%s", table_id, work.version, outcome.version,
                         " (replayed)" if outcome.replayed else "",
                         extra={"table_id": table_id, "command_id": f"bot:{work.version}"})
                if outcome.replayed:
                    work = None                   # another delivery played it, and queued what follows
                    return "replayed" if runs == 1 else "done"
                work = pending_work(table)
                if work is None or work.kind != "bot" or work.due is not None:
                    return "done"                 # a paced table's next bot: a message, when it is due
        finally:
            _PLAYING.reset(token)
            cached = svc.feeds.get(table_id)
            if work is not None and work.kind == "bot" and (cached is None or cached.version <= table.version):
                await self.enqueue(work)          # the chain's end, a paced turn, a failure: a message goes on
        return "done"

    async def run_turn_clock(self, table_id: str, version: int) -> str:
        """A clock ran out: apply the table's consequence, unless the seat acted meanwhile."""
        svc = await self.runtime.tables()
        table = await svc.load(table_id)
        work = pending_work(table)
        if work is None or work.kind not in ("clock", "review") or work.version != version:
            return "stale"
        now = await svc.pool.fetchval("SELECT now()")
        if work.due is not None and now < work.due:
            await self.enqueue(work)          # delivered early (retry or clock skew): wait again
            return "early"
        if work.kind == "review":
            return await self._execute(svc, table_id, f"review:{version}", RecordResult(), version, "clock",
                                       "system")
        command = timeout_command(table.opened, table.game, table.timeouts, work.seat)
        return await self._execute(svc, table_id, f"clock:{version}", command, version, "clock", "clock",
                                   seat=work.seat)

    async def _execute(self, svc, table_id, command_id, command, version, actor, role, table=None,
                       seat=None) -> str:
        try:
            outcome, _ = await svc.execute(table_id, command_id, lambda t: command, actor=actor, role=role,
                                           digest=command_digest(command), seat=seat,
                                           expected_version=version, table=table)
        except StaleVersion:
            return "stale"
        log.info("table %s: %s at version %s -> %s%s", table_id, command_id, version, outcome.version,
                 " (replayed)" if outcome.replayed else "",
                 extra={"table_id": table_id, "command_id": command_id})
        return "replayed" if outcome.replayed else "done"

    # ------------------------------------------------------------ reconciling

    async def reconcile(self, quiet: float = 0.0) -> int:
        """Find every live table's pending work and enqueue it; returns how many were enqueued. With ``quiet``,
        only the tables nothing was stored at for that many seconds: one that moved since had its work queued
        by whoever moved it (the periodic pass would otherwise read every live table and queue a duplicate of
        every bot turn in flight). While bot turns wait in their queue, a table's turn may wait there longer
        than that (4,000 tables' turns ahead of it in a big round): then only tables quiet for ``BACKLOGGED``
        seconds are looked at, not every table of the round read and queued again each pass."""
        svc = await self.runtime.tables()
        if quiet and await asyncio.to_thread(waiting, self.broker, self.bot_turn.queue_name):
            quiet = max(quiet, BACKLOGGED)
        async with svc.pool.acquire() as conn, conn.transaction():     # the lock ends with the transaction
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock(hashtext('baloot-arena/reconcile'))"):
                return 0
            live = [r[0] for r in await conn.fetch("SELECT table_id FROM tables_index WHERE status = 'live'")]
            heads = await reads.last_events(conn, [stream_of(t) for t in live], quiet_seconds=quiet)
        rows = [(t, heads[stream_of(t)].version) for t in live if stream_of(t) in heads]
        count = 0
        for table_id, head in rows:
            cached = svc.feeds.get(table_id)        # this process's fold, when it is at the head: no read
            table = cached if cached is not None and cached.version == head else await svc.load(table_id)
            if table.opened is not None and table.game.phase == "ended":
                # Its end was stored, and its writer died before marking the index (the mark follows the
                # append: deploy/chaos found one so, a table "live" forever): the log says it is over.
                await svc.pool.execute("UPDATE tables_index SET status = 'finished' WHERE table_id = $1", table_id)
                continue
            work = pending_work(table)
            if work is not None:
                await self.enqueue(work)
                count += 1
        if self.schedules is not None:
            count += await self.schedules.reconcile()
            await (await self.runtime.platform()).daily.reveal_closed_sets()
        return count


def _delay_ms(due: dt.datetime | None) -> int:
    """A message's delay until ``due`` (None: none), in whole milliseconds rounded up, so that it is never
    delivered before it is due by this process's clock."""
    if due is None:
        return 0
    return max(0, math.ceil((due - dt.datetime.now(dt.timezone.utc)).total_seconds() * 1000))
