"""The stored subtrees of the log's Merkle tree: consistency and inclusion proofs in O(log n) reads.

Table ``log_tree`` (migrations/0009_log_tree.sql) holds the hash of every complete, aligned subtree of
2**level leaves for level >= ``RUN_LEVEL`` (8) that lies below the latest checkpoint's size; a level-8 row,
a *run* of 256 leaves, also names its last event.  Every node of an RFC 9162 proof is MTH of a range that
folds from at most 64 perfect aligned subtrees (``merkle.perfect_subtrees``): those of 256 leaves or more
are read from the table (one query), the smaller ones hashed from the events of their run (one more query;
at most two runs of 256 per proof, the one at the older size's edge and the one at the newer's).

Why from level 8 and not every level down to the leaves: all levels are two rows per event (about 1.3 GB at
6.5 M events, and the publisher writing twice as many rows as events are appended); from level 8 it is one
row per 128 events (about 51,000 rows, 6 MB, at 6.5 M) and a proof reads at most 512 events more.

Writers: ``publish_checkpoint`` (services/anchor/checkpoints.py) stores, in the checkpoint's transaction,
the subtrees its new events complete (``grow``); ``backfill`` computes them once from the events for a
database made before the table (or checkpoints an older release published), a segment per transaction.
Readers: ``consistency``, ``inclusion``, ``leaf_index``.  Like the checkpoints the rows are only added to;
``baloot verify`` recomputes them (services/anchor/verify.py), and a changed one makes proofs fail to verify.
"""

from __future__ import annotations

import asyncpg

from services.anchor.leaves import leaf_data, log_entries
from services.anchor.merkle import (
    Frontier,
    consistency_ranges,
    fold,
    inclusion_ranges,
    leaf_hash,
    perfect_subtrees,
    root,
)

Db = asyncpg.Pool | asyncpg.Connection

RUN_LEVEL = 8
RUN = 1 << RUN_LEVEL
BACKFILL_SEGMENT = 1 << 18   # leaves read per backfill transaction (about a second)

# Serialises the writers of checkpoints and subtrees (several worker processes, `baloot checkpoint`) per
# schema.  The same lock as before the subtrees were stored, so an older release's publisher waits too.
WRITER_LOCK = "SELECT pg_advisory_xact_lock(hashtext('baloot-arena/checkpoint/' || current_schema()))"

# A stored subtree: level, index, hash, and for a run (level 8) its last event (tx_id, position).
NodeRow = tuple[int, int, bytes, int | None, int | None]

_NODES = """
SELECT t.level, t.index, t.hash, t.last_tx_id, t.last_position
  FROM unnest($1::smallint[], $2::bigint[]) AS w(level, index)
  JOIN log_tree t ON t.level = w.level AND t.index = w.index"""

# The events of several runs at once: each from just after the previous run's last event, at most n.
_RUNS = """
SELECT s.k, e.stream_id, e.version, e.hash
  FROM unnest($1::xid8[], $2::bigint[], $3::int[]) WITH ORDINALITY AS s(tx, pos, n, k)
 CROSS JOIN LATERAL (
       SELECT stream_id, version, hash, tx_id, position FROM events
        WHERE (tx_id, position) > (s.tx, s.pos) ORDER BY tx_id, position LIMIT s.n) AS e
 ORDER BY s.k, e.tx_id, e.position"""

_INSERT = """
INSERT INTO log_tree (level, index, hash, last_tx_id, last_position)
SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[], $4::xid8[], $5::bigint[])
    ON CONFLICT (level, index) DO NOTHING"""  # a row already there (put back by hand) is left to `baloot verify`


class TreeNotReady(Exception):
    """The stored subtrees do not reach this size yet: a database made before them, not yet backfilled."""


async def stored_runs(db: Db) -> int:
    """How many runs of 256 leaves have their subtrees stored: they cover the first 256 * runs leaves."""
    last = await db.fetchval(f"SELECT max(index) FROM log_tree WHERE level = {RUN_LEVEL}")
    return 0 if last is None else last + 1


async def _nodes(db: Db, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], asyncpg.Record]:
    if not wanted:
        return {}
    rows = await db.fetch(_NODES, [w[0] for w in wanted], [w[1] for w in wanted])
    return {(r[0], r[1]): r for r in rows}


# --- writing ---------------------------------------------------------------------------------------------


