"""`baloot ratings rebuild`: the players' ratings recomputed from zero over the whole log (what the workers
keep as play goes on: the same rows), then the game's top players printed."""

from __future__ import annotations

import argparse
import asyncio


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ratings", help="players' ratings: rebuild them from the log",
                                   description="The players' ratings (openskill) are a read model of the "
                                               "championships' results; rebuild it from zero (DATABASE_URL, "
                                               "else the embedded server).")
    actions = parser.add_subparsers(dest="action", required=True)
    rebuild = actions.add_parser("rebuild", help="recompute every rating from the log")
    rebuild.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    rebuild.add_argument("--top", type=int, default=10, help="how many of the best players to print (default 10)")
    rebuild.set_defaults(func=rebuild_command)


def rebuild_command(args: argparse.Namespace) -> int:
    from services.cli.feedback import working
    from services.db import connect, database_server
    from services.eventstore import rebuild_projection
    from services.ratings import RATED_GAMES, READ_MODELS, leaderboard

    async def run():
        pool = await connect(args.database_url or database_server().url, min_size=1, max_size=2)
        try:
            checkpoint = max([await rebuild_projection(pool, make()) for make in READ_MODELS])
            rated = await pool.fetchval("SELECT count(*) FROM ratings")
            updates = await pool.fetchval("SELECT count(*) FROM ratings_updates")
            tops = {game: await leaderboard(pool, game, None, args.top) for game in RATED_GAMES}
            return checkpoint, rated, updates, tops
        finally:
            await pool.close()

    with working("Rebuilding the ratings from the log…"):
        checkpoint, rated, updates, tops = asyncio.run(run())
    print(f"baloot ratings: rebuilt to position {checkpoint.position}: {rated} ratings, {updates} updates")
    for game, rows in tops.items():
        for r in rows:
            print(f"{game:>8} {r.rank:>4}. {r.name:<30} {r.ordinal:7.2f}  (mu {r.mu:.2f}, sigma {r.sigma:.2f}, "
                  f"{r.games} games)")
    return 0
