"""``baloot fairplay RECORD…``: the fair-play analysis of card play (domain/baloot/fairplay.py) over hand
records (baloot-hand/1), offline: for each seat, its telling decisions, how many followed the true hands, and
the one-sided binomial p-value against the honest share (``--baseline``, else the other seats' share in the
same records). A flag is a reason to look at the replays, never a verdict."""

from __future__ import annotations

import argparse
import pathlib
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("fairplay", help="does a seat play as if it saw the hidden cards? (records)",
                                   description=__doc__)
    parser.add_argument("records", nargs="+", type=pathlib.Path, help="hand records (baloot-hand/1), or folders")
    parser.add_argument("--seat", type=int, choices=range(4), help="judge this seat only (the others are the "
                                                                   "honest baseline)")
    parser.add_argument("--baseline", type=float, help="the honest share of telling decisions that follow the "
                                                       "true best (default: measured on the other seats)")
    parser.add_argument("--samples", type=int, default=24, help="deals of the hidden cards per decision")
    parser.add_argument("--seed", type=int, default=0, help="the analysis' seed (the same seed, the same report)")
    parser.add_argument("--level", type=float, default=0.001, help="flag below this p-value (default 0.001)")
    parser.add_argument("--variant", choices=("true", "partner"), default="true",
                        help="judge following the true hands (a ghost), or the partner's hand (a colluding pair)")
    parser.set_defaults(func=fairplay_command)


def _files(paths) -> list[pathlib.Path]:
    return sorted(f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p]))


def fairplay_command(args: argparse.Namespace) -> int:
    from domain.baloot.fairplay import analyse_deal, flag, honest_share, record_events
    from domain.baloot.handrecord import MalformedRecord, parse_record

    decisions = []
    for path in _files(args.records):
        try:
            decisions += analyse_deal(record_events(parse_record(path.read_bytes())), args.seed, args.samples)
        except (OSError, MalformedRecord, ValueError) as exc:
            print(f"baloot fairplay: {path}: {exc}", file=sys.stderr)
            return 2
    seats = [args.seat] if args.seat is not None else range(4)
    print(f"{'seat':>4} {'decisions':>9} {'telling':>7} {'followed':>8} {'share':>6} {'baseline':>8} {'p-value':>9}")
    flagged = False
    for seat in seats:
        mine = [d for d in decisions if d.seat == seat]
        baseline = args.baseline if args.baseline is not None else honest_share(
            [d for d in decisions if d.seat != seat], args.variant)
        f = flag(mine, baseline, args.level, args.variant)
        flagged |= f.flagged
        print(f"{seat:>4} {len(mine):>9} {f.telling:>7} {f.followed_true:>8} {f.share:>6.2f} {baseline:>8.2f} "
              f"{f.p_value:>9.2g}{'  FLAGGED: look at the replays' if f.flagged else ''}")
    return 1 if flagged else 0
