"""The leaves of the log's Merkle tree: the events in read order ``(tx_id, position)``, below the read horizon.

Leaf data is the compact JSON array ``[stream_id, version, hash]`` (hash in lower-case hex), hashed as an
RFC 9162 leaf.  Shared by the checkpoints (services/anchor/checkpoints.py) and the stored subtrees
(services/anchor/tree.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import msgspec

from services.anchor.merkle import leaf_hash

Db = asyncpg.Pool | asyncpg.Connection

PAGE = 10_000

_ENTRIES_AFTER = """
SELECT stream_id, version, hash, tx_id, position FROM events
 WHERE (tx_id, position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id, position
 LIMIT $3"""


def leaf_data(stream_id: str, version: int, hash: bytes) -> bytes:
    """The leaf data of one event: the compact JSON array [stream_id, version, hash hex]."""
    return msgspec.json.encode([stream_id, version, hash.hex()])


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