async def grow(db: Db, frontier: Frontier, after: tuple[int, int], limit: int | None,
               nodes: list[NodeRow]) -> tuple[int, int]:
    """Append to ``frontier`` the events after ``after`` (at most ``limit``, below the read horizon), adding
    to ``nodes`` the stored subtrees they complete; returns the last event read, or ``after``."""
    run_mask = RUN - 1
    async for rows in log_entries(db, after, limit):
        for r in rows:
            leaf = leaf_hash(leaf_data(r[0], r[1], r[2]))
            if (frontier.size + 1) & run_mask:
                frontier.append(leaf)
                continue
            for level, index, node in frontier.append_subtrees(leaf, RUN_LEVEL):
                last = (int(r[3]), r[4]) if level == RUN_LEVEL else (None, None)
                nodes.append((level, index, node, *last))
        after = (int(rows[-1][3]), rows[-1][4])
    return after


async def store(db: Db, nodes: list[NodeRow]) -> None:
    """Insert subtree rows (as ``grow`` collects them)."""
    for i in range(0, len(nodes), 20_000):
        batch = nodes[i:i + 20_000]
        await db.execute(_INSERT, *([row[j] for row in batch] for j in range(5)))


async def _frontier_at(db: Db, runs: int) -> tuple[Frontier, tuple[int, int]]:
    """The frontier of the first 256 * runs leaves, from stored subtrees, and the last event they cover."""
    size = runs << RUN_LEVEL
    pieces = perfect_subtrees(0, size) if size else []
    wanted = pieces + ([(RUN_LEVEL, runs - 1)] if runs else [])
    got = await _nodes(db, wanted)
    if any(w not in got for w in wanted):
        raise TreeNotReady(f"the stored subtrees of the first {size} leaves are incomplete")
    after = (int(got[wanted[-1]][3]), got[wanted[-1]][4]) if runs else (0, 0)
    return Frontier(size, [got[p][2] for p in pieces]), after


async def catch_up(db: Db, target_runs: int, max_runs: int | None = None) -> tuple[int, list[NodeRow]]:
    """The subtree rows of the runs from the stored ones up to ``target_runs`` (at most ``max_runs`` of
    them), computed from the events: how many runs, and the rows (to ``store`` in the same transaction).

    Raises ValueError when the log holds fewer events than those runs: events under a checkpoint were deleted.
    """
    runs = await stored_runs(db)
    if runs >= target_runs:
        return 0, []
    upto = target_runs if max_runs is None else min(target_runs, runs + max_runs)
    frontier, after = await _frontier_at(db, runs)
    nodes: list[NodeRow] = []
    await grow(db, frontier, after, (upto - runs) << RUN_LEVEL, nodes)
    if frontier.size < upto << RUN_LEVEL:
        raise ValueError(f"the log holds {frontier.size} final events where its checkpoints signed at least "
                         f"{upto << RUN_LEVEL}: events were deleted (run `baloot verify`)")
    return upto - runs, nodes


async def backfill(db: Db, *, segment: int = BACKFILL_SEGMENT) -> int:
    """Store the subtrees below the latest checkpoint that are not stored yet, ``segment`` leaves per
    transaction (resumable); returns how many leaves were read: 0 once done, as on every call but the first
    after an upgrade.  Only the short insert at the end of each segment takes a transaction id, so the read
    horizon is not held back while the events are read."""
    if isinstance(db, asyncpg.Pool):
        async with db.acquire() as conn:
            return await backfill(conn, segment=segment)
    read = 0
    while True:
        async with db.transaction():
            await db.execute(WRITER_LOCK)
            largest = await db.fetchval("SELECT coalesce(max(tree_size), 0) FROM checkpoints")
            runs, nodes = await catch_up(db, largest >> RUN_LEVEL, max(segment >> RUN_LEVEL, 1))
            await store(db, nodes)
        if not runs:
            return read
        read += runs << RUN_LEVEL


# --- reading ---------------------------------------------------------------------------------------------


