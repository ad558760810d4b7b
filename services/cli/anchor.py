"""`baloot verify`, `baloot checkpoint`, `baloot checkpoints`, `baloot key`: the anchored log (services/anchor)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import msgspec

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def register(subparsers: argparse._SubParsersAction) -> None:
    url_help = "PostgreSQL URL (default: $DATABASE_URL, else embedded)"

    verify = subparsers.add_parser(
        "verify", help="check the log against hash chains, signed receipts and signed checkpoints",
        description="Check every stream's hash chain, every receipt and every checkpoint (the database's "
                    "copies and any given files) and name each truncation, rewrite or missing event. "
                    "Exit 0 when clean, 1 when something is found, 2 on bad input.")
    verify.add_argument("--stream", help="check this stream only (checkpoints still cover the whole log)")
    verify.add_argument("--receipts", action="append", default=[], metavar="FILE",
                        help="receipts kept outside the database (JSON array); may be repeated")
    verify.add_argument("--checkpoints", action="append", default=[], metavar="FILE",
                        help="checkpoints exported earlier (`baloot checkpoints --export`); may be repeated")
    verify.add_argument("--public-key", metavar="HEX",
                        help="verify with this Ed25519 public key (default: the server's key file)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument("--database-url", help=url_help)
    verify.set_defaults(func=verify_command)

    publish = subparsers.add_parser("checkpoint", help="publish a signed checkpoint of the log now",
                                    description="Sign and store a checkpoint over every final event.")
    publish.add_argument("--database-url", help=url_help)
    publish.set_defaults(func=checkpoint_command)

    listing = subparsers.add_parser("checkpoints", help="list the signed checkpoints, or export them",
                                    description="List the stored checkpoints; --export saves them (JSON) "
                                                "for keeping outside the database.")
    listing.add_argument("--export", metavar="FILE", help="write the signed checkpoints to FILE")
    listing.add_argument("--database-url", help=url_help)
    listing.set_defaults(func=checkpoints_command)

    key = subparsers.add_parser("key", help="print the server's public signing key",
                                description="Print the Ed25519 public key (raw hex), its key id and where "
                                            "the private key file is (created on first use).")
    key.set_defaults(func=key_command)


def _server(database_url: str | None):
    from services.db import Server, database_server, redact

    if database_url:
        return Server(database_url, f"PostgreSQL at {redact(database_url)}", False)
    return database_server()


def _out(json_mode: bool):
    return sys.stderr if json_mode else sys.stdout


def key_command(args: argparse.Namespace) -> int:
    from services.anchor.keys import ALGORITHM, default_signer, signing_key_path

    signer = default_signer()
    print(f"Public key ({ALGORITHM}): {signer.public_key_hex}")
    print(f"Key id: {signer.key_id}")
    print(f"Private key file: {signing_key_path()}")
    return EXIT_CLEAN


def verify_command(args: argparse.Namespace) -> int:
    from services.anchor.checkpoints import load_checkpoints
    from services.anchor.keys import ALGORITHM, Signer, key_id_of, load_or_create_key, signing_key_path
    from services.anchor.receipts import load_receipts
    from services.anchor.verify import verify_log
    from services.db import create_pool

    out = _out(args.json)
    if args.public_key:
        public_key = args.public_key.strip().lower()
        try:
            if len(bytes.fromhex(public_key)) != 32:
                raise ValueError
        except ValueError:
            print(f"--public-key: not 32 bytes of hex: {args.public_key!r}", file=sys.stderr)
            return EXIT_BAD_INPUT
    else:
        path = signing_key_path()
        if not path.exists():  # a new key would make every signature look forged
            print(f"No signing key at {path}: pass --public-key (see GET /log/key) or set "
                  "BALOOT_SIGNING_KEY_FILE", file=sys.stderr)
            return EXIT_BAD_INPUT
        public_key = Signer.of(load_or_create_key(path)).public_key_hex
    try:
        receipts = [r for name in args.receipts for r in load_receipts(name)]
        checkpoints = [c for name in args.checkpoints for c in load_checkpoints(name)]
    except ValueError as exc:
        print(f"Cannot read {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT

    server = _server(args.database_url)
    print(f"Using {server.description}", file=out)
    print(f"Public key ({ALGORITHM}): {public_key}", file=out)
    print(f"Key id: {key_id_of(public_key)}", file=out)

    async def run():
        pool = await create_pool(server.url, min_size=1, max_size=2)
        try:
            return await verify_log(pool, public_key, stream=args.stream, receipts=receipts,
                                    checkpoints=checkpoints)
        finally:
            await pool.close()

    from services.cli.feedback import working

    try:
        with working(f"Verifying {'stream ' + args.stream if args.stream else 'the whole log'}…"):
            report = asyncio.run(run())
    except Exception as exc:  # no such database, or not migrated: not a finding about the log
        print(f"Cannot verify: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.stream and report.events == 0 and not report.findings:
        print(f"Cannot verify: the log has no stream {args.stream!r} (streams are named table-<id>, "
              "championship-<id>, …: see GET /tables/{id}/receipts)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(msgspec.json.encode({**msgspec.to_builtins(report), "ok": report.ok}).decode())
    else:
        scope = f"stream {report.stream}" if report.stream else f"{report.streams} streams"
        print(f"Checked {scope}, {report.events} events, {report.receipts} receipts, "
              f"{report.checkpoints} checkpoints; {report.unanchored_events} events after the last "
              "checkpoint are protected by their hash chains only")
        if report.ok:
            print("OK: no findings")
        else:
            print(f"{len(report.findings)} finding(s):")
            for finding in report.findings:
                print(f"  [{finding.kind}] {finding.message}")
    return EXIT_CLEAN if report.ok else EXIT_FINDINGS


def checkpoint_command(args: argparse.Namespace) -> int:
    from services.anchor.checkpoints import publish_checkpoint
    from services.anchor.keys import default_signer
    from services.db import connect

    server = _server(args.database_url)
    print(f"Using {server.description}")
    signer = default_signer()

    async def run():
        pool = await connect(server.url, min_size=1, max_size=2)
        try:
            return await publish_checkpoint(pool, signer)
        finally:
            await pool.close()

    checkpoint = asyncio.run(run())
    if checkpoint is None:
        print("No new events since the last checkpoint: nothing published")
    else:
        print(f"Checkpoint #{checkpoint.seq}: {checkpoint.size} events, root {checkpoint.root}, "
              f"signed by key {checkpoint.key_id}")
    return EXIT_CLEAN


def checkpoints_command(args: argparse.Namespace) -> int:
    from services.anchor.checkpoints import checkpoints
    from services.db import create_pool

    server = _server(args.database_url)
    print(f"Using {server.description}")

    async def run():
        pool = await create_pool(server.url, min_size=1, max_size=2)
        try:
            return await checkpoints(pool)
        finally:
            await pool.close()

    found = asyncio.run(run())
    for c in found:
        print(f"#{c.seq}  {c.created_at:%Y-%m-%d %H:%M:%S}  size {c.size}  root {c.root}  key {c.key_id}")
    if args.export:
        Path(args.export).write_bytes(msgspec.json.format(msgspec.json.encode(found)) + b"\n")
        print(f"Exported {len(found)} signed checkpoint(s) to {args.export}")
    return EXIT_CLEAN
