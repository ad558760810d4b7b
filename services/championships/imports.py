"""An organiser's teams file imported as a whole: the file's own checks (``domain.tournament.imports``), then
the logins (each an account), then the championship's rules (a team or a player registered already, the
registration closed), every problem named by its line and column; only a file with none is registered, in
one append, so that nothing is stored while any line is bad."""

from __future__ import annotations

import asyncio
import os
import weakref

import msgspec

from domain.tournament import ChampionshipRuleError, RegisterTeam, TeamInfo, decide, evolve
from domain.tournament.imports import BOT, INVITE, LineError, TeamRow, parse_teams
from services.accounts import choose_login, name_key, normalise_login, skeleton
from services.bots import team_bot_ids
from services.championships import duplicate
from services.commands import replayed
from services.errors import Conflict, Invalid, Unprocessable

MAX_LISTED = 200          # the errors listed in one refusal (their count is given whole)
_LOCAL: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
DEFAULT_ACCOUNT_LIMIT = 500   # accounts an organiser's imports may make per UTC day (BALOOT_IMPORT_ACCOUNT_LIMIT)


def account_limit() -> int:
    """How many accounts one organiser's imports may make a day: ``BALOOT_IMPORT_ACCOUNT_LIMIT`` (500)."""
    return int(os.environ.get("BALOOT_IMPORT_ACCOUNT_LIMIT", DEFAULT_ACCOUNT_LIMIT))


class Invited(msgspec.Struct, frozen=True):
    """An account the import made for a person who had none: he claims it with ``code`` (shown this once;
    empty in a dry run, which makes nothing)."""

    login: str
    user_id: str
    code: str


class Imported(msgspec.Struct, frozen=True):
    championship_id: str
    version: int
    teams: int
    dry_run: bool
    team_ids: list[str]
    replayed: bool = False        # this command id had imported the file already: nothing more was done
    invited: list[Invited] = []   # accounts made for "+login" players, with the codes to claim them


def refuse(errors: list[LineError]) -> Unprocessable:
    first = errors[0]
    where = f"line {first.line}" + (f", {first.column}" if first.column else "")
    return Unprocessable("bad_import", f"{len(errors)} problem{'s' if len(errors) != 1 else ''} in the file, "
                                       f"nothing imported; the first: {where}: {first.reason}",
                         errors=[msgspec.to_builtins(e) for e in errors[:MAX_LISTED]], error_count=len(errors))


async def _logins(pool, rows: list[TeamRow], errors: list[LineError], players: list[str]
                  ) -> tuple[dict[str, str], dict[str, str]]:
    """login -> user id of every person the file names, and the cells naming a person to invite
    (``+login`` with no account yet) -> his login; an unknown login, or a login that is none, is a line's
    error."""
    wanted: dict[str, str] = {}
    for row in rows:
        for person in (*row.players, *row.substitutes):
            if person and person != BOT:
                try:
                    wanted[person] = normalise_login(person.removeprefix(INVITE))
                except Invalid:
                    wanted[person] = ""
    found = dict(await pool.fetch("SELECT c.login, c.user_id FROM credentials c JOIN users u USING (user_id) "
                                  "WHERE c.login = ANY($1::text[]) AND u.kind = 'human'",
                                  sorted({k for k in wanted.values() if k})))
    new = sorted({k for p, k in wanted.items() if k and p.startswith(INVITE)})
    taken = {r[0] for r in await pool.fetch("SELECT login FROM credentials WHERE login = ANY($1::text[])", new)}
    looks = {r[0] for r in await pool.fetch("SELECT skeleton FROM credentials WHERE skeleton = ANY($1::text[])",
                                            sorted({skeleton(k) for k in new}))}
    names = {r[0] for r in await pool.fetch("SELECT name_key FROM users WHERE kind = 'human' AND "
                                            "name_key = ANY($1::text[])", sorted({name_key(k) for k in new}))}
    invite: dict[str, str] = {}
    for row in rows:
        columns = [*players, *(f"substitute_{i + 1}" for i in range(len(row.substitutes)))]
        for column, person in zip(columns, (*row.players, *row.substitutes)):
            if not person or person == BOT or wanted[person] in found:
                continue
            if not wanted[person]:
                errors.append(LineError(row.line, column, f"{person!r} is not a login: 3 to 32 letters, digits, "
                                                          "'.', '_' or '-'"))
            elif not person.startswith(INVITE):
                errors.append(LineError(row.line, column, f"no account has the login {person!r}: the player signs "
                                                          f"up first (/play/), or the file names him +{person} to "
                                                          "make his account"))
            elif wanted[person] in taken:
                errors.append(LineError(row.line, column, f"the login {wanted[person]!r} is a bot's or taken"))
            elif (why := _not_for_invite(wanted[person], looks, names)) is not None:
                errors.append(LineError(row.line, column, why))
            else:
                invite[person] = wanted[person]
    return {person: found[key] for person, key in wanted.items() if key in found}, invite


