"""The `baloot` command: one entry point, each group of subcommands in its own module."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import sys

# Each module defines `register(subparsers)`; a subcommand sets `func(args) -> int` as its default.
COMMAND_MODULES = (
    "services.cli.engine",      # simulate, audit
    "services.cli.fairplay",    # fairplay (hand records, offline)
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
    "services.cli.ratings",     # ratings rebuild (the players' ratings from the log)
)


class Parser(argparse.ArgumentParser):
    """A refused command line is one line (what was wrong, and where to read more), exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def positive(text: str) -> int:
    """An argument that counts something: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not a count: give 1 or more")
    return n


def day(text: str) -> dt.date:
    """An argument naming a day: YYYY-MM-DD."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day: write it YYYY-MM-DD, e.g. "
                                         f"{dt.date.today().isoformat()}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="baloot", description="Saudi Baloot championships platform")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader went away (`baloot audit FILE | head`): what is left to print goes nowhere, quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0

