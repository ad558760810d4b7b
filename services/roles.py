"""Roles on scopes: who organises or referees a championship, who referees a table (the ``grants`` table).
A role is the platform's, not a rule of a game or a tournament: a grant is a row, not an event.
"""

from __future__ import annotations


async def grant(db, scope: str, scope_id: str, user_id: str, role: str) -> None:
    await db.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ($1, $2, $3, $4) "
                     "ON CONFLICT DO NOTHING", scope, scope_id, user_id, role)


async def referees_anything(db, user_id: str) -> bool:
    """Whether ``user_id`` referees a table or a championship, or organises one (the referee's desk has calls
    for him to see)."""
    return bool(await db.fetchval("SELECT true FROM grants WHERE user_id = $1 AND role IN ('referee', 'organiser') "
                                  "LIMIT 1", user_id))


async def has_role(db, user_id: str, role: str, *scopes: tuple[str, str | None]) -> bool:
    """Whether ``user_id`` holds ``role`` on any of ``scopes`` ((scope, id) pairs; None ids are skipped)."""
    for scope, scope_id in scopes:
        if scope_id is None:
            continue
        found = await db.fetchval("SELECT true FROM grants WHERE scope = $1 AND scope_id = $2 AND user_id = $3 "
                                  "AND role = $4", scope, scope_id, user_id, role)
        if found:
            return True
    return False