def _not_for_invite(login: str, looks: set[str], names: set[str]) -> str | None:
    """Why an import may not make an account with this login (reserved, like another's, another's name)."""
    try:
        choose_login(login)
    except Invalid as refusal:
        return refusal.detail
    if skeleton(login) in looks:
        return f"the login {login!r} looks like an existing login"
    if name_key(login) in names:
        return f"another person is named {login!r}: the account would copy his name"
    return None


async def import_teams(championships, accounts, pool, championship_id: str, text: str, *, actor: str,
                       command_id: str, digest: str, dry_run: bool = False) -> Imported:
    """Register every team of the file, or none (``Unprocessable`` naming each bad line); ``dry_run``: check only.

    Imports into one championship run one at a time (a PostgreSQL advisory lock, so across API processes
    too): the same file sent twice at once is imported by the first, and the second, waiting for it, finds
    its command done and answers as a replay; nothing is made twice and neither fails."""
    if dry_run:
        return await _import(championships, accounts, pool, championship_id, text, actor=actor,
                             command_id=command_id, digest=digest, dry_run=True)
    # One waiter per championship in this process holds a connection (the others wait here, holding none:
    # a pool full of waiters would starve the import they wait for).
    local = _LOCAL.setdefault(championship_id, asyncio.Lock())
    async with local, pool.acquire() as lock:
        key = f"teams-import:{championship_id}"
        await lock.execute("SELECT pg_advisory_lock(hashtextextended($1, 0))", key)
        try:
            return await _import(championships, accounts, pool, championship_id, text, actor=actor,
                                 command_id=command_id, digest=digest, dry_run=False)
        finally:
            await lock.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", key)


