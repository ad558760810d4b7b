"""Checkpoints: a signed Merkle root over the first N events of the log, published at a fixed interval.

The leaves are the log's events in read order ``(tx_id, position)``, one per event, taken only below the
read horizon (see services/eventstore/store.py), where that order is final.  Leaf data is the compact
JSON array ``[stream_id, version, hash]`` (hash in lower-case hex), hashed as an RFC 9162 leaf.
Signed bytes: ``b"baloot-checkpoint/1\\n"`` followed by the compact JSON array
``[size, root, created_at]`` (root in hex, created_at as ``YYYY-MM-DDTHH:MM:SS.mmmZ``).

Each checkpoint stores its frontier (the roots of its perfect subtrees), so the next one hashes only
the events since.  In the same transaction the publisher stores the hashes of the subtrees of 256 leaves and
more that the new events complete (services/anchor/tree.py), from which consistency and inclusion proofs
are computed in O(log n) reads; on a database made before those were stored, it first computes them once
from the events (``tree.backfill``).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import asyncpg
import msgspec

from services.anchor import tree
from services.anchor.keys import Signer, verify_signature
from services.anchor.leaves import PAGE, leaf_data, log_entries, log_leaves  # noqa: F401 (re-exported)
from services.anchor.merkle import Frontier, consistency_proof
from services.anchor.receipts import decode_list

Db = asyncpg.Pool | asyncpg.Connection

CHECKPOINT_DOMAIN = b"baloot-checkpoint/1\n"
PAGE_LIMIT = 100        # checkpoints per page of `checkpoints_page`, unless asked otherwise
MAX_PAGE_LIMIT = 1000

# Serialises publishers (several worker processes, `baloot checkpoint`) per schema: two checkpoints
# extending the same predecessor would both claim its next sequence number.
_LOCK = tree.WRITER_LOCK

_COLUMNS = "seq, tree_size, root, last_tx_id, last_position, frontier, created_at, key_id, signature"


class SignedCheckpoint(msgspec.Struct, frozen=True, kw_only=True):
    """The signed root of the tree over the first `size` events; `last_*` is the last event included."""

    seq: int
    size: int
    root: str
    created_at: dt.datetime
    key_id: str
    signature: str
    last_tx_id: int = 0
    last_position: int = 0
    frontier: list[str] = []


def timestamp_text(moment: dt.datetime) -> str:
    """A time as signed: UTC, milliseconds, `Z`."""
    moment = moment.astimezone(dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def checkpoint_message(size: int, root_hex: str, created_at: dt.datetime) -> bytes:
    """The bytes a checkpoint's signature covers."""
    return CHECKPOINT_DOMAIN + msgspec.json.encode([size, root_hex, timestamp_text(created_at)])


def verify_checkpoint(public_key_hex: str, checkpoint: SignedCheckpoint) -> bool:
    """Whether the checkpoint's signature is valid under this public key."""
    try:
        signature = bytes.fromhex(checkpoint.signature)
    except ValueError:
        return False
    return verify_signature(public_key_hex, checkpoint_message(checkpoint.size, checkpoint.root,
                                                               checkpoint.created_at), signature)


def _row_to_checkpoint(r: asyncpg.Record) -> SignedCheckpoint:
    return SignedCheckpoint(seq=r[0], size=r[1], root=r[2].hex(), last_tx_id=int(r[3]), last_position=r[4],
                            frontier=[h.hex() for h in r[5]], created_at=r[6], key_id=r[7],
                            signature=r[8].hex())


