"""The `baloot` command: one entry point, each group of subcommands in its own module."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module defines `register(subparsers)`; a subcommand sets `func(args) -> int` as its default.
COMMAND_MODULES = (
    "services.cli_engine",      # simulate, audit
    "services.cli_store",       # migrate (event store)
    "services.cli_tournament",  # tournament simulate
    "services.cli_serve",       # serve (the HTTP API)
    "services.cli_worker",      # worker, status
    "services.cli_anchor",      # verify, checkpoint, checkpoints, key (the anchored log)
    "services.cli_bots",        # bots match (duplicate matches between bot levels)
    "services.cli_daily",       # daily boards, simulate, leaderboard
    "services.cli_championship",  # championship rehearse (a whole championship on the live path)
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


if __name__ == "__main__":
    sys.exit(main())
