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
from services.db import create_scratch_schema, drop_schema, schema_url
from services.eventstore import read_stream, rebuild_projection
from services.platform import Platform

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

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


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
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            await asyncio.to_thread(self.proc.wait, 30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass
        self.log.unlink(missing_ok=True)


class InProcessWorkers:
    """The actors, schedules and projection runner on the in-process broker, a dramatiq worker here."""

    def __init__(self, database_url: str, secret: str, threads: int, reconcile_seconds: float):
        from dramatiq import Worker

        from services.workers.entry import build
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
        await asyncio.to_thread(get_event_loop_thread().run_coroutine, runtime.close())
        await asyncio.to_thread(self.worker.stop)


# ------------------------------------------------------------------ the rehearsal


class Rehearsal:
    """One rehearsal in its own scratch schema of the server at ``server_url``."""

    def __init__(self, server_url: str, teams: int, *, format: str = "single_elimination", seed: str = "1",
                 bots: str = "normal", broker_url: str | None = None, processes: int = 1, threads: int = 4,
                 reconcile_seconds: float = 30.0, game_target: int = 152, keep: bool = False,
                 schema: str | None = None):
        if teams < 2:
            raise ValueError("a championship needs at least two teams")
        self.server_url, self.n, self.format, self.seed, self.bots = server_url, teams, format, seed, bots
        self.broker_url, self.processes, self.threads = broker_url, processes, threads
        self.reconcile_seconds, self.game_target, self.keep = reconcile_seconds, game_target, keep
        self.secret = f"baloot-rehearsal/{seed}"
        self.schema = schema              # given: a migrated schema of the caller's, kept afterwards
        self.own_schema = schema is None
        self.pool: asyncpg.Pool | None = None

    async def __aenter__(self) -> Rehearsal:
        if self.own_schema:
            self.schema = await create_scratch_schema(self.server_url, "rehearsal")
        self.url = schema_url(self.server_url, self.schema)
        self.pool = await asyncpg.create_pool(self.url, min_size=1, max_size=4)
        platform = Platform(self.pool, self.secret.encode())    # no workers attached: this process only watches
        self.tables, self.championships = platform.tables, platform.championships
        return self

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
        await self.championships.execute(CHAMPIONSHIP, "create", lambda _: [CreateChampionship(CHAMPIONSHIP, settings)],
                                          actor=ORGANISER, new=True, metadata={"run": msgspec.to_builtins(run)})
        for start in range(1, self.n + 1, 512):            # registrations in batches: one append each
            ks = range(start, min(start + 512, self.n + 1))
            await self.championships.execute(
                CHAMPIONSHIP, f"register/{start}", lambda _, ks=ks: [
                    RegisterTeam(f"team-{k:05d}", (f"bot-{k:05d}-1", f"bot-{k:05d}-2")) for k in ks],
                actor=ORGANISER)

    def start_workers(self):
        if self.broker_url:
            return ProcessWorkers(self.url, self.broker_url, self.secret, self.processes, self.threads,
                                  self.reconcile_seconds)
        return InProcessWorkers(self.url, self.secret, self.threads, self.reconcile_seconds)

    async def progress(self, started: float) -> Progress:
        champ = await self.championships.load(CHAMPIONSHIP)
        state = champ.state
        events = await self.pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
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
        events_before = await self.pool.fetchval("SELECT coalesce(max(position), 0) FROM events")
        workers = self.start_workers()
        started = time.monotonic()
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
            await workers.close()
        t = time.monotonic()
        checks = await self.checks()
        checks_seconds = time.monotonic() - t
        champ = await self.championships.load(CHAMPIONSHIP)
        events = await self.pool.fetchval("SELECT count(*) FROM events")
        stored = await self.pool.fetchval("SELECT coalesce(max(position), 0) FROM events") - events_before
        actions = await self.pool.fetchval(
            "SELECT count(DISTINCT (stream_id, metadata->>'command_id')) FROM events "
            "WHERE metadata->>'command_id' LIKE 'bot:%'")
        games = await self.pool.fetchval("SELECT count(*) FROM tables_index")
        return Report(self.n, self.format, self.seed, self.bots, workers.where, champ.state.champion, wall,
                      checks_seconds, len(champ.state.rounds), games, events, stored / wall, actions,
                      actions / wall, checks)

    async def read_models_caught_up(self, timeout: float = 120.0) -> None:
        """Wait (bounded) until the workers' projection runners have folded the championship's last event:
        the standings (its row's version) and the ratings (their checkpoint's position)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            champ = await self.championships.load(CHAMPIONSHIP)
            version = await self.pool.fetchval("SELECT version FROM standings_rm WHERE championship_id = $1",
                                               CHAMPIONSHIP)
            last = await self.pool.fetchval("SELECT max(position) FROM events WHERE stream_id = $1",
                                            stream_of(CHAMPIONSHIP))
            rated = await self.pool.fetchval("SELECT position FROM projections WHERE name = 'ratings_rm'")
            if version == champ.version and rated is not None and rated >= last:
                return
            await asyncio.sleep(0.2)            # the runner is another task or process: look again shortly

    # ------------------------------------------------------------ checks

    async def checks(self) -> list[Check]:
        """Every end-state check, each on what is stored (the workers stopped)."""
        out = []
        for check in (self.check_chains, self.check_seeds, self.check_read_models, self.check_bracket,
                      self.check_no_game_open, self.check_stored_once):
            t = time.monotonic()
            c = await check()
            out.append(msgspec.structs.replace(c, seconds=round(time.monotonic() - t, 2)))
        return out

    async def check_chains(self) -> Check:
        streams = [r[0] for r in await self.pool.fetch("SELECT DISTINCT stream_id FROM events ORDER BY 1")]
        # In four parts at once: the database's cores hash in parallel.
        found = await asyncio.gather(*(self.pool.fetch(
            "SELECT s AS stream_id, verify_stream(s) AS at FROM unnest($1::text[]) s", streams[k::4])
            for k in range(4)))
        links = sorted((r for part in found for r in part), key=lambda r: r["stream_id"])
        broken = [r for r in links if r["at"] is not None]
        detail = (f"{len(links)} streams verify" if not broken else
                  f"{len(broken)} of {len(links)} streams broken, first {broken[0]['stream_id']}@{broken[0]['at']}")
        return Check("hash chains", not broken and bool(links), detail)

    async def check_seeds(self) -> Check:
        rows = await self.pool.fetch(
            "SELECT stream_id, event_type, data->>'commitment' AS commitment, data->>'seed' AS seed FROM events "
            "WHERE event_type IN ('deal_started', 'seed_revealed') AND stream_id LIKE 'table-%' "
            "ORDER BY stream_id, version")
        deals = bad = 0
        pending: dict[str, str | None] = {}
        for r in rows:
            if r["event_type"] == "deal_started":
                pending[r["stream_id"]] = r["commitment"]
                continue
            deals += 1
            try:
                dealt_from_committed_seed(r["seed"], pending.pop(r["stream_id"], None))
            except ValueError:
                bad += 1
        unrevealed = sum(1 for v in pending.values() if v is not None)
        ok = bad == 0 and unrevealed == 0 and deals > 0
        return Check("deal seeds", ok, f"{deals} finished deals, {bad} seeds not matching their commitment, "
                                       f"{unrevealed} deals never revealed")

    async def check_read_models(self) -> Check:
        from services.ratings import READ_MODELS as RATINGS
        from services.workers.projections import standings_read_model

        live = await self.pool.fetch("SELECT championship_id, version, state::text, standings::text "
                                     "FROM standings_rm ORDER BY championship_id")
        await rebuild_projection(self.pool, standings_read_model())
        rebuilt = await self.pool.fetch("SELECT championship_id, version, state::text, standings::text "
                                        "FROM standings_rm ORDER BY championship_id")
        rows = await read_stream(self.pool, stream_of(CHAMPIONSHIP))
        folded = fold_rows(Championship(), rows)
        cached = await self.championships.load(CHAMPIONSHIP)
        same_standings = [tuple(r) for r in live] == [tuple(r) for r in rebuilt] and len(live) == 1
        same_bracket = folded.bracket == cached.bracket
        ratings = "SELECT game, user_id, mu, sigma, games FROM ratings ORDER BY game, user_id"
        live_ratings = [tuple(r) for r in await self.pool.fetch(ratings)]
        for make in RATINGS:
            await rebuild_projection(self.pool, make())
        same_ratings = live_ratings == [tuple(r) for r in await self.pool.fetch(ratings)] and bool(live_ratings)
        return Check("read models", same_standings and same_bracket and same_ratings,
                     f"standings equal a rebuild from zero: {same_standings}; bracket equals a fold from zero: "
                     f"{same_bracket}; the {len(live_ratings)} players' ratings equal a rebuild: {same_ratings}")

    async def check_bracket(self) -> Check:
        """The draw opened its commitment and ordered the registered field; every round's pairing is what the
        decider pairs again from the events before it; every match has its result; a champion."""
        events = [CODEC.decode(r) for r in await read_stream(self.pool, stream_of(CHAMPIONSHIP))]
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
        unended = await self.pool.fetchval(
            "SELECT count(*) FROM tables_index t WHERE NOT EXISTS (SELECT 1 FROM events e WHERE "
            "e.stream_id = 'table-' || t.table_id AND e.event_type = 'game_ended')")
        return Check("no game open", open_ == 0 and unended == 0,
                     f"{open_} tables not finished, {unended} table streams without game_ended")

    async def check_stored_once(self) -> Check:
        """No event id twice; each stream's versions 1..n; each command's events one contiguous batch."""
        ids = await self.pool.fetchval("SELECT count(*) - count(DISTINCT event_id) FROM events")
        gaps = await self.pool.fetchval(
            "SELECT count(*) FROM (SELECT stream_id FROM events GROUP BY stream_id "
            "HAVING max(version) <> count(*) OR min(version) <> 1) s")
        split = await self.pool.fetchval(
            "SELECT count(*) FROM (SELECT 1 FROM events WHERE metadata ? 'command_id' "
            "GROUP BY stream_id, metadata->>'actor', metadata->>'command_id' "
            "HAVING max(version) - min(version) + 1 <> count(*)) s")
        return Check("stored once", ids == 0 and gaps == 0 and split == 0,
                     f"{ids} duplicate event ids, {gaps} streams with gaps, {split} commands stored twice")


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
