"""Which tree sizes a proof may be asked between: a checkpoint's (0 is the empty tree), and none beyond the
latest checkpoint."""

from __future__ import annotations

from services.errors import Invalid, NotFound


async def check_sizes(db, **sizes: int) -> None:
    """Each named size must be a checkpoint's: ``Invalid`` beyond the latest, ``NotFound`` otherwise."""
    largest, known = await db.fetchrow(
        """SELECT (SELECT coalesce(max(tree_size), 0) FROM checkpoints),
                  ARRAY(SELECT tree_size FROM checkpoints WHERE tree_size = ANY($1::bigint[]))""",
        list(sizes.values()))
    for field, size in sizes.items():
        if size > largest:
            raise Invalid("invalid_field", f"{field} ({size}) is beyond the latest checkpoint ({largest} events)",
                          field=field)
    for field, size in sizes.items():
        if size and size not in known:
            raise NotFound("unknown_checkpoint", f"no checkpoint covers exactly {size} events: proofs are "
                           "between the sizes of checkpoints (GET /log/checkpoints)", field=field)
