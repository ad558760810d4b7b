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
import functools
import hashlib
import itertools
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
MAX_NAME = 80
# Bidirectional controls (UTS #55 / Trojan Source): they reorder what a name shows; refused with Cc.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
CONTEXT_WORDS = ("baloot", "balot", "\u0628\u0644\u0648\u062a")       # the platform's own name, in both scripts


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


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the Unicode confusables data (UTS #39, confusables.txt)
    as ``confusable-homoglyphs`` ships it.

    That library (maintained, pure Python, wheels for every platform: the deploy image installs binaries
    only) keeps the data as a two-way map (a source lists its prototype, a prototype lists its sources), not
    as skeletons; UTS #39's prototypes are the fixed points, so they are told apart here: a prototype is the
    one linked to several characters, or the several-character one ("rn" for "m"); in a pair of two single
    characters either serves (the smaller is taken: both then have one skeleton, which is all it is for)."""
    from confusable_homoglyphs.confusables import confusables_data

    def bare(text: str) -> str:
        return text.replace("\u200e", "")

    links: dict[str, set[str]] = {}
    for key, homoglyphs in confusables_data.items():
        for glyph in homoglyphs:
            links.setdefault(bare(key), set()).add(bare(glyph["c"]))
            links.setdefault(bare(glyph["c"]), set()).add(bare(key))
    prototypes = {}
    for char, linked in links.items():
        if len(char) != 1 or len(linked) != 1:
            continue                                   # a prototype (or a sequence): itself
        (other,) = linked
        if len(other) > 1 or len(links.get(other, ())) > 1 or other < char:
            prototypes[char] = other
    return prototypes


def skeleton(login: str) -> str:
    """The login's UTS #39 skeleton: NFD, each character replaced by its confusables prototype, NFD again;
    logins that look alike ("saad" in Latin and its Cyrillic look-alike, "rn" and "m") have one."""
    prototypes = _prototypes()
    text = unicodedata.normalize("NFD", login)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))


@functools.cache
def _reserved_skeletons() -> frozenset[str]:
    from services.accounts_data import reserved_logins
    return frozenset(skeleton(name) for name in reserved_logins())


def _reserved(login: str) -> bool:
    bare = login.strip("._-")
    return bool(re.match(r"^bot[._-]", login)) or skeleton(bare) in _reserved_skeletons()


def choose_login(text: str) -> str:
    """A login a person may choose (sign-up, set later, an import's ``+login``): normalised, and none of
    the reserved names (``services/accounts_data/reserved_logins.txt``) nor a look-alike of one."""
    login = normalise_login(text)
    if _reserved(login):
        raise Invalid("invalid_field", f"the login {login!r} is reserved (it would pass for the platform's "
                                       "staff or a service): choose another", field="login")
    return login


def normalise_name(text: str, field: str = "name") -> str:
    """A person's display name as stored: NFKC, stripped; control characters and bidi controls refused."""
    name = unicodedata.normalize("NFKC", text).strip()
    bad = next((c for c in name if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS), None)
    if bad is not None:
        raise Invalid("invalid_field", f"a name may not hold control characters (U+{ord(bad):04X}: bidi "
                                       "overrides, isolates and marks, BEL, ESC, ...)", field=field)
    if not 1 <= len(name) <= MAX_NAME:
        raise Invalid("invalid_field", f"a name is 1 to {MAX_NAME} characters (spaces at its ends aside)",
                      field=field)
    return name


def name_key(name: str) -> str:
    """A name as compared: NFKC, case-folded; no two people hold one (bots may)."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_taken(name: str) -> Conflict:
    return Conflict("name_taken", f"another person is named {name!r}: choose a name of your own", field="name")


def _weak(key: str, context: list[str]) -> str | None:
    """Why this (NFKC, case-folded) password is weak (NIST SP 800-63B 5.1.1.2), or None."""
    from services.accounts_data import common_passwords
    if key in common_passwords():
        return "it is one of the most common passwords (a list of breached ones): choose another"
    if len(set(key)) < 3 or any(len(key) % n == 0 and key == key[:n] * (len(key) // n)
                                for n in range(1, len(key) // 2 + 1)):
        return "it repeats a few characters: choose a passphrase of several words"
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(key)}
    if len(steps) == 1 and steps <= {1, -1}:
        return "it is a sequence (like 12345678 or abcdefgh): choose a passphrase of several words"
    rest = key
    for word in sorted({w for w in context if len(w) >= 3}, key=len, reverse=True):
        rest = rest.replace(word, "")
    if rest != key and len(re.sub(r"[\W\d_]", "", rest)) < 4:
        return "it is built from your login, your name or 'baloot': choose one nobody could guess from them"
    return None


def check_password(password: str, login: str, field: str = "password", name: str | None = None) -> None:
    """Refuse a new password NIST SP 800-63B refuses: shorter than 8 (or past 128) characters, a common or
    breached one, repetitive or sequential, or built from the login, the name or the platform's name. No
    composition rules (it asks for length, not for a digit and a symbol)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Invalid("invalid_field", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters", field=field)
    key = unicodedata.normalize("NFKC", password).casefold()
    if key == login:
        raise Invalid("invalid_field", "a password may not be the login", field=field)
    context = [login, *re.split(r"[\W_]+", login), *CONTEXT_WORDS]
    if name:
        folded = name_key(name)
        context += [folded, folded.replace(" ", ""), *folded.split()]
    why = _weak(key, context)
    if why is not None:
        raise Invalid("invalid_field", f"this password is refused: {why}", field=field)


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

    async def create(self, login: str, password: str, name: str | None = None, *, operator: bool = False
                     ) -> Account:
        """A new person with a login and password. ``operator``: made by whoever runs the platform (his own
        command line, ``baloot demo``), who may give a reserved login (``organiser``); never over HTTP."""
        login = normalise_login(login) if operator else choose_login(login)
        name = normalise_name(name or login)
        check_password(password, login, name=name)
        account = Account(uuid.uuid4().hex, name, login)
        digest = await self._hash(password)
        async with self.pool.acquire() as conn, conn.transaction():
            await self._taken(conn, login)
            try:
                await conn.execute("INSERT INTO users (user_id, name, kind, name_key) VALUES ($1, $2, 'human', $3)",
                                   account.user_id, account.name, name_key(name))
                await conn.execute("INSERT INTO credentials (user_id, login, password_hash, skeleton) "
                                   "VALUES ($1, $2, $3, $4)", account.user_id, login, digest, skeleton(login))
            except asyncpg.UniqueViolationError as exc:
                raise _conflict(exc, login, name) from None
        return account

    @staticmethod
    async def _taken(conn, login: str) -> None:
        """Conflict when the login, or one that looks like it (its skeleton), is somebody's already (the
        unique indexes say so too, under a race; this says which)."""
        row = await conn.fetchrow("SELECT login FROM credentials WHERE login = $1 OR skeleton = $2 LIMIT 1",
                                  login, skeleton(login))
        if row is not None:
            raise _conflict(None, login, None, row["login"])

    async def set_credentials(self, user_id: str, login: str, password: str) -> Account:
        """A login and password for a user who has none yet (one made with a token only)."""
        login = choose_login(login)
        row = await self.pool.fetchrow("SELECT kind, name FROM users WHERE user_id = $1", user_id)
        if row is None or row["kind"] != "human":
            raise Conflict("not_a_person", "only a person's account takes a password")
        check_password(password, login, name=row["name"])
        digest = await self._hash(password)
        if await self.pool.fetchval("SELECT 1 FROM credentials WHERE user_id = $1", user_id):
            raise Conflict("credentials_exist", "this account already has a login; change its password instead")
        await self._taken(self.pool, login)
        try:
            status = await self.pool.execute(
                "INSERT INTO credentials (user_id, login, password_hash, skeleton) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (user_id) DO NOTHING", user_id, login, digest, skeleton(login))
        except asyncpg.UniqueViolationError as exc:
            raise _conflict(exc, login, None) from None
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
        try:
            await conn.executemany("INSERT INTO users (user_id, name, kind, name_key) VALUES ($1, $2, 'human', $3)",
                                   [(uid, login, name_key(login)) for login, (uid, _) in made.items()])
            await conn.executemany("INSERT INTO credentials (user_id, login, password_hash, skeleton) "
                                   "VALUES ($1, $2, $3, $4)",
                                   [(uid, login, UNCLAIMED, skeleton(login)) for login, (uid, _) in made.items()])
        except asyncpg.UniqueViolationError as exc:      # another import or sign-up took one meanwhile
            raise Conflict("login_taken", "a login or name of this file was taken while it was imported: "
                                          "import it again to see which") from exc
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
            name = normalise_name(name) if name else None
            check_password(password, row["login"], name=name)
            digest = await self._hash(password)
            await conn.execute("UPDATE credentials SET password_hash = $2, changed_at = now() WHERE user_id = $1",
                               row["user_id"], digest)
            await conn.execute("UPDATE account_invitations SET used_at = now() WHERE code_hash = $1",
                               code_hash(code))
            if name:
                try:
                    await conn.execute("UPDATE users SET name = $2, name_key = $3 WHERE user_id = $1",
                                       row["user_id"], name, name_key(name))
                except asyncpg.UniqueViolationError:
                    raise name_taken(name) from None
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
        row = await self.pool.fetchrow("SELECT c.login, c.password_hash, u.name FROM credentials c JOIN users u "
                                       "USING (user_id) WHERE user_id = $1", user_id)
        if row is None:
            raise Conflict("no_credentials", "this account has no password yet: set a login and password first")
        check_password(new, row["login"], field="new_password", name=row["name"])
        if not await self._verify(row["password_hash"], current):
            return False
        await self.pool.execute("UPDATE credentials SET password_hash = $2, changed_at = now() WHERE user_id = $1",
                                user_id, await self._hash(new))
        return True

    async def fill_keys(self) -> None:
        """Fill the skeletons of logins and the name keys of people stored before migration 0023 (Python
        computes them, not SQL: the confusables data, case folding): each the first one of its kind keeps
        it, a later look-alike or copy stays without (it was never compared). Run at the API's start; cheap
        when done."""
        for table, key_of, column, source, who in (
                ("credentials", skeleton, "skeleton", "login", "TRUE"),
                ("users", name_key, "name_key", "name", "kind = 'human'")):
            rows = await self.pool.fetch(f"SELECT user_id, {source} FROM {table} WHERE {column} IS NULL AND {who} "
                                         f"ORDER BY user_id")
            for row in rows:
                try:
                    await self.pool.execute(f"UPDATE {table} SET {column} = $2 WHERE user_id = $1 AND {column} IS "
                                            f"NULL", row["user_id"], key_of(row[source]))
                except asyncpg.UniqueViolationError:
                    continue


def _conflict(exc: asyncpg.UniqueViolationError | None, login: str, name: str | None,
              existing: str | None = None) -> Conflict:
    """The refusal a unique index (or the check before it) makes: the name, or the login (or one like it)."""
    constraint = getattr(exc, "constraint_name", None) or ""
    if name is not None and "name_key" in constraint:
        return name_taken(name)
    if existing is not None and existing != login or "skeleton" in constraint:
        return Conflict("login_taken", f"the login {login!r} looks like an existing login"
                                       f"{f' ({existing!r})' if existing else ''}: choose another", field="login")
    return Conflict("login_taken", f"the login {login!r} is taken; choose another", field="login")
