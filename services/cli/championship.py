"""`baloot championship rehearse`: a whole championship of bot teams on the live path, then its checks; and
the organiser's commands against a server (``services/cli/organise.py``)."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys

import msgspec

from services.cli import organise
from services.cli.tournament import FORMAT_ALIASES


def register(subparsers) -> None:
    parser = subparsers.add_parser("championship", help="championships on the live path")
    commands = parser.add_subparsers(dest="championship_command", required=True)
    r = commands.add_parser("rehearse", help="rehearse a championship of bot teams on the real stack, then check it",
                            description="Creates a championship of --teams bot teams in a scratch schema of the "
                                        "database (DATABASE_URL, else the embedded server), lets the workers run "
                                        "it (worker processes on RabbitMQ when BROKER_URL is set, else in this "
                                        "process) and checks the end state; exits 1 if a check fails.")
    r.add_argument("--teams", type=int, required=True, help="number of teams of two bots")
    r.add_argument("--format", default="knockout", choices=sorted(FORMAT_ALIASES))
    r.add_argument("--seed", default=None, help="the rehearsal's seed: the draw and every deal derive from it "
                                                "(default: a random one, printed)")
    r.add_argument("--bots", default="normal", choices=("easy", "normal"))
    r.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    r.add_argument("--processes", type=int, default=1, help="worker processes (RabbitMQ only)")
    r.add_argument("--threads", type=int, default=8, help="threads per worker process (default 8)")
    r.add_argument("--target", type=int, default=152, help="the games' target")
    r.add_argument("--budget", type=float, default=None, help="give up after this many seconds")
    r.add_argument("--keep", action="store_true", help="keep the scratch schema (its name is printed)")
    r.add_argument("--no-baselines", dest="baselines", action="store_false",
                   help="skip the baselines measured before the workers start (the store's batch appends alone, "
                        "the engine and bots in memory), against which the run's events/s are set")
    r.set_defaults(func=rehearse)
    organise.register(commands)


def rehearse(args: argparse.Namespace) -> int:
    from rich.console import Console

    err = Console(stderr=True)
    if args.teams < 2:
        err.print("[red]--teams must be at least 2[/red]")
        return 2
    try:
        report, schema = asyncio.run(_rehearse(args, err))
    except (TimeoutError, RuntimeError) as exc:
        err.print(f"[red]rehearsal failed: {exc}[/red]")
        return 1
    if args.json:
        ratios = report.ratios()
        doc = {**msgspec.to_builtins(report), "ok": report.ok, "schema": schema if args.keep else None,
               "ratios": None if ratios is None else {"appends": ratios[0], "in_memory": ratios[1]}}
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
    else:
        _print_report(Console(), report, schema if args.keep else None)
    return 0 if report.ok else 1


async def _rehearse(args, err):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from services.db import database_server
    from services.workers.rehearsal import Rehearsal

    seed = args.seed or secrets.token_hex(4)
    os.environ.setdefault("BALOOT_LOG_LEVEL", "WARNING")        # in-process workers: the progress, not their log
    server = database_server()
    broker = os.environ.get("BROKER_URL") or None
    fmt = FORMAT_ALIASES[args.format]
    async with Rehearsal(server.url, args.teams, format=fmt, seed=seed, bots=args.bots, broker_url=broker,
                         processes=args.processes, threads=args.threads, game_target=args.target,
                         keep=args.keep, baselines=args.baselines) as rehearsal:
        if not args.json:
            err.print(f"rehearsal of {args.teams} teams ({fmt.replace('_', ' ')}, {args.bots} bots, seed {seed}); "
                      f"database: {server.description}, schema {rehearsal.schema}; "
                      f"{'RabbitMQ at ' + broker.split('@')[-1] if broker else 'in-process broker'}")
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                      console=err, transient=args.json, disable=args.json) as bar:
            overall = bar.add_task("all matches", total=max(args.teams - 1, 1), rate="")
            rounds: dict[int, int] = {}
            last = {"events": 0, "seconds": 0.0}

            def show(p) -> None:
                if not err.is_terminal and p.seconds - last.get("logged", -60.0) >= 10:    # a log, not a tty
                    last["logged"] = p.seconds
                    err.print(f"{p.seconds:7.0f}s {p.status}: round {p.round}/{p.rounds or '?'} "
                              f"{p.round_done}/{p.round_total} games; all {p.matches_done}/{p.matches_total}; "
                              f"{p.events:,} events", highlight=False)
                dt = p.seconds - last["seconds"]
                rate = (p.events - last["events"]) / dt if dt > 0 and last["seconds"] else 0.0
                last.update(events=p.events, seconds=p.seconds)
                bar.update(overall, completed=p.matches_done, total=p.matches_total,
                           rate=f"{p.events:,} events, {rate:,.0f}/s")
                if p.round and p.round not in rounds:
                    for earlier in rounds.values():             # a round ends before the next one starts
                        bar.update(earlier, completed=bar.tasks[earlier].total, rate="done")
                    of = f"/{p.rounds}" if p.rounds else ""
                    rounds[p.round] = bar.add_task(f"round {p.round}{of}", total=p.round_total, rate="")
                if p.round:
                    bar.update(rounds[p.round], completed=p.round_done, total=p.round_total,
                               rate=f"{p.status}")

            report = await rehearsal.run(show, every=1.0, budget=args.budget)
        return report, rehearsal.schema


def _print_report(console, report, schema) -> None:
    from rich.table import Table

    console.print(f"[bold]champion:[/bold] {report.champion}  ({report.teams} teams, {report.rounds} rounds, "
                  f"{report.games} games; {report.workers})")
    console.print(f"wall time {report.wall_seconds:.1f}s (checks {report.checks_seconds:.1f}s more); "
                  f"{report.events:,} events stored, {report.events_per_second:,.0f} events/s; "
                  f"{report.bot_actions:,} bot actions, {report.bot_actions_per_second:,.0f}/s")
    ratios, b = report.ratios(), report.baselines
    if ratios is not None:
        console.print(f"against the same machine, measured before the workers started: the store's batch appends "
                      f"alone {b.appends_per_second:,.0f} events/s (x{ratios[0]:.2f}); the engine and bots in "
                      f"memory {b.in_memory_per_core:,.0f} events/s a core, {b.in_memory_per_core * b.cores:,.0f} "
                      f"on {b.cores} cores (x{ratios[1]:.2f})", highlight=False)
    table = Table(title="checks")
    for column in ("check", "", "detail", "s"):
        table.add_column(column)
    for c in report.checks:
        table.add_row(c.name, "[green]ok[/green]" if c.ok else "[red]FAILED[/red]", c.detail, f"{c.seconds:.1f}")
    console.print(table)
    if schema:
        console.print(f"kept in schema {schema}")