async def publish_checkpoint(db: Db, signer: Signer) -> SignedCheckpoint | None:
    """Sign and store a checkpoint over every final event, extending the last one; None if nothing is new.

    The subtrees the new events complete are stored in the same transaction; those below the last checkpoint
    that are not stored yet (a database made before them) are first computed from the events, a segment per
    transaction (``tree.backfill``): a long first run after an upgrade, nothing afterwards.
    """
    if isinstance(db, asyncpg.Pool):
        async with db.acquire() as conn:
            return await publish_checkpoint(conn, signer)
    await tree.backfill(db)
    async with db.transaction():
        await db.execute(_LOCK)
        last = await db.fetchrow(f"SELECT {_COLUMNS} FROM checkpoints ORDER BY seq DESC LIMIT 1")
        if last is None:
            seq, frontier, after = 1, Frontier(), (0, 0)
        else:
            seq, frontier, after = last[0] + 1, Frontier(last[1], last[5]), (last[3], last[4])
        # Subtrees of checkpoints published since the backfill without them (by an older release), then
        # those the new events complete.  Reading takes no transaction id, and the writes come last, so this
        # transaction holds the read horizon back only while it inserts.
        _, nodes = await tree.catch_up(db, frontier.size >> tree.RUN_LEVEL)
        after = await tree.grow(db, frontier, after, None, nodes)
        if frontier.size == (last[1] if last is not None else 0):
            await tree.store(db, nodes)
            return None
        root_hex = frontier.root().hex()
        now = dt.datetime.now(dt.timezone.utc)
        created_at = now.replace(microsecond=now.microsecond // 1000 * 1000)  # as signed: milliseconds
        signature = signer.sign(checkpoint_message(frontier.size, root_hex, created_at))
        await tree.store(db, nodes)
        row = await db.fetchrow(
            f"""INSERT INTO checkpoints ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                RETURNING {_COLUMNS}""",
            seq, frontier.size, bytes.fromhex(root_hex), after[0], after[1], frontier.hashes, created_at,
            signer.key_id, signature)
    return _row_to_checkpoint(row)


async def checkpoints(db: Db) -> list[SignedCheckpoint]:
    """The stored checkpoints, oldest first (all of them: for `baloot checkpoints --export` and `verify`)."""
    return [_row_to_checkpoint(r) for r in await db.fetch(f"SELECT {_COLUMNS} FROM checkpoints ORDER BY seq")]


async def checkpoints_page(db: Db, after: int = 0, limit: int = PAGE_LIMIT
                           ) -> tuple[list[SignedCheckpoint], int | None]:
    """The checkpoints numbered above ``after``, oldest first, at most ``limit`` (1..1000) of them, and the
    cursor for the next page (the last one's number) when there are more, else None."""
    if not 1 <= limit <= MAX_PAGE_LIMIT:
        raise ValueError(f"a page holds 1 to {MAX_PAGE_LIMIT} checkpoints, not {limit}")
    if after >= 2**63 - 1:
        # No checkpoint is numbered beyond a bigint (``seq``); the driver would refuse such a cursor outright.
        return [], None
    rows = await db.fetch(f"SELECT {_COLUMNS} FROM checkpoints WHERE seq > $1 ORDER BY seq LIMIT $2",
                          after, limit + 1)
    page = [_row_to_checkpoint(r) for r in rows[:limit]]
    return page, (page[-1].seq if len(rows) > limit else None)


async def latest(db: Db) -> SignedCheckpoint | None:
    """The latest signed checkpoint, or None."""
    row = await db.fetchrow(f"SELECT {_COLUMNS} FROM checkpoints ORDER BY seq DESC LIMIT 1")
    return _row_to_checkpoint(row) if row is not None else None


async def largest_size(db: Db) -> int:
    """The size of the latest checkpoint (0 when there is none): proofs are of trees up to it."""
    return await db.fetchval("SELECT coalesce(max(tree_size), 0) FROM checkpoints")


async def consistency(db: Db, m: int, n: int) -> list[bytes]:
    """RFC 9162 consistency proof that the tree of the first m events is a prefix of that of the first n.

    From the stored subtrees (``tree.consistency``): O(log n) rows and at most 512 events read.  It verifies
    against two signed roots only if the log (and the stored subtrees) were not changed.  Raises ValueError
    when m > n or n is beyond the latest checkpoint, ``tree.TreeNotReady`` before the backfill.
    """
    if not 0 <= m <= n:
        raise ValueError(f"no consistency proof from size {m} to size {n}: sizes must grow")
    largest = await largest_size(db)
    if n > largest:
        raise ValueError(f"no checkpoint covers {n} events (the latest covers {largest})")
    return await tree.consistency(db, m, n)


async def inclusion(db: Db, index: int, size: int) -> tuple[bytes, list[bytes]]:
    """RFC 9162 inclusion proof of leaf ``index`` (0-based, read order) in the tree of the first ``size``
    events: the leaf hash and the audit path, from the stored subtrees.  Raises like ``consistency``."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    largest = await largest_size(db)
    if size > largest:
        raise ValueError(f"no checkpoint covers {size} events (the latest covers {largest})")
    return await tree.inclusion(db, index, size)


async def consistency_from_events(db: Db, m: int, n: int) -> list[bytes]:
    """The same proof computed from every one of the first n events (what the API did before the subtrees
    were stored): the reference in the tests and the bench, and what `baloot verify` relies on."""
    if not 0 <= m <= n:
        raise ValueError(f"no consistency proof from size {m} to size {n}: sizes must grow")
    leaves = await log_leaves(db, n)
    if len(leaves) < n:
        raise ValueError(f"the log has {len(leaves)} final events, fewer than {n}")
    return consistency_proof(m, leaves)


def load_checkpoints(path: str | Path) -> list[SignedCheckpoint]:
    """Checkpoints saved in a file (a JSON array, as `baloot checkpoints --export` writes). Raises ValueError."""
    try:
        return decode_list(Path(path).read_bytes(), SignedCheckpoint)
    except (OSError, msgspec.DecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None


class CheckpointPublisher:
    """Publishes a checkpoint at most every `every` seconds (default $BALOOT_CHECKPOINT_SECONDS or 60).

    The workers' reconciler calls `tick` on each of its rounds; the signer is loaded on the first
    publication, so a process that never publishes never reads the key.
    """

    def __init__(self, every: float | None = None, signer: Signer | None = None) -> None:
        self.every = every if every is not None else float(os.environ.get("BALOOT_CHECKPOINT_SECONDS", "60"))
        self.signer = signer
        self._next = 0.0

    async def tick(self, db: Db) -> SignedCheckpoint | None:
        """Publish if the interval has passed since the last attempt."""
        now = time.monotonic()
        if now < self._next:
            return None
        self._next = now + self.every
        if self.signer is None:
            from services.anchor.keys import default_signer

            self.signer = default_signer()
        return await publish_checkpoint(db, self.signer)
