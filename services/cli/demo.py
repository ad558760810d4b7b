"""``baloot demo``: something for ``baloot serve`` to show, made once in the served database.

Everything goes through the application layer (``services.platform.Platform``: the championship and table
services, the accounts with their argon2id hasher, the grants), as the API's routes would do it:

* a championship of bot teams (single elimination, 8 teams by default), its bots paced (1 s by default) so
  that whoever watches sees each card. Its schedule has a slot for round 1 at the time it is made, which
  lets the workers run it (they start each next round when the last one is decided, and finish it); the
  demo closes its registration, makes the committed draw, starts round 1 and opens its tables itself. Each
  of those steps is decided on the championship as stored, so a ``baloot serve`` already running whose
  workers take a step first (its schedule's tick) leaves the demo nothing to do for it;
* a person's account (login ``demo``) invited to seat 0 of a table with three ``normal`` bots, proposed by the
  demo's referee: the invitation waits in his lobby, and nothing runs (no bot plays, no turn clock counts)
  until he accepts it there; then his turns have a clock (two minutes);
* a referee's account (login ``referee``, with the platform's ``referee`` role) and a call waiting for him:
  a second table he proposed, where a demo player (who never plays: the table has no clock and waits at his
  turn) called the referee because he has to leave; the referee claims it at /referee/, steps through the
  table and rules (say, a bot takes the seat);
* an organiser's account (login ``organiser``), with the platform's ``organiser`` role (as ``baloot account
  grant`` gives it) and organiser of that championship.

Nothing is queued here: the workers of ``baloot serve`` (or ``baloot worker``) find the tables' bot turns
and the championship from the log, by their reconciler (every ``BALOOT_RECONCILE_SECONDS``).

Each run makes a new demo: the n-th one's logins are ``demo-n``, ``organiser-n`` and ``referee-n`` (the first's are
plain), its championship is "Demo cup n"; what earlier runs made is left as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import uuid
from dataclasses import dataclass

NAMESPACE = uuid.UUID("3b7c6e0a-9d52-4f1e-b8a4-61c2d0e5f9a7")
MAX_DEMOS = 1000
# The teams' ids (what the pages show of a team), by the cities they play for.
TEAMS = ("Riyadh-Falcons", "Jeddah-Waves", "Dammam-Pearls", "Madinah-Palms", "Abha-Peaks", "Tabuk-Roses",
         "Hail-Poets", "Buraidah-Dates", "Taif-Roses", "Jazan-Mangoes", "Najran-Oasis", "Khobar-Corniche",
         "Yanbu-Reefs", "AlUla-Rocks", "Jubail-Harbour", "Sakaka-Olives")
BOT_LEVEL = "normal"
TURN_SECONDS = 120.0          # the person's turn clock at the demo table (two minutes a turn)
# The call waiting at the referee's desk: a player who has to leave asks for a bot to finish his game.
CALL = ("connection_loss", "I have to leave now: please let a bot finish my game.")
PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="make a demo to watch and play on `baloot serve`",
        description="Make, in the database (DATABASE_URL, else the embedded server; migrated first), a demo for "
                    "`baloot serve` to show: a championship of bot teams (single elimination, registration "
                    "closed, drawn, round 1 started: the server's workers play it live and run its next rounds), "
                    "a person's account invited to a table with three normal bots (it starts when he accepts "
                    "in his lobby), a referee's account with a call waiting at his desk, and an organiser's "
                    "account that organises the championship. It prints the logins, the passwords and the "
                    "links. Running it again makes another demo beside the first (logins demo-2, organiser-2 "
                    "and referee-2, and so on); nothing made before is changed.")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000",
                        help="where `baloot serve` is reached, for the links (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document (ids, logins, passwords, links) instead of text")
    parser.add_argument("--seed", default=None,
                        help="the demo's seed: the championship's and the table's ids derive from it (and the "
                             "demo's number), so with the same server secret the same draw and deals; "
                             "default: a random one, printed")
    parser.add_argument("--password", default=None,
                        help="the password of the three accounts (8 to 128 characters; default: a random one each)")
    parser.add_argument("--login", default="demo", help="the person's login (default: %(default)s)")
    parser.add_argument("--organiser-login", default="organiser",
                        help="the organiser's login (default: %(default)s)")
    parser.add_argument("--referee-login", default="referee", help="the referee's login (default: %(default)s)")
    parser.add_argument("--teams", type=int, default=8, help=f"teams of two bots, 2 to {len(TEAMS)} (default: 8)")
    parser.add_argument("--pace", type=float, default=1.0,
                        help="seconds between two bot actions at every table of the demo, 0 to 10 "
                             "(default: %(default)s)")
    parser.add_argument("--target", type=int, default=None,
                        help="the championship games' target (default: the profile's, 152)")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    parser.set_defaults(func=demo_command)


@dataclass(frozen=True)
class Person:
    user_id: str
    login: str
    password: str


def demo_command(args: argparse.Namespace) -> int:
    from services.accounts import check_password, normalise_login
    from services.db import Server, database_server, redact
    from services.errors import Invalid

    if not 2 <= args.teams <= len(TEAMS):
        print(f"baloot demo: --teams is 2 to {len(TEAMS)}, not {args.teams}", file=sys.stderr)
        return 2
    if not 0 <= args.pace <= 10:
        print(f"baloot demo: --pace is 0 to 10 seconds, not {args.pace:g}", file=sys.stderr)
        return 2
    if args.target is not None and not 1 <= args.target <= 10_000:
        print(f"baloot demo: --target is 1 to 10000, not {args.target}", file=sys.stderr)
        return 2
    try:
        logins = tuple(normalise_login(x) for x in (args.login, args.organiser_login, args.referee_login))
        if args.password is not None:
            for login in logins:
                check_password(args.password, login)
    except Invalid as exc:
        print(f"baloot demo: {exc.detail}", file=sys.stderr)
        return 2
    if len(set(logins)) < len(logins):
        print("baloot demo: the person, the organiser and the referee need three logins", file=sys.stderr)
        return 2
    server = (Server(args.database_url, f"PostgreSQL at {redact(args.database_url)}", False)
              if args.database_url else database_server())
    print(f"baloot demo: database: {server.description}", file=sys.stderr, flush=True)
    seed = args.seed or secrets.token_hex(4)
    doc = asyncio.run(make_demo(server.url, seed, logins, args))
    doc["database"] = server.description
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        print_demo(doc)
    return 0


def new_password(length: int = 12) -> str:
    """A random password of letters and digits, none that reads like another (0 O, 1 l I)."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(length))


