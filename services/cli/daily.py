"""``baloot daily``: a set's boards from its seed (to check a closed set), a day played in memory, and a
server's leaderboard (docs/daily.md)."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt

from domain.baloot.bots import LEVELS
from services.cli import day, positive


def register(subparsers) -> None:
    parser = subparsers.add_parser("daily", help="the daily deal: boards, a simulated day, leaderboards")
    commands = parser.add_subparsers(dest="daily_command", required=True)
    boards = commands.add_parser("boards", help="a set's commitment and boards from its (revealed) seed")
    boards.add_argument("--seed", required=True, help="the set's seed (GET /daily/{day}/{profile} once closed)")
    boards.add_argument("--boards", type=positive, default=8, help="boards in the set (default 8)")
    boards.set_defaults(func=boards_command)
    sim = commands.add_parser("simulate", help="play a day's boards in memory (bots for the players) and rank")
    sim.add_argument("--players", type=positive, default=20, help="simulated players (default 20)")
    sim.add_argument("--boards", type=positive, default=8, help="boards in the set (default 8)")
    sim.add_argument("--seed", default="1", help="the set's seed (the players' choices derive from it too)")
    sim.add_argument("--level", default="normal", choices=LEVELS)
    sim.add_argument("--scoring", default="mp", choices=("mp", "imps"))
    sim.add_argument("--top", type=positive, default=10, help="leaderboard rows to print (default 10)")
    sim.set_defaults(func=simulate_command)
    board = commands.add_parser("leaderboard", help="a day's leaderboard from a server's database")
    board.add_argument("--day", type=day, default=None, help="YYYY-MM-DD (default: today, UTC)")
    board.add_argument("--profile", default="saudi")
    board.add_argument("--scoring", default="mp", choices=("mp", "imps"))
    board.add_argument("--after", type=int, default=0, help="ranks after this one")
    board.add_argument("--limit", type=positive, default=20, help="rows per page (default 20)")
    board.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    board.set_defaults(func=leaderboard_command)


def boards_command(args: argparse.Namespace) -> int:
    from domain.baloot import daily
    from domain.baloot.cards import card_name

    opened = daily.open_set("cli", args.seed, args.boards)
    print(f"commitment {opened.commitment}")
    for b in daily.boards("cli", args.seed, args.boards):
        print(f"board {b.number}: dealer seat {b.dealer}, seed {b.seed}, deck {' '.join(map(card_name, b.deck))}")
    return 0


def simulate_command(args: argparse.Namespace) -> int:
    from domain.baloot import daily
    from domain.baloot.daily_play import SimulatedPlayer, play_board

    from services.cli.feedback import counted

    fields: dict[int, dict[str, int]] = {}
    finished: dict[str, int] = {}
    step = 0
    with counted(f"{args.players} players × {args.boards} boards", args.players * args.boards) as done:
        for p in range(args.players):
            player = SimulatedPlayer(args.level, f"{args.seed}:player:{p}")
            for b in daily.boards("simulated", args.seed, args.boards):
                fields.setdefault(b.number, {})[f"player {p}"] = daily.margin(play_board(b, player, args.level), 0)
                step += 1
                done()
            finished[f"player {p}"] = step
    table = daily.rank(daily.score_day(fields, finished), args.scoring)
    print(f"{'rank':>4}  {'player':<12} {'MP %':>7} {'IMPs':>5}")
    for k, s in enumerate(table[:args.top], 1):
        print(f"{k:>4}  {s.entry:<12} {100 * s.mp / (daily.MP_UNIT * s.boards):>7.2f} {s.imps:>5}")
    return 0


def leaderboard_command(args: argparse.Namespace) -> int:
    import asyncpg

    from services.accounts import user_names
    from services.daily.projection import leaderboard
    from services.db import database_server

    url = args.database_url or database_server().url
    on = args.day or dt.datetime.now(dt.timezone.utc).date()

    async def run():
        pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
        try:
            page = await leaderboard(pool, on, args.profile, scoring=args.scoring, after=args.after,
                                     limit=args.limit)
            return page, await user_names(pool, [r.user_id for r in page.rows])
        finally:
            await pool.close()

    page, names = asyncio.run(run())
    print(f"{'rank':>6}  {'player':<34} {'MP':>8} {'IMPs':>5} {'boards':>6}")
    for r in page.rows:
        print(f"{r.rank:>6}  {names.get(r.user_id, r.user_id)[:34]:<34} {r.mp / daily_unit():>8.2f} {r.imps:>5} "
              f"{r.boards:>6}")
    if page.next_after is not None:
        print(f"next page: --after {page.next_after}")
    return 0


def daily_unit() -> int:
    from domain.baloot.daily import MP_UNIT
    return MP_UNIT // 100            # printed as percent of a board
