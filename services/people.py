"""Who is who, as the doors ask it: users by id with their public names and kinds, the platform roles an
account holds, and how many bearer tokens a user still holds. Reads of the ``users``, ``grants`` and ``tokens``
tables; what a name may be is ``services.accounts``'s, who holds a role on a scope ``services.roles``'s."""

from __future__ import annotations


async def users(db, user_ids) -> list[dict]:
    """The users among ``user_ids`` (unknown ids are left out), by id: each its ``user_id``, ``name`` and
    ``kind``."""
    rows = await db.fetch("SELECT user_id, name, kind FROM users WHERE user_id = ANY($1) ORDER BY user_id",
                          list(user_ids))
    return [dict(r) for r in rows]


async def user(db, user_id: str) -> dict | None:
    """One user's ``name`` and ``kind``, or None if there is no such user."""
    row = await db.fetchrow("SELECT name, kind FROM users WHERE user_id = $1", user_id)
    return None if row is None else dict(row)


async def kinds(db, user_ids) -> dict[str, str]:
    """Each known user's kind (human, bot), by id: a user missing from the answer does not exist."""
    return {r["user_id"]: r["kind"] for r in await db.fetch(
        "SELECT user_id, kind FROM users WHERE user_id = ANY($1)", list(user_ids))}


async def bots(db, user_ids) -> set[str]:
    """Those of ``user_ids`` that are bots' accounts."""
    return {r["user_id"] for r in await db.fetch(
        "SELECT user_id FROM users WHERE user_id = ANY($1) AND kind = 'bot'", list(user_ids))}


async def unknown(db, user_ids) -> list[str]:
    """Those of ``user_ids`` that name no user, in their order."""
    known = {r["user_id"] for r in await db.fetch("SELECT user_id FROM users WHERE user_id = ANY($1)",
                                                  list(user_ids))}
    return [u for u in user_ids if u not in known]


async def named_like(db, user_ids, text: str) -> set[str]:
    """Those of ``user_ids`` whose public name contains ``text`` (already case-folded), ignoring case."""
    rows = await db.fetch("SELECT user_id FROM users WHERE user_id = ANY($1) AND strpos(lower(name), $2) > 0",
                          list(user_ids), text)
    return {r["user_id"] for r in rows}


async def platform_roles(db, user_id: str) -> list[str]:
    """The roles ``user_id`` holds on the whole platform (organiser, referee), by name."""
    rows = await db.fetch("SELECT role FROM grants WHERE scope = 'platform' AND scope_id = '' "
                          "AND user_id = $1 ORDER BY role", user_id)
    return [r["role"] for r in rows]


async def live_tokens(db, user_id: str) -> int:
    """How many of ``user_id``'s bearer tokens are neither revoked nor expired."""
    return await db.fetchval("SELECT count(*) FROM tokens WHERE user_id = $1 AND revoked_at IS NULL "
                             "AND expires_at > now()", user_id)