def _id(seed: str, n: int, what: str) -> str:
    return uuid.uuid5(NAMESPACE, f"demo/{seed}/{n}/{what}").hex[:16]


def _numbered(login: str, n: int) -> str:
    return login if n == 1 else f"{login}-{n}"


async def make_demo(url: str, seed: str, logins: tuple[str, ...], args: argparse.Namespace) -> dict:
    from services.db import connect
    from services.platform import Platform

    pool = await connect(url, min_size=1, max_size=2)
    try:
        platform = await Platform.on(pool)
        n, person, organiser, referee, caller = await _accounts(platform, seed, logins, args.password)
        championship = await _championship(platform, _id(seed, n, "championship"), n, organiser, args)
        table = await _table(platform, _id(seed, n, "table"), person, referee, args.pace)
        call = await _call(platform, _id(seed, n, "called"), caller, referee, args.pace)
    finally:
        await pool.close()
    base = args.base_url.rstrip("/")
    cid, tid = championship["championship_id"], table["table_id"]
    return {
        "demo": n, "seed": seed,
        "championship": championship,
        "table": table,
        "call": call,
        **{role: {"user_id": who.user_id, "login": who.login, "password": who.password}
           for role, who in (("player", person), ("organiser", organiser), ("referee", referee))},
        "links": {
            "organiser": f"{base}/organise/",
            "player": f"{base}/play/",
            "table": f"{base}/play/table.html?id={tid}",
            "referee": f"{base}/referee/",
            "championship": f"{base}/watch/championship.html?id={cid}",
            "watch": f"{base}/watch/",
        },
    }