async def _import(championships, accounts, pool, championship_id: str, text: str, *, actor: str,
                  command_id: str, digest: str, dry_run: bool) -> Imported:
    champ = await championships.load(championship_id)
    size = duplicate.team_size(champ.state.settings.format)
    retry = replayed(champ.commands, actor, command_id, digest)
    if retry is not None:                       # the same file sent again with its command id: done already
        rows, _ = parse_teams(text, championship_id, size)
        logins = sorted({normalise_login(p.removeprefix(INVITE)) for row in rows
                         for p in (*row.players, *row.substitutes) if p.startswith(INVITE)})
        ids = dict(await pool.fetch("SELECT login, user_id FROM credentials WHERE login = ANY($1::text[])", logins))
        return Imported(championship_id, retry.version, len(rows), dry_run, [row.team_id for row in rows],
                        replayed=True, invited=[Invited(login, ids.get(login, ""), "") for login in logins])
    players = [f"player_{i + 1}" for i in range(size)]
    rows, errors = parse_teams(text, championship_id, size)
    if errors and not rows:
        raise refuse(errors)                      # not a teams file at all: its header, its encoding
    users, invite = await _logins(pool, rows, errors, players)
    if errors:
        raise refuse(sorted(errors, key=lambda e: e.line))
    users |= {cell: f"invited:{login}" for cell, login in invite.items()}   # their ids once they are made

    def commands_for(state) -> list[RegisterTeam]:
        out, problems = [], []
        for row in rows:
            bots = team_bot_ids(championship_id, row.team_id, [i for i, p in enumerate(row.players) if p == BOT])
            command = RegisterTeam(row.team_id, tuple(bots.get(i) or users[p] for i, p in enumerate(row.players)),
                                   tuple(users[s] for s in row.substitutes),
                                   TeamInfo(row.name, row.club, row.region, row.rating))
            try:
                for event in decide(state, command):
                    state = evolve(state, event)
            except ChampionshipRuleError as exc:
                problems.append(LineError(row.line, None, _in_words(exc, command, row, users)))
                continue
            out.append(command)
        if problems:
            raise refuse(problems)
        return out

    planned = commands_for(champ.state)                # every line checked against the championship as it is
    logins = sorted(set(invite.values()))
    if dry_run:
        return Imported(championship_id, champ.version, len(planned), True, [c.team_id for c in planned],
                        invited=[Invited(login, "", "") for login in logins])
    made: dict[str, tuple[str, str]] = {}
    if logins:
        async with pool.acquire() as conn, conn.transaction():
            await _spend_budget(conn, actor, len(logins))
            made = await accounts.invite(conn, logins, actor)
        users |= {cell: made[login][0] for cell, login in invite.items()}
    bots = [(uid, f"{row.name} bot {i + 1}") for row in rows
            for i, uid in team_bot_ids(championship_id, row.team_id,
                                       [i for i, p in enumerate(row.players) if p == BOT]).items()]
    if bots:
        await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'bot') "
                               "ON CONFLICT DO NOTHING", bots)
    outcome, champ = await championships.execute(championship_id, command_id, lambda c: commands_for(c.state),
                                                 actor=actor, digest=digest)
    return Imported(championship_id, outcome.version, len(rows), False, [row.team_id for row in rows],
                    invited=[Invited(login, uid, code) for login, (uid, code) in sorted(made.items())])


async def _spend_budget(conn, organiser: str, count: int) -> None:
    """Count ``count`` accounts against the organiser's budget of the (UTC) day, in the statement that
    checks it (concurrent imports cannot pass it together); Conflict when the file would pass it. In the
    invitation's transaction: a failed import gives its count back."""
    limit = account_limit()
    spent = await conn.fetchval(
        "INSERT INTO invited_accounts_daily AS d (organiser, day, accounts) "
        "SELECT $1::text, (now() AT TIME ZONE 'UTC')::date, $2::int WHERE $2::int <= $3::int "
        "ON CONFLICT (organiser, day) DO UPDATE SET accounts = d.accounts + $2::int "
        "WHERE d.accounts + $2::int <= $3::int "
        "RETURNING accounts", organiser, count, limit)
    if spent is None:
        used = await conn.fetchval("SELECT accounts FROM invited_accounts_daily WHERE organiser = $1 AND "
                                   "day = (now() AT TIME ZONE 'UTC')::date", organiser) or 0
        raise Conflict("import_account_limit",
                       f"this file would make {count} accounts; your imports may make {limit} a day and have made "
                       f"{used} today: import the rest tomorrow, or ask the players to sign up themselves",
                       limit=limit, used=used)


def _in_words(exc: ChampionshipRuleError, command: RegisterTeam, row: TeamRow, users: dict[str, str]) -> str:
    """The championship's refusal of a line, with logins where it names user ids."""
    logins = {uid: login for login, uid in users.items()}
    text = exc.message
    for uid, login in logins.items():
        text = text.replace(f"player {uid}", f"player {login}")
    text = text.replace(f"team {command.team_id}", f"team {row.name!r}")
    return f"{text} ({exc.rule})"
