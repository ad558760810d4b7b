"""The `baloot` command: one entry point, each group of subcommands in its own module."""

from __future__ import annotations

import argparse
import importlib

# Each module defines `register(subparsers)`; a subcommand sets `func(args) -> int` as its default.
COMMAND_MODULES = (
    "services.cli.engine",      # simulate, audit
    "services.cli.store",       # migrate (event store)
    "services.cli.tournament",  # tournament simulate
    "services.cli.serve",       # serve (the HTTP API)
    "services.cli.worker",      # worker, status
    "services.cli.anchor",      # verify, checkpoint, checkpoints, key (the anchored log)
    "services.cli.bots",        # bots match (duplicate matches between bot levels)
    "services.cli.daily",       # daily boards, simulate, leaderboard
    "services.cli.championship",  # championship rehearse (a whole championship on the live path)
    "services.cli.account",     # account grant, revoke (roles on a person's account)
    "services.cli.demo",        # demo (a championship, a table and accounts for `baloot serve` to show)
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baloot", description="Saudi Baloot championships platform")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)