async def _accounts(platform, seed: str, logins: tuple[str, ...], password: str | None
                    ) -> tuple[int, Person, Person, Person, Person]:
    """The demo's number (the first whose logins and ids are all free) and its four accounts: the person, the
    organiser and the referee, each with his platform role, and the player who calls the referee (his login
    is the person's with "-caller"; his random password is printed nowhere: he is part of the scene)."""
    from services.errors import Conflict
    from services.roles import grant

    for n in range(1, MAX_DEMOS + 1):
        names = [_numbered(login, n) for login in logins]
        names.append(f"{names[0]}-caller")
        if any([await platform.accounts.by_login(name) for name in names]):
            continue
        if (await platform.championships.load(_id(seed, n, "championship"), missing_ok=True)).version:
            continue                         # this seed's demo n was made, its accounts renamed since
        made = []
        try:
            for name, what in zip(names, ("player", "organiser", "referee", "caller")):
                secret = new_password(24) if what == "caller" else password or new_password()
                suffix = "" if n == 1 else f" {n}"
                account = await platform.accounts.create(name, secret, f"Demo {what}{suffix}", operator=True)
                made.append(Person(account.user_id, account.login, secret))
        except Conflict:                     # another demo took the login meanwhile: the next number
            continue
        person, organiser, referee, caller = made
        await grant(platform.pool, "platform", "", organiser.user_id, "organiser")
        await grant(platform.pool, "platform", "", referee.user_id, "referee")
        return n, person, organiser, referee, caller
    raise SystemExit(f"baloot demo: {MAX_DEMOS} demos exist already")


async def _championship(platform, cid: str, n: int, organiser: Person, args: argparse.Namespace) -> dict:
    """The championship of bot teams, up to its first round's tables, as its organiser would make it."""
    import msgspec

    from domain import games
    from domain.tournament import CreateChampionship, RegisterTeam, Settings, StartRound, TeamInfo
    from domain.tournament.events import RoundSlot
    from services.bots import team_bots
    from services.championships import RunSettings
    from services.roles import grant

    svc = platform.championships
    actor = organiser.user_id
    game = games.get(games.FIRST)
    profile = game.profile(None)
    target = args.target or getattr(profile, "target", None)
    now = await platform.pool.fetchval("SELECT now()")
    # A slot for round 1 (now) is the consent that lets the workers run the championship: the rounds after
    # the first start by themselves.
    settings = Settings(name="Demo cup" if n == 1 else f"Demo cup {n}", format="single_elimination",
                        profile=profile.name, game=game.info.name, schedule=(RoundSlot(1, now.isoformat()),),
                        **({"game_target": target} if target else {}))
    run = RunSettings(bot_level=BOT_LEVEL, bot_pace_seconds=args.pace)
    await svc.execute(cid, "demo/create", lambda _: [CreateChampionship(cid, settings)], actor=actor, new=True,
                      metadata={"run": msgspec.to_builtins(run)})
    await grant(platform.pool, "championship", cid, actor, "organiser")
    teams = []
    for team_id in TEAMS[:args.teams]:
        bots = await team_bots(platform.pool, cid, team_id, [0, 1])
        teams.append(RegisterTeam(team_id, (bots[0], bots[1]),
                                  info=TeamInfo(name=team_id.replace("-", " "), region=team_id.split("-")[0])))
    await svc.execute(cid, "demo/register", lambda c: [t for t in teams if t.team_id not in c.state.teams],
                      actor=actor)
    # Each step only if nobody took it yet (a running server's schedule may tick in between).
    await svc.execute(cid, "demo/registration/close", lambda c: svc.close_registration(cid, c)
                      if c.state.status == "registration" else [], actor=actor)
    await svc.execute(cid, "demo/draw", lambda c: [svc.make_draw(cid, c, {})] if c.state.status == "closed"
                      else [], actor=actor)
    _, champ = await svc.execute(cid, "demo/round-1/start", lambda c: [] if c.state.rounds else [StartRound(1)],
                                 actor=actor)
    await svc.matches.open_round_tables(cid, 1, actor)
    tables = [r["table_id"] for r in await svc.matches.tables_of(cid)]
    state = champ.state
    return {"championship_id": cid, "name": settings.name, "status": state.status, "round": len(state.rounds),
            "teams": [{"team_id": t.team_id, "players": list(t.players)} for t in teams],
            "draw_commitment": state.commitment, "tables": tables}


