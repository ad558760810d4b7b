"""A championship's standings as its pages and exports show them: each row with its team's name."""

from __future__ import annotations

import msgspec

from projections.standings import StandingRow
from services.championships.names import team_names


async def named_standings(championships, db, championship_id: str, offset: int = 0,
                          limit: int | None = None) -> list[StandingRow]:
    """The standings (a page of them: ``offset``, ``limit``), each row with its team's name."""
    rows = await championships.standings(championship_id)
    rows = rows[offset:None if limit is None else offset + limit]
    names = await team_names(db, (await championships.load(championship_id)).state, [r.team_id for r in rows])
    return [msgspec.structs.replace(r, name=names.get(r.team_id, "")) for r in rows]
