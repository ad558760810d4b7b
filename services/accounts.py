"""Accounts people sign back into: a login name and a password per user (``credentials``), with no HTTP in it.

A login is the name a person signs in with: NFKC-normalised and case-folded, so that "Saad", "SAAD" and
"ｓａａｄ" are one login; 3 to 32 letters (any script), digits, ``.``, ``_`` or ``-``. A password is 8 to 128
characters and is kept only as an argon2id hash (``argon2-cffi``, RFC 9106's recommended parameters: 3
passes over 64 MiB), computed off the event loop. A user made by ``POST /users`` (a token only) keeps
working and may set a login and password later; a bot never has one.

A wrong login and a wrong password are the same refusal, and cost the same time: an unknown login is
checked against a hash of nothing, so neither the answer nor its delay says which part was wrong.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import unicodedata
import uuid

import asyncpg
import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from services.errors import Conflict, Invalid

LOGIN = re.compile(r"^[\w.\-]{3,32}$")
UNCLAIMED = "!unclaimed"          # the password hash of an invited account: no password verifies against it
INVITATION_DAYS = 30.0
MIN_PASSWORD, MAX_PASSWORD = 8, 128


async def user_names(db, user_ids) -> dict[str, str]:
    """The public names of these users, by id (unknown ids are left out)."""
    rows = await db.fetch("SELECT user_id, name FROM users WHERE user_id = ANY($1)", list(set(user_ids)))
    return {r["user_id"]: r["name"] for r in rows}


def code_hash(code: str) -> bytes:
    return hashlib.sha256(code.encode()).digest()


class Account(msgspec.Struct, frozen=True):
    user_id: str
    name: str
    login: str | None            # None: a user with a token only, who has set no password yet
    kind: str = "human"


def normalise_login(text: str) -> str:
    """The login as stored and compared, or Invalid."""
    login = unicodedata.normalize("NFKC", text).casefold().strip()
    if not LOGIN.fullmatch(login) or not any(c.isalnum() for c in login):
        raise Invalid("invalid_field", "a login is 3 to 32 letters, digits, '.', '_' or '-'", field="login")
    return login


def check_password(password: str, login: str, field: str = "password") -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Invalid("invalid_field", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters", field=field)
    if unicodedata.normalize("NFKC", password).casefold() == login:
        raise Invalid("invalid_field", "a password may not be the login", field=field)


class Accounts:
    """Credentials on ``pool``; ``hasher`` is argon2-cffi's (tests may pass a cheaper one)."""

    def __init__(self, pool: asyncpg.Pool, hasher: PasswordHasher | None = None):
        self.pool = pool
        self.hasher = hasher or PasswordHasher()
        self._nothing: str | None = None      # a hash to check unknown logins against (same cost)

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return self.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False
        return await asyncio.to_thread(verify)

    async def create(self, login: str, password: str, name: str | None = None) -> Account:
        """A new person with a login and password."""
        login = normalise_login(login)
        check_password(password, login)
        account = Account(uuid.uuid4().hex, name or login, login)
        digest = await self._hash(password)
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                await conn.execute("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'human')",
                                   account.user_id, account.name)
                await conn.execute("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, $3)",
                                   account.user_id, login, digest)
        except asyncpg.UniqueViolationError:
            raise Conflict("login_taken", f"the login {login!r} is taken; choose another") from None
        return account

    async def set_credentials(self, user_id: str, login: str, password: str) -> Account:
        """A login and password for a user who has none yet (one made with a token only)."""
        login = normalise_login(login)
        check_password(password, login)
        digest = await self._hash(password)
        kind = await self.pool.fetchval("SELECT kind FROM users WHERE user_id = $1", user_id)
        if kind != "human":
            raise Conflict("not_a_person", "only a person's account takes a password")
        try:
            status = await self.pool.execute(
                "INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, $3) "
                "ON CONFLICT (user_id) DO NOTHING", user_id, login, digest)
        except asyncpg.UniqueViolationError:
            raise Conflict("login_taken", f"the login {login!r} is taken; choose another") from None
        if status.endswith(" 0"):
            raise Conflict("credentials_exist", "this account already has a login; change its password instead")
        return await self.of(user_id)

    async def of(self, user_id: str) -> Account:
        row = await self.pool.fetchrow(
            "SELECT u.user_id, u.name, u.kind, c.login FROM users u LEFT JOIN credentials c USING (user_id) "
            "WHERE u.user_id = $1", user_id)
        return Account(row["user_id"], row["name"], row["login"], row["kind"])

    async def by_login(self, login: str) -> Account | None:
        """The person with this login (in any case or width), or None."""
        try:
            key = normalise_login(login)
        except Invalid:
            return None
        row = await self.pool.fetchrow("SELECT u.user_id, u.name, u.kind, c.login FROM credentials c JOIN users u "
                                       "USING (user_id) WHERE c.login = $1", key)
        return Account(row["user_id"], row["name"], row["login"], row["kind"]) if row else None

    async def invite(self, conn, logins: list[str], invited_by: str, days: float = INVITATION_DAYS
                     ) -> dict[str, tuple[str, str]]:
        """Accounts for people who have none yet (normalised ``logins``, none of them taken): each login
        reserved with a password hash that verifies nothing, and a one-time code to claim it with (only its
        SHA-256 kept). In ``conn``'s transaction; returns login -> (user id, code)."""
        made = {login: (uuid.uuid4().hex, secrets.token_urlsafe(18)) for login in logins}
        await conn.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'human')",
                               [(uid, login) for login, (uid, _) in made.items()])
        await conn.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, $3)",
                               [(uid, login, UNCLAIMED) for login, (uid, _) in made.items()])
        await conn.executemany(
            "INSERT INTO account_invitations (code_hash, user_id, invited_by, expires_at) "
            "VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
            [(code_hash(code), uid, invited_by, days * 86400.0) for uid, code in made.values()])
        return made

    async def claim(self, code: str, password: str, name: str | None = None) -> Account:
        """The account an invitation ``code`` reserved, now with this password (and name); the code is used
        up. A code that is unknown, used or expired is one refusal."""
        async with self.pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT i.user_id, c.login FROM account_invitations i JOIN credentials c USING (user_id) "
                "WHERE i.code_hash = $1 AND i.used_at IS NULL AND i.expires_at > now() FOR UPDATE OF i",
                code_hash(code))
            if row is None:
                raise Invalid("bad_invitation", "this invitation code is unknown, used or past its date: ask the "
                                                "organiser for a new one", field="code")
            check_password(password, row["login"])
            digest = await self._hash(password)
            await conn.execute("UPDATE credentials SET password_hash = $2, changed_at = now() WHERE user_id = $1",
                               row["user_id"], digest)
            await conn.execute("UPDATE account_invitations SET used_at = now() WHERE code_hash = $1",
                               code_hash(code))
            if name:
                await conn.execute("UPDATE users SET name = $2 WHERE user_id = $1", row["user_id"], name)
        return await self.of(row["user_id"])

    async def verify(self, login: str, password: str) -> Account | None:
        """The account whose login and password these are, or None (with no hint which was wrong)."""
        try:
            key = normalise_login(login)
        except Invalid:
            key = None
        row = None if key is None else await self.pool.fetchrow(
            "SELECT u.user_id, u.name, u.kind, c.login, c.password_hash FROM credentials c JOIN users u "
            "USING (user_id) WHERE c.login = $1", key)
        if row is None or row["password_hash"] == UNCLAIMED:      # no such login, or one not claimed yet
            if self._nothing is None:
                self._nothing = await self._hash("")
            await self._verify(self._nothing, password)     # the same work as for a known login
            return None
        if not await self._verify(row["password_hash"], password):
            return None
        if self.hasher.check_needs_rehash(row["password_hash"]):
            await self.pool.execute("UPDATE credentials SET password_hash = $2 WHERE user_id = $1",
                                    row["user_id"], await self._hash(password))
        return Account(row["user_id"], row["name"], row["login"], row["kind"])

    async def change_password(self, user_id: str, current: str, new: str) -> bool:
        """Replace the password when ``current`` is right; False when it is not (nothing changed)."""
        row = await self.pool.fetchrow("SELECT login, password_hash FROM credentials WHERE user_id = $1", user_id)
        if row is None:
            raise Conflict("no_credentials", "this account has no password yet: set a login and password first")
        check_password(new, row["login"], field="new_password")
        if not await self._verify(row["password_hash"], current):
            return False
        await self.pool.execute("UPDATE credentials SET password_hash = $2, changed_at = now() WHERE user_id = $1",
                                user_id, await self._hash(new))
        return True
