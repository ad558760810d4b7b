"""Checkpoints: a signed Merkle root over the first N events of the log, published at a fixed interval.

The leaves are the log's events in read order ``(tx_id, position)``, one per event, taken only below the
read horizon (see services/eventstore/store.py), where that order is final.  Leaf data is the compact
JSON array ``[stream_id, version, hash]`` (hash in lower-case hex), hashed as an RFC 9162 leaf.
Signed bytes: ``b"baloot-checkpoint/1\\n"`` followed by the compact JSON array
``[size, root, created_at]`` (root in hex, created_at as ``YYYY-MM-DDTHH:MM:SS.mmmZ``).

Each checkpoint stores its frontier (the roots of its perfect subtrees), so the next one hashes only
the events since; consistency proofs between two checkpoints are computed from the events themselves.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import msgspec

from services.anchor.keys import Signer, verify_signature
from services.anchor.merkle import Frontier, consistency_proof, leaf_hash
from services.anchor.receipts import decode_list

Db = asyncpg.Pool | asyncpg.Connection

CHECKPOINT_DOMAIN = b"baloot-checkpoint/1\n"
PAGE = 10_000

# Serialises publishers (several worker processes, `baloot checkpoint`) per schema: two checkpoints
# extending the same predecessor would both claim its next sequence number.
_LOCK = "SELECT pg_advisory_xact_lock(hashtext('baloot-arena/checkpoint/' || current_schema()))"

_ENTRIES_AFTER = """
SELECT stream_id, version, hash, tx_id, position FROM events
 WHERE (tx_id, position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id, position
 LIMIT $3"""

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


def leaf_data(stream_id: str, version: int, hash: bytes) -> bytes:
    """The leaf data of one event: the compact JSON array [stream_id, version, hash hex]."""
    return msgspec.json.encode([stream_id, version, hash.hex()])


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


async def log_entries(db: Db, after: tuple[int, int] = (0, 0), limit: int | None = None
                      ) -> AsyncIterator[list[asyncpg.Record]]:
    """Pages of (stream_id, version, hash, tx_id, position) after `after`, in read order, below the horizon."""
    left = limit
    while left is None or left > 0:
        page = PAGE if left is None else min(PAGE, left)
        rows = await db.fetch(_ENTRIES_AFTER, after[0], after[1], page)
        if not rows:
            return
        yield rows
        after = (rows[-1][3], rows[-1][4])
        if left is not None:
            left -= len(rows)
        if len(rows) < page:
            return


async def log_leaves(db: Db, limit: int | None = None) -> list[bytes]:
    """The leaf hashes of the first `limit` events of the log (all final events when None)."""
    leaves: list[bytes] = []
    async for rows in log_entries(db, limit=limit):
        leaves.extend(leaf_hash(leaf_data(r[0], r[1], r[2])) for r in rows)
    return leaves


def _row_to_checkpoint(r: asyncpg.Record) -> SignedCheckpoint:
    return SignedCheckpoint(seq=r[0], size=r[1], root=r[2].hex(), last_tx_id=int(r[3]), last_position=r[4],
                            frontier=[h.hex() for h in r[5]], created_at=r[6], key_id=r[7],
                            signature=r[8].hex())


async def publish_checkpoint(db: Db, signer: Signer) -> SignedCheckpoint | None:
    """Sign and store a checkpoint over every final event, extending the last one; None if nothing is new."""
    if isinstance(db, asyncpg.Pool):
        async with db.acquire() as conn:
            return await publish_checkpoint(conn, signer)
    async with db.transaction():
        await db.execute(_LOCK)
        last = await db.fetchrow(f"SELECT {_COLUMNS} FROM checkpoints ORDER BY seq DESC LIMIT 1")
        if last is None:
            seq, frontier, after = 1, Frontier(), (0, 0)
        else:
            seq, frontier, after = last[0] + 1, Frontier(last[1], last[5]), (last[3], last[4])
        # Reading takes no transaction id, so this transaction does not hold the horizon back itself.
        async for rows in log_entries(db, after):
            for r in rows:
                frontier.append(leaf_hash(leaf_data(r[0], r[1], r[2])))
            after = (rows[-1][3], rows[-1][4])
        if frontier.size == (last[1] if last is not None else 0):
            return None
        root_hex = frontier.root().hex()
        now = dt.datetime.now(dt.timezone.utc)
        created_at = now.replace(microsecond=now.microsecond // 1000 * 1000)  # as signed: milliseconds
        signature = signer.sign(checkpoint_message(frontier.size, root_hex, created_at))
        row = await db.fetchrow(
            f"""INSERT INTO checkpoints ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                RETURNING {_COLUMNS}""",
            seq, frontier.size, bytes.fromhex(root_hex), after[0], after[1], frontier.hashes, created_at,
            signer.key_id, signature)
    return _row_to_checkpoint(row)


async def checkpoints(db: Db) -> list[SignedCheckpoint]:
    """The stored checkpoints, oldest first."""
    return [_row_to_checkpoint(r) for r in await db.fetch(f"SELECT {_COLUMNS} FROM checkpoints ORDER BY seq")]


async def consistency(db: Db, m: int, n: int) -> list[bytes]:
    """RFC 9162 consistency proof that the tree of the first m events is a prefix of that of the first n.

    Computed from the events as they are now: it verifies against two signed roots only if the log
    was not changed.  Raises ValueError when m > n or the log has fewer than n final events.
    """
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
