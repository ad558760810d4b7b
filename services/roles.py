"""Roles on scopes: who organises or referees a championship, who referees a table (the ``grants`` table).
A role is the platform's, not a rule of a game or a tournament: a grant is a row, not an event.
"""

from __future__ import annotations

from services.accounts import name_key


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


async def holders(db, scope: str, scope_id: str, role: str) -> list[dict]:
    """Who holds ``role`` on the scope, each with his public name, by name."""
    rows = await db.fetch("SELECT g.user_id, u.name FROM grants g JOIN users u USING (user_id) "
                          "WHERE g.scope = $1 AND g.scope_id = $2 AND g.role = $3 ORDER BY u.name, g.user_id",
                          scope, scope_id, role)
    return [dict(r) for r in rows]


async def revoke(db, scope: str, scope_id: str, user_id: str, role: str) -> bool:
    """Take ``role`` on the scope from ``user_id``; whether he held it."""
    return await db.fetchval("WITH gone AS (DELETE FROM grants WHERE scope = $1 AND scope_id = $2 AND user_id = $3 "
                             "AND role = $4 RETURNING 1) SELECT count(*) > 0 FROM gone",
                             scope, scope_id, user_id, role)


async def person_named(db, text: str) -> str | None:
    """The person (a human account) whose login is ``text``, else the one whose public name it is (no two
    people hold one name), compared as the accounts compare them; None if nobody."""
    key = name_key(text).strip()
    return await db.fetchval("SELECT u.user_id FROM users u LEFT JOIN credentials c USING (user_id) "
                             "WHERE u.kind = 'human' AND (c.login = $1 OR u.name_key = $1) "
                             "ORDER BY (c.login = $1) DESC NULLS LAST LIMIT 1", key)