async def subtree_roots(db: Db, ranges: list[tuple[int, int]], size: int) -> list[bytes]:
    """MTH(D[lo:hi]) for each range of a proof in the tree of the first ``size`` leaves (``size`` at most the
    latest checkpoint's): from stored subtrees, and the events of the runs that hold the smaller pieces.

    Raises TreeNotReady when a stored subtree is missing, ValueError when events are.
    """
    plan = [perfect_subtrees(lo, hi) for lo, hi in ranges]
    pieces = {p for subtrees in plan for p in subtrees}
    runs = sorted({(index << level) >> RUN_LEVEL for level, index in pieces if level < RUN_LEVEL})
    wanted = sorted({p for p in pieces if p[0] >= RUN_LEVEL} | {(RUN_LEVEL, r - 1) for r in runs if r})
    got = await _nodes(db, wanted)
    missing = [w for w in wanted if w not in got]
    if missing:
        level, index = missing[0]
        raise TreeNotReady(f"the subtree of leaves {index << level}..{((index + 1) << level) - 1} is not stored "
                           "yet (the checkpoint publisher stores the subtrees of a database made before them)")
    leaves: dict[int, list[bytes]] = {r: [] for r in runs}
    if runs:
        starts = [(int(got[(RUN_LEVEL, r - 1)][3]), got[(RUN_LEVEL, r - 1)][4]) if r else (0, 0) for r in runs]
        counts = [min(RUN, size - (r << RUN_LEVEL)) for r in runs]
        for k, stream, version, hash in await db.fetch(_RUNS, [s[0] for s in starts], [s[1] for s in starts],
                                                      counts):
            leaves[runs[k - 1]].append(leaf_hash(leaf_data(stream, version, hash)))
        for r, count in zip(runs, counts):
            if len(leaves[r]) < count:
                raise ValueError(f"the log holds fewer than the {size} events of this tree: events were deleted")

    def piece(level: int, index: int) -> bytes:
        if level >= RUN_LEVEL:
            return got[(level, index)][2]
        lo = index << level
        run = lo >> RUN_LEVEL
        start = lo - (run << RUN_LEVEL)
        return root(leaves[run][start:start + (1 << level)])

    return [fold([piece(*p) for p in subtrees]) for subtrees in plan]


async def consistency(db: Db, m: int, n: int) -> list[bytes]:
    """PROOF(m, D[n]) from the stored subtrees (n at most the latest checkpoint's size)."""
    return await subtree_roots(db, consistency_ranges(m, n), n)


async def inclusion(db: Db, index: int, size: int) -> tuple[bytes, list[bytes]]:
    """The leaf hash at ``index`` and PATH(index, D[size]) from the stored subtrees."""
    *path, leaf = await subtree_roots(db, inclusion_ranges(index, size) + [(index, index + 1)], size)
    return leaf, path


async def leaf_index(db: Db, stream: str, version: int, hash: bytes, size: int) -> int | None:
    """The index in the tree of ``size`` leaves of the event (stream, version) if it holds this chain hash;
    None if there is no such event, it holds another hash, or it is not among the first ``size`` events."""
    event = await db.fetchrow("SELECT tx_id, position, hash FROM events WHERE stream_id = $1 AND version = $2",
                              stream, version)
    if event is None or event[2] != hash:
        return None
    key = (int(event[0]), event[1])
    if await stored_runs(db) < size >> RUN_LEVEL:
        raise TreeNotReady(f"the subtrees of the tree of {size} leaves are not all stored yet")
    run = await db.fetchval(
        f"""SELECT index FROM log_tree WHERE level = {RUN_LEVEL}
              AND (last_tx_id, last_position) >= ($1::xid8, $2::bigint)
            ORDER BY last_tx_id, last_position LIMIT 1""", *key)
    if run is None:  # after every stored run: in the part of the tree the runs do not cover yet
        run = await stored_runs(db)
    start = (0, 0)
    if run:
        start_row = (await _nodes(db, [(RUN_LEVEL, run - 1)])).get((RUN_LEVEL, run - 1))
        if start_row is None:
            raise TreeNotReady(f"run {run - 1} of the log's tree is not stored")
        start = (int(start_row[3]), start_row[4])
    offset = await db.fetchval(
        f"""SELECT count(*) FROM (SELECT 1 FROM events
              WHERE (tx_id, position) > ($1::xid8, $2::bigint) AND (tx_id, position) <= ($3::xid8, $4::bigint)
              LIMIT {RUN + 1}) AS before""", *start, *key)
    index = (run << RUN_LEVEL) + offset - 1
    if offset > RUN or index >= size:
        return None
    return index
