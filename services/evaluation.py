"""The evaluation bar: the expected end of a deal as it is played, for those who watch it
(domain/baloot/evaluation.py), computed by the workers for the deals someone is watching, and read by the API.

**What a watcher gets** is decided by the policy (``policy.evaluation``): spectators of a deal in play its
*public* evaluation (from the cards played and the bidding alone: what anyone watching may know), or, at a
table that shows every hand to spectators, its *open* one (the true hands, solved exactly), both behind the
table's delay; a finished deal's curve on the true hands to whoever may read its hand record (its players,
its officials, spectators where the table shows hands); a seated player nothing while his deal is in play
(an engine's opinion of his own position is help).

**Where it runs.** Asking for a deal's evaluation marks it watched (``evaluation_watch``, for ``WATCH``
seconds: the pages ask every few seconds while open); the evaluator, a resident loop in the worker processes
(services/workers/resident.py), evaluates only watched deals, each position once, in a process of its own
(never on an event loop), and rests between batches so that it takes at most ``BALOOT_EVALUATION_SHARE`` of
one core (default 0.5; ``BALOOT_EVALUATION_PROCESSES=0`` turns it off). ``bench/evaluation.py`` measures what
a position and a deal cost, and how many live tables a core follows.

**Hidden cards stay hidden in the database too.** An open evaluation of a deal still in play says what the
hands hold (a buyer's chance of 0 or 1), so it is stored sealed (AES-GCM, a key derived from the server
secret, which never sits beside the log): a reader of the database learns nothing from it before the deal's
seed is out. Public evaluations and those of finished deals are stored in the clear.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time

import asyncpg
import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from domain.baloot.deal import INITIAL, evolve
from domain.baloot.evaluation import Evaluation, evaluate, moves as positions, turning_point
from services.errors import NotFound
from services.fairplay.analyser import spawn_context
from services.tables.service import deal_finished, deal_rows, deal_spans

WATCH = 60.0                 # seconds a request keeps a deal watched
SAMPLES = 16                 # deals of the hidden cards a public evaluation averages over
SHARE_ENV = "BALOOT_EVALUATION_SHARE"
PROCESSES_ENV = "BALOOT_EVALUATION_PROCESSES"
SEED_ENV = "BALOOT_EVALUATION_SEED"
SAMPLES_ENV = "BALOOT_EVALUATION_SAMPLES"


class Point(msgspec.Struct, frozen=True):
    version: int                 # after the event of this stream version
    index: int                   # that event's place in the deal (0: deal_started)
    value: Evaluation


class DealEvaluation(msgspec.Struct, frozen=True):
    table_id: str
    deal_no: int
    basis: str                   # "open" (the true hands) or "public" (what anyone watching may know)
    finished: bool
    points: list[Point]          # the positions evaluated so far, as far as the caller may see
    positions: int               # how many positions of the deal he may see (points < positions: still working)
    turning: int | None          # the version after which the deal turned (the largest move), once finished


# ---------------------------------------------------------------- sealing

class Sealer:
    """Seals the open evaluations of deals in play with a key derived from the server secret."""

    def __init__(self, seeds):
        self.aead = AESGCM(bytes.fromhex(seeds.derive("evaluations/seal", 64)))

    def seal(self, data: bytes, aad: bytes) -> bytes:
        nonce = os.urandom(12)
        return nonce + self.aead.encrypt(nonce, data, aad)

    def open(self, data: bytes, aad: bytes) -> bytes:
        return self.aead.decrypt(data[:12], data[12:], aad)


def _aad(table_id: str, deal_no: int, version: int) -> bytes:
    return f"{table_id}/{deal_no}/{version}".encode()


# ---------------------------------------------------------------- the positions of a deal

def evaluate_positions(events, indices: list[int], basis: str, seed: int, samples: int) -> list[tuple[int, bytes]]:
    """The evaluation after each of ``indices`` (ascending) of a deal's events, as JSON; runs in the
    evaluator's process. One solver cache for the whole deal: its later positions reuse the earlier searches."""
    out, state, want, solvers = [], INITIAL, set(indices), {}
    last = max(indices) if indices else -1
    for i, e in enumerate(events):
        if i > last:
            break
        state = evolve(state, e)
        if i in want:
            value = evaluate(state, hands_open=basis == "open", seed=seed, samples=samples, solvers=solvers)
            if value is not None:
                out.append((i, msgspec.json.encode(value)))
    return out


# ---------------------------------------------------------------- reading (the API)

