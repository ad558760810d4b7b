"""``baloot bots match``: two bot levels in a duplicate match, boards played in parallel processes."""

from __future__ import annotations

import concurrent.futures
import functools
import os
import time

from domain.baloot.bots import LEVELS
from domain.baloot.bots.match import CEILING, BoardResult, Summary, play_board, summarize
from domain.baloot.profiles import PROFILES, profile_named
from services.cli import positive


def register(subparsers) -> None:
    bots = subparsers.add_parser("bots", help="bot levels: duplicate matches")
    sub = bots.add_subparsers(dest="bots_command", required=True)
    match = sub.add_parser("match", help="level a against level b in duplicate: each board twice, teams swapped")
    players = (*LEVELS, CEILING)
    match.add_argument("--a", choices=players, default="hard",
                       help="the level measured (default hard; ceiling: the all-seeing player, every card seen)")
    match.add_argument("--b", choices=players, default="normal", help="its opponent (default normal)")
    match.add_argument("--bidder", choices=players, default=None,
                       help="a level that bids and doubles for all four seats: the match then measures card play")
    match.add_argument("--boards", type=positive, default=100, help="number of boards (default 100)")
    match.add_argument("--seed", default="1", help="seed of the boards (default 1)")
    match.add_argument("--games", action="store_true", help="a board is a whole game to the target, not a deal")
    match.add_argument("--profile", choices=sorted(PROFILES), default="saudi")
    match.add_argument("--jobs", type=positive, default=os.cpu_count() or 1, help="parallel processes")
    match.set_defaults(func=match_command)


def run_match(a: str, b: str, boards: int, seed: str, *, games: bool = False, profile: str = "saudi",
              jobs: int = 1, done=lambda: None, bidder: str | None = None) -> list[BoardResult]:
    """The boards' results, played in ``jobs`` processes (one: in this process), each decision timed;
    ``done()`` after each board (a progress bar); ``bidder``: the level bidding for every seat."""
    play = functools.partial(_board, a, b, seed, games, profile, bidder)
    out = []
    if jobs <= 1:
        for i in range(boards):
            out.append(play(i))
            done()
        return out
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        for result in pool.map(play, range(boards), chunksize=max(1, boards // (8 * jobs))):
            out.append(result)
            done()
    return out


def _board(a: str, b: str, seed: str, games: bool, profile: str, bidder: str | None, board: int) -> BoardResult:
    return play_board(a, b, board, seed, games=games, profile=profile_named(profile), clock=time.perf_counter,
                      bidder=bidder)


def render(a: str, b: str, summary: Summary, what: str) -> str:
    s = summary
    lines = [
        f"{a} vs {b}: {s.boards} boards ({what}), each played twice with the teams swapped",
        f"mean GP margin per board ({a} minus {b}, both tables): {s.mean:+.2f}, "
        f"95% CI [{s.low:+.2f}, {s.high:+.2f}]",
        f"boards won by {a}: {100 * s.won:.1f}% (tied {100 * s.tied:.1f}%, lost {100 * (1 - s.won - s.tied):.1f}%)",
    ]
    for level, (p50, p95, top, n) in s.times.items():
        lines.append(f"decision time {level}: p50 {1000 * p50:.2f} ms, p95 {1000 * p95:.2f} ms, "
                     f"max {1000 * top:.2f} ms ({n} decisions)")
    return "\n".join(lines)


def match_command(args) -> int:
    from services.cli.feedback import counted

    with counted(f"{args.a} vs {args.b}: boards played", args.boards) as done:
        results = run_match(args.a, args.b, args.boards, args.seed, games=args.games, profile=args.profile,
                            jobs=args.jobs, done=done, bidder=args.bidder)
    what = "games to the target" if args.games else "deals"
    if args.bidder:
        what += f", {args.bidder} bidding for all four seats"
    print(render(args.a, args.b, summarize(results), what))
    return 0
