"""A championship rehearsed on the live path: N teams of bots, run by the real workers, then checked.

``Rehearsal`` creates the championship through ``ChampionshipService`` in a scratch schema (its own secret,
derived from the rehearsal's seed, so a run is reproducible: the same draw, the same deals, the same bot
play), registers the teams, and lets the workers run it — registration close, the committed draw, every
round, every game through the table service and the event store, the standings by the projection runner.
The workers are worker processes on RabbitMQ (``baloot worker``) when a broker URL is given, else a
dramatiq worker in this process on the in-process broker. Nothing here moves the championship on: it only
watches (``progress``) and, once the champion is known, runs the end-state checks (``checks``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import asyncpg
import msgspec

from domain.baloot.deal import dealt_from_committed_seed
from domain.tournament import (
    ChampionshipState, CreateChampionship, RegisterTeam, RoundPaired, Settings, StartRound, commitment, decide,
    evolve,
)
from domain.tournament.draw import seeded_order
from domain.tournament.events import DrawCommitted, DrawMade, RoundSlot
from services.championships import CODEC, Championship, RunSettings, fold_rows, stream_of
from services.db import create_pool, create_scratch_schema, drop_schema, schema_url
from services.eventstore import read_stream, reads, rebuild_projection
from services.platform import Platform
from services.tables import stream_of as stream_of_table

CHAMPIONSHIP = "rehearsal"
ORGANISER = "rehearsal-organiser"


class Progress(msgspec.Struct, frozen=True):
    """Where the rehearsal stands: the current round, its games done, every game so far, events stored."""

    status: str
    round: int
    rounds: int                       # planned (0 before the draw)
    round_done: int
    round_total: int
    matches_done: int
    matches_total: int                # every match of the championship (a knock-out: teams - 1)
    events: int
    seconds: float


class Check(msgspec.Struct, frozen=True):
    name: str
    ok: bool
    detail: str
    seconds: float = 0.0


class Baselines(msgspec.Struct, frozen=True):
    """The same machine's limits, measured in the rehearsal's run before its workers start
    (``services/workers/baselines.py``): the store's batch appends alone, and the engine with its bots in
    memory on one core (``cores`` of them on the machine)."""

    appends_per_second: float
    in_memory_per_core: float
    cores: int


class Report(msgspec.Struct, frozen=True):
    teams: int
    format: str
    seed: str
    bots: str
    workers: str
    champion: str | None
    wall_seconds: float               # from the workers' start to the champion (checks not included)
    checks_seconds: float
    rounds: int
    games: int
    events: int
    events_per_second: float
    bot_actions: int
    bot_actions_per_second: float
    checks: list[Check]
    baselines: Baselines | None = None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def ratios(self) -> tuple[float, float] | None:
        """The live path's events/s against the batch appends, and against the engine and bots in memory
        on every core; None without baselines."""
        b = self.baselines
        if b is None:
            return None
        return self.events_per_second / b.appends_per_second, \
            self.events_per_second / (b.in_memory_per_core * b.cores)


# ------------------------------------------------------------------ workers

# The rehearsal measures play: the fair-play analysis (a tenth of a second of CPU a deal, twenty times what
# playing it costs) is left queued, for `baloot fairplay --championship` on the kept schema or analysers elsewhere.
NO_ANALYSIS = {"BALOOT_FAIRPLAY_PROCESSES": "0"}


class ProcessWorkers:
    """``baloot worker --processes N`` on RabbitMQ at ``broker_url`` (its virtual host is the caller's)."""

    def __init__(self, database_url: str, broker_url: str, secret: str, processes: int, threads: int,
                 reconcile_seconds: float):
        self.log = Path(tempfile.mkstemp(prefix="baloot-rehearsal-worker-", suffix=".log")[1])
        env = dict(os.environ, DATABASE_URL=database_url, BROKER_URL=broker_url, BALOOT_SECRET=secret,
                   BALOOT_RECONCILE_SECONDS=str(reconcile_seconds), BALOOT_LOG_LEVEL="WARNING",
                   **NO_ANALYSIS)
        baloot = str(Path(sys.executable).with_name("baloot"))
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen([baloot, "worker", "--processes", str(processes), "--threads",
                                          str(threads)], env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.where = f"{processes} worker process(es) x {threads} threads on RabbitMQ"

    def check(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"the worker exited:\n{self.log.read_text()[-3000:]}")

    async def close(self) -> None:
        await asyncio.to_thread(stop_worker, self.proc, 30)
        self.log.unlink(missing_ok=True)


def stop_worker(proc: subprocess.Popen, timeout: float) -> None:
    """Stop a ``baloot worker`` started in a session of its own: SIGTERM to its master only, which passes it on
    to its worker processes (a worker process signalled twice, by a signal to the whole group and then by its
    master, exits its main thread at once and hangs on its consumers' threads), then SIGKILL to the group
    after ``timeout`` seconds."""
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


class InProcessWorkers:
    """The actors, schedules and projection runner on the in-process broker, a dramatiq worker here."""

    def __init__(self, database_url: str, secret: str, threads: int, reconcile_seconds: float):
        from dramatiq import Worker

        from services.workers.entry import build
        self.saved_env = {k: os.environ.get(k) for k in NO_ANALYSIS}   # given back at close: not this process's for good
        os.environ.update(NO_ANALYSIS)
        self.broker, self.workers, _ = build(database_url, "", reconcile_every=reconcile_seconds,
                                             secret=secret.encode())
        self.worker = Worker(self.broker, worker_threads=threads, worker_timeout=50)
        self.worker.start()
        self.where = f"in-process broker, 1 process x {threads} thread(s)"

    def check(self) -> None:
        pass

    async def close(self) -> None:
        from dramatiq.asyncio import get_event_loop_thread

        runtime = self.workers.runtime
        try:
            await asyncio.to_thread(get_event_loop_thread().run_coroutine, runtime.close())
            await asyncio.to_thread(self.worker.stop)
        finally:
            for k, v in self.saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# ------------------------------------------------------------------ the rehearsal


class Rehearsal:
    """One rehearsal in its own scratch schema of the server at ``server_url``."""

    def __init__(self, server_url: str, teams: int, *, format: str = "single_elimination", seed: str = "1",
                 bots: str = "normal", broker_url: str | None = None, processes: int = 1, threads: int = 8,
                 reconcile_seconds: float = 30.0, game_target: int = 152, keep: bool = False,
                 schema: str | None = None, baselines: bool = False, stream_checks: bool = True,
                 championship_id: str = CHAMPIONSHIP):
        if teams < 2:
            raise ValueError("a championship needs at least two teams")
        self.server_url, self.n, self.format, self.seed, self.bots = server_url, teams, format, seed, bots
        self.broker_url, self.processes, self.threads = broker_url, processes, threads
        self.reconcile_seconds, self.game_target, self.keep = reconcile_seconds, game_target, keep
        self.measure_baselines, self.stream_checks = baselines, stream_checks
        self.secret = f"baloot-rehearsal/{seed}"
        self.championship_id = championship_id   # another's: deploy/chaos checks championships it made through the API
        self.schema = schema              # given: a migrated schema of the caller's, kept afterwards
        self.own_schema = schema is None
        self.pool: asyncpg.Pool | None = None

    async def __aenter__(self) -> Rehearsal:
        if self.broker_url:
            self.broker_to_itself()
        if self.own_schema:
            self.schema = await create_scratch_schema(self.server_url, "rehearsal")
        self.url = schema_url(self.server_url, self.schema)
        self.pool = await create_pool(self.url, min_size=1, max_size=4)
        platform = Platform(self.pool, self.secret.encode())    # no workers attached: this process only watches
        self.tables, self.championships = platform.tables, platform.championships
        return self

    def broker_to_itself(self) -> None:
        """Refuse to start while anyone consumes the broker's work queues: the queues are named the same for
        every schema, so another rehearsal's workers (or a deployment's on the same virtual host) would take
        this one's bot turns, find no such table in their schema and drop them, and each would stall the
        other (seen: a run that never finished, one twice as slow)."""
        from services.workers.broker import QUEUES, consumers

        taken = {q: n for q, n in consumers(self.broker_url, QUEUES).items() if n}
        if taken:
            raise RuntimeError(
                "RabbitMQ at " + self.broker_url.split("@")[-1] + " already has consumers on its work queues ("
                + ", ".join(f"{q}: {n}" for q, n in taken.items()) + "): another rehearsal or other workers use "
                "this virtual host; stop them, or give the rehearsal a virtual host of its own in BROKER_URL")

    async def __aexit__(self, *exc) -> None:
        if self.pool is not None:
            await self.pool.close()
        if self.own_schema and self.schema and not self.keep:
            await drop_schema(self.server_url, self.schema)

    async def prepare(self) -> None:
        """The bot users, the championship (round 1 due now: the workers run it) and its teams."""
        users = [(f"bot-{k:05d}-{p}",) for k in range(1, self.n + 1) for p in (1, 2)]
        await self.pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $1, 'bot') "
                                    "ON CONFLICT DO NOTHING", users)
        now = await self.pool.fetchval("SELECT now()")
        settings = Settings(name=f"rehearsal of {self.n} teams", format=self.format, game_target=self.game_target,
                            schedule=(RoundSlot(1, now.isoformat()),))
        run = RunSettings(bot_level=self.bots)
        await self.championships.execute(self.championship_id, "create", lambda _: [CreateChampionship(self.championship_id, settings)],
                                          actor=ORGANISER, new=True, metadata={"run": msgspec.to_builtins(run)})
        for start in range(1, self.n + 1, 512):            # registrations in batches: one append each
            ks = range(start, min(start + 512, self.n + 1))
            await self.championships.execute(
                self.championship_id, f"register/{start}", lambda _, ks=ks: [
                    RegisterTeam(f"team-{k:05d}", (f"bot-{k:05d}-1", f"bot-{k:05d}-2")) for k in ks],
                actor=ORGANISER)

    def start_workers(self):
        if self.broker_url:
            return ProcessWorkers(self.url, self.broker_url, self.secret, self.processes, self.threads,
                                  self.reconcile_seconds)
        return InProcessWorkers(self.url, self.secret, self.threads, self.reconcile_seconds)

    async def progress(self, started: float) -> Progress:
        champ = await self.championships.load(self.championship_id)
        state = champ.state
        events = await reads.head_position(self.pool)
        current = state.rounds[-1] if state.rounds else None
        decided = sum(1 for r in state.rounds for m in r.matches if r.outcomes[m.index] is not None and not m.note)
        done = sum(1 for m in current.matches if current.outcomes[m.index] is not None and not m.note) if current else 0
        total = sum(1 for m in current.matches if not m.note) if current else 0
        return Progress(state.status, len(state.rounds), planned_rounds(champ), done, total, decided,
                        max(self.n - 1, decided), events, time.monotonic() - started)

    async def run(self, on_progress: Callable[[Progress], None] | None = None, every: float = 1.0,
                  budget: float | None = None) -> Report:
        """Prepare, let the workers run the championship to its champion, stop them, check; the report."""
        await self.prepare()
        baselines = await self.baselines() if self.measure_baselines else None
        events_before = await reads.head_position(self.pool)
        workers = self.start_workers()
        started = time.monotonic()
        tally = Tally()
        streaming = asyncio.create_task(self._check_while_playing(tally)) if self.stream_checks else None
        try:
            while True:
                workers.check()
                p = await self.progress(started)
                if on_progress is not None:
                    on_progress(p)
                if p.status == "finished":
                    break
                if budget is not None and p.seconds > budget:
                    raise TimeoutError(f"the rehearsal did not finish within {budget:.0f}s: {p}")
                await asyncio.sleep(every)          # a look at the workers' progress, once a period
            wall = time.monotonic() - started
            await self.read_models_caught_up()
        finally:
            if streaming is not None:
                streaming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await streaming
            await workers.close()
        t = time.monotonic()
        checks = await self.checks(tally)
        checks_seconds = time.monotonic() - t
        champ = await self.championships.load(self.championship_id)
        events = await reads.count(self.pool)
        stored = await reads.head_position(self.pool) - events_before
        actions = await reads.commands_counted(self.pool, "bot:")
        games = await self.pool.fetchval("SELECT count(*) FROM tables_index")
        return Report(self.n, self.format, self.seed, self.bots, workers.where, champ.state.champion, wall,
                      checks_seconds, len(champ.state.rounds), games, events, stored / wall, actions,
                      actions / wall, checks, baselines)

    async def baselines(self, appends: int = 40_000, seconds: float = 3.0) -> Baselines:
        """The batch appends (in a scratch schema of their own, dropped after) and the engine in memory, while
        nothing else of the rehearsal runs."""
        from services.workers.baselines import append_rate, in_memory_rate

        schema = await create_scratch_schema(self.server_url, "rehearsal_baseline")
        try:
            async with asyncpg.create_pool(schema_url(self.server_url, schema), min_size=1, max_size=4) as pool:
                appended = await append_rate(pool, appends)
        finally:
            await drop_schema(self.server_url, schema)
        memory, _ = await asyncio.to_thread(in_memory_rate, seconds, self.bots, self.game_target, self.seed)
        return Baselines(appended, memory, os.cpu_count() or 1)

    async def _check_while_playing(self, tally: Tally, every: float = 2.0) -> None:
        """The per-stream checks of the tables that finished, batch after batch while the workers play; a look
        again ``every`` seconds once all finished ones are checked."""
        while True:
            if not await self.check_finished_tables(tally):
                await asyncio.sleep(every)

    async def read_models_caught_up(self, timeout: float = 120.0) -> None:
        """Wait (bounded) until the workers' projection runners have folded the championship's last event:
        the standings (its row's version) and the ratings (their checkpoint's position)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            champ = await self.championships.load(self.championship_id)
            version = await self.pool.fetchval("SELECT version FROM standings_rm WHERE championship_id = $1",
                                               self.championship_id)
            last = await reads.stream_position(self.pool, stream_of(self.championship_id))
            rated = await self.pool.fetchval("SELECT position FROM projections WHERE name = 'ratings_rm'")
            if version == champ.version and rated is not None and rated >= last:
                return
            await asyncio.sleep(0.2)            # the runner is another task or process: look again shortly

    # ------------------------------------------------------------ checks

    async def checks(self, tally: Tally | None = None) -> list[Check]:
        """Every end-state check, each on what is stored (the workers stopped). With ``tally``, the streams
        checked while the workers played (``check_finished_tables``) are taken as checked unless they grew
        since; without, every stream is checked here."""
        tally = tally if tally is not None else Tally()
        tally.heads = await self.stream_heads()
        out = []
        for check in (lambda: self.check_chains(tally), lambda: self.check_seeds(tally), self.check_read_models,
                      self.check_bracket, self.check_no_game_open, lambda: self.check_stored_once(tally)):
            t = time.monotonic()
            c = await check()
            out.append(msgspec.structs.replace(c, seconds=round(time.monotonic() - t, 2)))
        return out

    async def stream_heads(self) -> dict[str, int]:
        return await reads.stream_heads(self.pool)

    # Each per-stream part of a check: its results by stream, with the version they cover (a stream that grew
    # past it is checked again at the end).

    async def parts_of(self, streams: list[str], parts: int = 4) -> dict[str, dict[str, tuple]]:
        """Every per-stream part of the checks on ``streams``, by part (``PARTS``): each stream's head with its
        first broken link (None: it verifies), its finished deals with the seeds not matching their commitment
        and the deals never revealed (table streams), whether its versions are not 1..n and how many of its
        commands are not one contiguous batch (stored twice). In ``parts`` queries at once (the database's
        cores hash in parallel).

        All the parts of one stream are asked in one row, one after the other: its events are read from the
        log once and found in the shared buffers by the other parts. (Asked part by part over a batch of 500
        tables, each part read every table's events again: a table's 600 events lie on 600 pages, shared
        with the tables that played beside it, and a batch's pages do not fit in the buffers.)"""
        found = await asyncio.gather(*(reads.audit_streams(self.pool, streams[k::parts], DEAL_SEEDS,
                                                           ("commitment", "seed"))
                                       for k in range(parts) if streams[k::parts]))
        out: dict[str, dict[str, tuple]] = {kind: {} for kind in self.PARTS}
        for r in (r for part in found for r in part):
            stream, head = r.stream_id, r.head
            out["chains"][stream] = (head, r.broken)
            out["stored once"][stream] = (head, r.gap, r.split)
            out["seeds"][stream] = (head, *_seeds_counted(r.fields))     # none but in table streams
        return out

    PARTS = ("chains", "seeds", "stored once")

    async def check_finished_tables(self, tally: Tally, batch: int = 512) -> int:
        """While the workers play: every part of the per-stream checks on up to ``batch`` finished tables not
        checked yet (their streams are complete: nothing follows a game's end at an all-bot table, and one
        that grew anyway is checked again at the end); returns how many."""
        done = tally.results["chains"]
        streams = [r[0] for r in await self.pool.fetch(
            "SELECT 'table-' || table_id FROM tables_index WHERE status = 'finished'") if r[0] not in done][:batch]
        if streams:                                  # two queries at once: the workers have the cores meanwhile
            found = await self.parts_of(streams, parts=2)
            for kind, results in found.items():
                tally.results[kind].update(results)
            tally.during_play.update((s, r[0]) for s, r in found["chains"].items())
        return len(streams)

    async def _brought_up(self, tally: Tally, kind: str) -> dict:
        """The results of one part for every stream at its head: those not checked yet (or grown since) now."""
        if not tally.heads:
            tally.heads = await self.stream_heads()
        results = tally.results[kind]
        stale = [s for s, v in tally.heads.items() if results.get(s, (None,))[0] != v]
        if stale:
            for part, found in (await self.parts_of(stale)).items():
                tally.results[part].update(found)
        return {s: results[s] for s in tally.heads if s in results}

    @staticmethod
    def _during_play(tally: Tally) -> str:
        n = sum(tally.during_play.get(s) == v for s, v in tally.heads.items())   # and not grown since
        return f" ({n} of the {len(tally.heads)} streams checked while the workers played)" if n else ""

    async def check_chains(self, tally: Tally | None = None) -> Check:
        tally = tally or Tally()
        links = sorted((s, at) for s, (_, at) in (await self._brought_up(tally, "chains")).items())
        broken = [(s, at) for s, at in links if at is not None]
        detail = (f"{len(links)} streams verify{self._during_play(tally)}" if not broken else
                  f"{len(broken)} of {len(links)} streams broken, first {broken[0][0]}@{broken[0][1]}")
        return Check("hash chains", not broken and bool(links), detail)

    async def check_seeds(self, tally: Tally | None = None) -> Check:
        tally = tally or Tally()
        results = (await self._brought_up(tally, "seeds")).values()
        deals, bad, unrevealed = (sum(r[k] for r in results) for k in (1, 2, 3))
        ok = bad == 0 and unrevealed == 0 and deals > 0
        return Check("deal seeds", ok, f"{deals} finished deals, {bad} seeds not matching their commitment, "
                                       f"{unrevealed} deals never revealed{self._during_play(tally)}")

    async def check_read_models(self) -> Check:
        from services.ratings import READ_MODELS as RATINGS
        from services.workers.projections import standings_read_model

        standings = ("SELECT championship_id, version, state::text, standings::text FROM standings_rm "
                     "ORDER BY championship_id")
        ratings = "SELECT game, user_id, mu, sigma, games FROM ratings ORDER BY game, user_id"
        live = [tuple(r) for r in await self.pool.fetch(standings)]
        live_ratings = [tuple(r) for r in await self.pool.fetch(ratings)]
        # The three rebuilds at once (each reads the whole log; they write read models of their own).
        await asyncio.gather(*(rebuild_projection(self.pool, make()) for make in (standings_read_model, *RATINGS)))
        rebuilt = [tuple(r) for r in await self.pool.fetch(standings)]
        rows = await read_stream(self.pool, stream_of(self.championship_id))
        folded = fold_rows(Championship(), rows)
        cached = await self.championships.load(self.championship_id)
        same_standings = live == rebuilt and any(r[0] == self.championship_id for r in live)
        same_bracket = folded.bracket == cached.bracket
        versions = lambda rows: sorted(r[1] for r in rows if r[0] == self.championship_id)
        games = lambda rows: sum(r[4] for r in rows)
        rebuilt_ratings = [tuple(r) for r in await self.pool.fetch(ratings)]
        same_ratings = live_ratings == rebuilt_ratings and bool(live_ratings)
        return Check("read models", same_standings and same_bracket and same_ratings,
                     f"standings equal a rebuild from zero: {same_standings}; bracket equals a fold from zero: "
                     f"{same_bracket}; the {len(live_ratings)} players' ratings equal a rebuild: {same_ratings}"
                     + ("" if same_standings else f" (standings at version {versions(live)}, rebuilt at "
                                                  f"{versions(rebuilt)})")
                     + ("" if same_ratings else f" (ratings of {games(live_ratings)} player-games, rebuilt "
                                                f"{games(rebuilt_ratings)})"))

    async def check_bracket(self) -> Check:
        """The draw opened its commitment and ordered the registered field; every round's pairing is what the
        decider pairs again from the events before it; every match has its result; a champion."""
        events = [CODEC.decode(r) for r in await read_stream(self.pool, stream_of(self.championship_id))]
        problems: list[str] = []
        state = ChampionshipState()
        committed = None
        for e in events:
            if isinstance(e, DrawCommitted):
                committed = e.commitment
            elif isinstance(e, DrawMade):
                if commitment(e.seed) != committed:
                    problems.append("the draw seed does not open its commitment")
                field = [t for t in state.team_order if not state.teams[t].withdrawn]
                if list(e.order) != seeded_order(field, e.seed):
                    problems.append("the draw order is not the seeded order of the registered teams")
            elif isinstance(e, RoundPaired):
                again = [x for x in decide(state, StartRound(e.round)) if isinstance(x, RoundPaired)]
                if again != [e]:
                    problems.append(f"round {e.round} is not paired as the draw and results give")
            state = evolve(state, e)
        unplayed = sum(1 for r in state.rounds for m in r.matches if r.outcomes[m.index] is None)
        if unplayed:
            problems.append(f"{unplayed} matches without a result")
        if state.status != "finished" or state.champion is None:
            problems.append(f"no champion (status {state.status})")
        planned = expected_rounds(state.settings.format, self.n, state.settings.swiss_rounds)
        if planned and len(state.rounds) != planned:
            problems.append(f"{len(state.rounds)} rounds played, {planned} planned")
        matches = sum(1 for r in state.rounds for m in r.matches if not m.note)
        return Check("bracket", not problems, "; ".join(problems) or
                     f"{len(state.rounds)} rounds, {matches} matches, follows the draw, champion {state.champion}")

    async def check_no_game_open(self) -> Check:
        open_ = await self.pool.fetchval("SELECT count(*) FROM tables_index WHERE status <> 'finished'")
        tables = [stream_of_table(r[0]) for r in await self.pool.fetch("SELECT table_id FROM tables_index")]
        unended = len(tables) - len(await reads.streams_holding(self.pool, tables, ("game_ended",)))
        return Check("no game open", open_ == 0 and unended == 0,
                     f"{open_} tables not finished, {unended} table streams without game_ended")

    async def check_stored_once(self, tally: Tally | None = None) -> Check:
        """No event id twice (across the whole log); each stream's versions 1..n; each command's events one
        contiguous batch."""
        tally = tally or Tally()
        ids = await reads.duplicate_event_ids(self.pool)
        results = (await self._brought_up(tally, "stored once")).values()
        gaps, split = sum(r[1] for r in results), sum(r[2] for r in results)
        return Check("stored once", ids == 0 and gaps == 0 and split == 0,
                     f"{ids} duplicate event ids, {gaps} streams with gaps, {split} commands stored twice"
                     f"{self._during_play(tally)}")


# The events a table's deals are checked by: each deal's commitment, and the seed revealed for it.
DEAL_SEEDS = ("deal_started", "seed_revealed")


def _seeds_counted(deals: list[list[str | None]]) -> tuple[int, int, int]:
    """A table's finished deals, seeds not matching their commitment and deals never revealed, from its
    ``deal_started`` and ``seed_revealed`` events in order, as (event type, commitment, seed)."""
    finished = bad = 0
    pending: str | None = None
    for event_type, committed, seed in deals:
        if event_type == "deal_started":
            pending = committed
            continue
        finished += 1
        try:
            dealt_from_committed_seed(seed, pending)
        except ValueError:
            bad += 1
        pending = None
    return finished, bad, int(pending is not None)


class Tally:
    """The per-stream parts of the checks (chains, seeds, stored once) as far as they are done: by part, each
    stream's results with the version they cover; ``heads`` each stream's version at the end."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, tuple]] = {kind: {} for kind in Rehearsal.PARTS}
        self.heads: dict[str, int] = {}
        self.during_play: dict[str, int] = {}          # the streams checked while the workers played, at which head


def planned_rounds(champ: Championship) -> int:
    state = champ.state
    if state.settings is None:
        return 0
    return expected_rounds(state.settings.format, len(state.teams), state.settings.swiss_rounds)


def expected_rounds(format_: str, teams: int, swiss_rounds: int) -> int:
    """Rounds a format plays with ``teams`` teams: a knock-out ceil(log2 N), Swiss and round robin as planned
    at the draw; 0 when not known in advance (the others)."""
    from domain.tournament.formats import planned_rounds as planned
    if format_ == "single_elimination":
        return max(1, (teams - 1).bit_length())
    return planned(format_, teams, swiss_rounds)
