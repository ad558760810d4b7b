"""``baloot fairplay``: the fair-play analysis of card play (domain/baloot/fairplay.py).

* ``baloot fairplay RECORD…``: over hand records (baloot-hand/1), offline: for each seat, its telling
  decisions, how many followed the true hands (``--variant true``), his partner's hand (``partner``) or, for
  bids and doubles, the true deal (``bids``), and the evidence against an honest player of his own strength,
  exactly as the platform's reports judge it (``judge``: the same deals give the same answer). Records carry no
  board sharing, so the ``shared`` variant is the platform's only.
* ``baloot fairplay --championship ID [--player USER]`` or ``--player USER``: from the log (DATABASE_URL, else
  the embedded server): the read model brought up to date (the deals the workers have not analysed yet are
  analysed here), then the championship's report (services/fairplay/report.py), or one player's with each
  telling decision and its replay.

A flag is a reason to look at the replays, never a verdict."""

from __future__ import annotations

import argparse
import pathlib
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("fairplay", help="does a seat play as if it saw the hidden cards? (records)",
                                   description=__doc__)
    parser.add_argument("records", nargs="*", type=pathlib.Path, help="hand records (baloot-hand/1), or folders")
    parser.add_argument("--championship", help="report on this championship's players, from the log")
    parser.add_argument("--player", help="report on this player (in --championship, else everywhere), from the log")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    parser.add_argument("--limit", type=int, default=20, help="players listed in a championship's report")
    parser.add_argument("--seat", type=int, choices=range(4), help="judge this seat only (the others are the "
                                                                   "honest baseline)")
    parser.add_argument("--samples", type=int, default=16, help="deals of the hidden cards per decision (16, as "
                                                                "the platform's analyser)")
    parser.add_argument("--seed", type=int, default=0, help="the analysis' seed (the same seed, the same report)")
    parser.add_argument("--level", type=float, default=0.01,
                        help="the chance of any false flag among the seats judged, at most (default 0.01)")
    parser.add_argument("--variant", choices=("true", "partner", "bids"), default="true",
                        help="judge cards following the true hands (a ghost), or the partner's hand (a colluding "
                             "pair), or bids and doubles following the true hands")
    parser.set_defaults(func=fairplay_command)


def _files(paths) -> list[pathlib.Path]:
    return sorted(f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p]))


def fairplay_command(args: argparse.Namespace) -> int:
    if args.championship or args.player:
        if args.records:
            print("baloot fairplay: hand records, or --championship/--player from the log, not both", file=sys.stderr)
            return 2
        return from_log(args)
    if not args.records:
        print("baloot fairplay: name hand records, or --championship/--player", file=sys.stderr)
        return 2
    from domain.baloot.fairplay import analyse_deal, judge, record_events, threshold
    from domain.baloot.handrecord import MalformedRecord, parse_record

    decisions = []
    seats = (args.seat,) if args.seat is not None else (0, 1, 2, 3)
    kinds = ("bid", "double") if args.variant == "bids" else ("card",)      # what the variant judges
    for path in _files(args.records):
        try:
            decisions += analyse_deal(record_events(parse_record(path.read_bytes())), args.seed, args.samples,
                                      seats=seats, kinds=kinds)
        except (OSError, MalformedRecord, ValueError) as exc:
            print(f"baloot fairplay: {path}: {exc}", file=sys.stderr)
            return 2
    print(f"{'seat':>4} {'decisions':>9} {'telling':>7} {'followed':>8} {'expected':>8} {'gain GP':>7} "
          f"{'evidence':>8} {'line':>5}")
    flagged = False
    for seat in seats:
        mine = [d for d in decisions if d.seat == seat]
        e = judge(mine, args.variant, args.level, len(seats))
        flagged |= e.flagged
        print(f"{seat:>4} {len(mine):>9} {e.telling:>7} {e.followed:>8} {e.expected:>8.1f} {e.gain:>7.1f} "
              f"{e.evidence:>8.2f} {threshold(args.level, len(seats)):>5.2f}"
              f"{'  FLAGGED: look at the replays' if e.flagged else ''}")
    return 1 if flagged else 0


def from_log(args: argparse.Namespace) -> int:
    import asyncio

    from services.cli.feedback import working
    from services.db import connect, database_server
    from services.eventstore import ProjectionRunner
    from services.eventstore.migrations import migrate
    from services.fairplay import report
    from services.fairplay.analyser import FairPlayAnalyser
    from services.fairplay.projection import fairplay_read_model
    from services.platform import Platform

    async def run():
        pool = await connect(args.database_url or database_server().url, min_size=1, max_size=4)
        try:
            await migrate(pool)
            try:           # the workers may hold the projection: then they keep it up to date
                await asyncio.wait_for(ProjectionRunner(pool, fairplay_read_model()).catch_up(), 30)
            except TimeoutError:
                pass
            analyser = FairPlayAnalyser(pool, (await Platform.on(pool)).tables, seed=None, backfill=False)
            try:
                while await analyser.run_once():
                    pass
            finally:
                await analyser.close()
            if args.player:
                return await report.player_report(pool, args.player, args.championship, level=args.level)
            return await report.championship_report(pool, args.championship, level=args.level, limit=args.limit)
        finally:
            await pool.close()

    with working("Analysing the deals not analysed yet…"):
        out = asyncio.run(run())
    scope = " in ".join(x for x in (args.player and f"player {args.player}",
                                    args.championship and f"championship {args.championship}") if x)
    print(f"baloot fairplay: {scope}: {out.deals_analysed} deals analysed, {out.deals_failed} not analysable; "
          f"shares followed: true hands {out.baseline['true']:.3f}, partner's hand {out.baseline['partner']:.3f}; "
          f"a flag needs evidence {out.players[0].true.threshold if out.players else 0:.2f}")
    if not out.players:
        print(f"baloot fairplay: no analysed deal has {args.player!r} in a seat", file=sys.stderr)
        return 2
    print(f"{'player':<28} {'deals':>5} {'choices':>7} {'true':>11} {'evid.':>8} {'partner':>11} {'evid.':>8} "
          f"{'shared':>11} {'evid.':>8} {'bids':>11} {'evid.':>8}")
    for p in out.players:
        cells = "".join(f" {f'{s.followed}/{s.telling}':>11} {s.evidence:>8.2f}"
                        for s in (p.true, p.partner, p.shared, p.bids))
        print(f"{p.name[:28]:<28} {p.deals:>5} {p.decisions:>7}{cells}{'  FLAGGED: look at the replays' if p.flagged else ''}")
        if args.player:
            for t in p.most_telling:
                partner = f", partner's hand: {t.partner_best}" if t.partner_best else ""
                when = f"trick {t.trick}" if t.kind == "card" else t.kind
                print(f"    deal {t.deal_no} {when}: played {t.played} (honest best {t.honest_best}, true "
                      f"hands: {t.true_best}{partner}; the honest best loses {t.loss:g} GP; followed "
                      f"{t.followed or 'neither'}) {t.replay}")
    print(report.SANCTION)
    return 1 if any(p.flagged for p in out.players) else 0
