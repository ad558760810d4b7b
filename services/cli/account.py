"""`baloot account grant|revoke LOGIN ROLE`: the roles on a person's account (organiser, referee).

A role on the account is a row of ``grants`` on the scope "platform"; ``GET /session`` lists them. Only
whoever runs the platform gives them: there is no route for it.
"""

from __future__ import annotations

import argparse
import asyncio

ROLES = ("organiser", "referee")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("account", help="roles on a person's account",
                                   description="Give or take a role (organiser, referee) on an account, by "
                                               "its login (DATABASE_URL, else the embedded server).")
    actions = parser.add_subparsers(dest="action", required=True)
    for name, what in (("grant", "give"), ("revoke", "take back")):
        action = actions.add_parser(name, help=f"{what} a role")
        action.add_argument("login", help="the account's login")
        action.add_argument("role", choices=ROLES)
        action.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
        action.set_defaults(func=account_command)


def account_command(args: argparse.Namespace) -> int:
    from services.accounts import normalise_login
    from services.db import connect, database_server
    from services.errors import Invalid
    from services.roles import grant

    try:
        login = normalise_login(args.login)
    except Invalid as exc:
        print(f"baloot account: {exc.detail}")
        return 2

    async def run() -> str | None:
        pool = await connect(args.database_url or database_server().url, min_size=1, max_size=1)
        try:
            user_id = await pool.fetchval("SELECT user_id FROM credentials WHERE login = $1", login)
            if user_id is None:
                return None
            if args.action == "grant":
                await grant(pool, "platform", "", user_id, args.role)
            else:
                await pool.execute("DELETE FROM grants WHERE scope = 'platform' AND scope_id = '' AND user_id = $1 "
                                   "AND role = $2", user_id, args.role)
            return user_id
        finally:
            await pool.close()

    user_id = asyncio.run(run())
    if user_id is None:
        print(f"baloot account: no account has the login {login!r}")
        return 1
    print(f"baloot account: {login} ({user_id}) {'is now' if args.action == 'grant' else 'is no longer'} "
          f"{'an' if args.role == 'organiser' else 'a'} {args.role}")
    return 0