async def _table(platform, table_id: str, person: Person, referee: Person, pace: float) -> dict:
    """The person at seat 0 with three bots, proposed by the referee (who referees it, as the invitation's terms
    say): it waits in the person's lobby, nothing running, until he accepts it."""
    from services.bots import table_bot

    bot = await table_bot(platform.pool, BOT_LEVEL)
    # A turn clock once he plays, so that a table he leaves ends: each of his turns plays itself after
    # TURN_SECONDS, and after max_timeouts of them in a row the game is abandoned.
    opened = _opened(table_id, (person.user_id, bot, bot, bot), referee, pace, turn_seconds=TURN_SECONDS,
                     on_timeout="auto_play", timeout_bot_level=BOT_LEVEL)
    table = await platform.tables.propose_table(opened, {bot})
    return {"table_id": table_id, "status": "live" if table.opened else "invited", "seats": list(opened.seats),
            "bots": list(opened.bots), "waiting": list(table.waiting), "referee": referee.user_id}


async def _call(platform, table_id: str, caller: Person, referee: Person, pace: float) -> dict:
    """A table the referee proposed for the caller and three bots, where the caller called him: no turn clock,
    so the table waits at the caller's turn (he never plays) and the call waits at the desk."""
    from domain.table import CallReferee
    from services.bots import table_bot
    from services.tables import command_digest

    bot = await table_bot(platform.pool, BOT_LEVEL)
    opened = _opened(table_id, (caller.user_id, bot, bot, bot), referee, pace)
    await platform.tables.propose_table(opened, {caller.user_id, bot})
    reason, note = CALL
    command = CallReferee(seat=0, user=caller.user_id, reason=reason, note=note)
    outcome, table = await platform.tables.execute(table_id, "demo/call", lambda _: command, actor=caller.user_id,
                                                   role="player", digest=command_digest(command), seat=0)
    return {"table_id": table_id, "caller": caller.user_id, "call": table.calls[-1].call, "reason": reason,
            "note": note}


def _opened(table_id: str, seats: tuple[str, ...], referee: Person, pace: float, **terms):
    """A table of the demo's: the first game with its profile, three normal bots, proposed by the referee."""
    from domain import games
    from services.tables import TableOpened

    game = games.get(games.FIRST)
    return TableOpened(table_id=table_id, seats=seats, opened_by=referee.user_id,
                       bots=(None, BOT_LEVEL, BOT_LEVEL, BOT_LEVEL), bot_pace=pace, game=game.info.name,
                       **game.profile_fields(game.profile(None)), **terms)


def print_demo(doc: dict) -> None:
    c, links = doc["championship"], doc["links"]
    p, o, r = doc["player"], doc["organiser"], doc["referee"]
    width = max(len(p["login"]), len(o["login"]), len(r["login"]))
    print(f"Demo {doc['demo']} (seed {doc['seed']}) is ready. `baloot serve` plays it: start it if it is not "
          "running; its workers find the demo within a few seconds.")
    print()
    print(f"organiser  login {o['login']:<{width}}  password {o['password']}  organises {c['name']}")
    print(f"           {links['organiser']}")
    print(f"player     login {p['login']:<{width}}  password {p['password']}  a table with three {BOT_LEVEL} "
          f"bots waits in your lobby: accept it there to start ({TURN_SECONDS / 60:g} minutes a turn)")
    print(f"           {links['player']}")
    print(f"referee    login {r['login']:<{width}}  password {r['password']}  a call waits at your desk: a "
          "player has to leave")
    print(f"           {links['referee']}")
    print(f"spectator  no account needed: {c['name']}, {len(c['teams'])} bot teams, single elimination, "
          f"round {c['round']} under way")
    print(f"           {links['championship']}")
    print(f"           {links['watch']}")