async def deal_evaluation(pool, tables, access, viewer, table_id: str, deal_no: int) -> DealEvaluation:
    """Deal ``deal_no``'s evaluation as ``viewer`` may see it (``policy.evaluation``); marks it watched."""
    table = await tables.load(table_id)
    seen: dict = {}

    async def over(visible: int) -> bool:
        rows = await tables.events(table_id, visible)
        spans = deal_spans(rows)
        if not 1 <= deal_no <= len(spans):
            raise NotFound("unknown_deal", f"{len(spans)} deal(s) of this table can be seen; there is no deal "
                                           f"{deal_no} to evaluate")
        seen["events"] = events = spans[deal_no - 1][2]
        seen["versions"] = [v for v, _, _ in deal_rows(rows, events)]
        seen["finished"] = deal_finished(events)
        return seen["finished"]

    basis, visible = await access.evaluation(viewer, table, over)
    events, versions, finished = seen["events"], seen["versions"], seen["finished"]
    wanted = positions(events)
    await pool.execute(
        "INSERT INTO evaluation_watch (table_id, deal_no, basis, until) VALUES ($1, $2, $3, now() + "
        "make_interval(secs => $4)) ON CONFLICT (table_id, deal_no, basis) DO UPDATE SET until = excluded.until",
        table_id, deal_no, basis, WATCH)
    stored = await pool.fetch("SELECT version, value, sealed FROM evaluations WHERE table_id = $1 AND deal_no = $2 "
                              "AND basis = $3 AND version <= $4 ORDER BY version", table_id, deal_no, basis, visible)
    sealer = Sealer(tables.seeds)
    at = {versions[i]: i for i in wanted}
    points = []
    for r in stored:
        if r["version"] in at:
            data = sealer.open(r["value"], _aad(table_id, deal_no, r["version"])) if r["sealed"] else r["value"]
            points.append(Point(r["version"], at[r["version"]], msgspec.json.decode(data, type=Evaluation)))
    turn = turning_point([(p.version, p.value) for p in points]) if finished and len(points) == len(wanted) else None
    return DealEvaluation(table_id, deal_no, basis, finished, points, len(wanted), turn)


# ---------------------------------------------------------------- computing (the workers)

class Evaluator:
    """Evaluates the watched deals' positions not evaluated yet, at most ``share`` of one core."""

    def __init__(self, pool: asyncpg.Pool, tables, *, share: float | None = None, samples: int | None = None,
                 seed: int | None = None, poll: float = 1.0):
        self.pool, self.tables, self.poll = pool, tables, poll
        self.samples = int(os.environ.get(SAMPLES_ENV, str(SAMPLES))) if samples is None else samples
        self.share = float(os.environ.get(SHARE_ENV, "0.5")) if share is None else share
        if not 0 < self.share <= 1:
            raise ValueError(f"{SHARE_ENV}: a share of one core, above 0 and at most 1, not {self.share}")
        self.seed = int(os.environ.get(SEED_ENV, "0")) if seed is None else seed
        self.sealer = Sealer(tables.seeds)
        self.executor = concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn_context())

    async def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def run_once(self) -> int:
        """Evaluate what is missing of every watched deal; how many positions were stored."""
        watched = await self.pool.fetch("SELECT table_id, deal_no, basis FROM evaluation_watch WHERE until > now() "
                                        "ORDER BY until DESC")
        await self.pool.execute("DELETE FROM evaluation_watch WHERE until < now() - interval '1 hour'")
        done = 0
        for w in watched:
            # One evaluator at a time per deal (every worker process of the projections runs one): the others
            # go on to the next watched deal.
            async with self.pool.acquire() as conn:
                key = f"evaluation/{w['table_id']}/{w['deal_no']}/{w['basis']}"
                if not await conn.fetchval("SELECT pg_try_advisory_lock(hashtext($1))", key):
                    continue
                try:
                    done += await self._deal(w["table_id"], w["deal_no"], w["basis"])
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(hashtext($1))", key)
        return done

    async def _deal(self, table_id: str, deal_no: int, basis: str) -> int:
        rows = await self.tables.events(table_id)
        spans = deal_spans(rows)
        if not 1 <= deal_no <= len(spans):
            return 0
        events = spans[deal_no - 1][2]
        versions = [v for v, _, _ in deal_rows(rows, events)]
        have = {r["version"] for r in await self.pool.fetch(
            "SELECT version FROM evaluations WHERE table_id = $1 AND deal_no = $2 AND basis = $3",
            table_id, deal_no, basis)}
        missing = [i for i in positions(events) if versions[i] not in have]
        if not missing:
            return 0
        started = time.monotonic()
        values = await asyncio.get_running_loop().run_in_executor(
            self.executor, evaluate_positions, events, missing, basis, self.seed, self.samples)
        spent = time.monotonic() - started
        seal = basis == "open" and not deal_finished(events)
        stored = []
        for i, data in values:
            v = versions[i]
            stored.append((table_id, deal_no, v, basis,
                           self.sealer.seal(data, _aad(table_id, deal_no, v)) if seal else data, seal))
        await self.pool.executemany(
            "INSERT INTO evaluations (table_id, deal_no, version, basis, value, sealed) VALUES ($1, $2, $3, $4, $5, "
            "$6) ON CONFLICT DO NOTHING", stored)
        # At most ``share`` of a core: rest as long again as the share leaves.
        await asyncio.sleep(spent * (1 - self.share) / self.share)
        return len(stored)

    async def run(self) -> None:
        while True:
            if not await self.run_once():
                await asyncio.sleep(self.poll)
