"""``baloot simulate`` and ``baloot audit``: the rules engine from the command line."""

from __future__ import annotations

import collections
import pathlib
import sys

import msgspec

from domain.baloot.deal import fold as fold_deal
from domain.games import record_format_of
from domain.baloot.handrecord import encode_record, export_record
from domain.baloot.profiles import PROFILES, profile_named
from domain.baloot.simulate import POLICIES, deal_events_of_game, play_game_events
from services.cli import positive


def register(subparsers) -> None:
    sim = subparsers.add_parser("simulate", help="play whole games with a simple legal policy")
    sim.add_argument("--deals", type=positive, default=100, help="number of deals to play (default 100)")
    sim.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    sim.add_argument("--profile", choices=sorted(PROFILES), default="saudi")
    sim.add_argument("--policy", choices=sorted(POLICIES), default="random")
    sim.add_argument("--table", dest="table_mode", choices=("strict", "recorded"), default="strict")
    sim.add_argument("--out", type=pathlib.Path, help="write each deal's hand record (baloot-hand/1) here")
    sim.set_defaults(func=simulate)

    aud = subparsers.add_parser("audit", help="replay a record (baloot-hand/1 or balut-game/1) and report")
    aud.add_argument("file", help="the record, or - for standard input; its `format` field says which game")
    aud.add_argument("--json", action="store_true", help="print the report as JSON")
    aud.set_defaults(func=audit)


def audit(args) -> int:
    """Exit 0 for a valid deal, 1 when violations were found, 2 for a malformed file."""
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else pathlib.Path(args.file).read_bytes()
    except OSError as exc:
        print(f"baloot audit: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        fmt = record_format_of(data)
        record = fmt.parse(data)
    except ValueError as exc:      # an unknown format, or the format's MalformedRecord
        print(f"baloot audit: {args.file}: malformed record: {exc}", file=sys.stderr)
        return 2
    report = fmt.audit(record)
    if args.json:
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(report), indent=2).decode() + "\n")
    else:
        print(fmt.render(report))
    return 0 if report.valid else 1


def simulate(args) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    profile = profile_named(args.profile)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    stats = collections.Counter()
    gp_total = [0, 0]
    err = Console(stderr=True)
    deals_done = 0
    game_seed = args.seed
    with Progress(console=err, transient=False) as progress:
        task = progress.add_task(f"{args.profile}: playing deals", total=args.deals)
        while deals_done < args.deals:
            state, events = play_game_events(game_seed, profile, args.policy, args.table_mode)
            stats["games"] += 1
            deals = deal_events_of_game(events)
            if deals_done + len(deals) <= args.deals:       # the whole game is counted: its winner too
                stats[f"games won by team {'AB'[state.winner]}"] += 1
            else:
                stats["games cut short by --deals"] += 1
            for deal_events in deals:
                if deals_done >= args.deals:
                    break
                deals_done += 1
                result = fold_deal(deal_events).result
                _count(stats, deal_events, result, gp_total)
                if args.out:
                    path = args.out / f"deal-{deals_done:06d}.json"
                    path.write_bytes(encode_record(export_record(deal_events)) + b"\n")
                progress.advance(task)
            game_seed += 1
    table = Table(title=f"baloot simulate: {deals_done} deals, profile {args.profile}, policy {args.policy}, "
                        f"seed {args.seed}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in sorted(stats):
        table.add_row(key, str(stats[key]))
    played = max(1, deals_done - stats["void deals"])
    table.add_row("average GP per played deal (A / B)", f"{gp_total[0] / played:.1f} / {gp_total[1] / played:.1f}")
    Console().print(table)
    if args.out:
        print(f"hand records written to {args.out}/")
    return 0


def _count(stats, deal_events, result, gp_total) -> None:
    from domain.baloot.events import ContractFixed
    if result.void:
        stats["void deals"] += 1
        return
    contract = next((e for e in deal_events if isinstance(e, ContractFixed)), None)
    if contract is not None:
        name = "Ashkal" if contract.ashkal else contract.kind.capitalize()
        stats[f"contracts: {name}"] += 1
    stats["failures (خسران)"] += result.failed
    stats["Kaboots (كبوت)"] += result.kaboot
    stats["Qayd verdicts"] += result.qayd is not None
    gp_total[0] += result.game_points[0]
    gp_total[1] += result.game_points[1]
