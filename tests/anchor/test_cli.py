"""`baloot verify`, `checkpoint`, `checkpoints --export` and `key`, run as a user would (subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import msgspec

from services.anchor import load_or_create_key
from services.anchor.keys import Signer
from services.db import schema_url
from tests.anchor.test_tamper import build_log, superuser


def baloot(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=60)


async def test_verify_prints_the_key_and_exits_by_what_it_found(pool, connect, database_url, db_schema, tmp_path):
    key_file = tmp_path / "signing-key.pem"
    signer = Signer.of(load_or_create_key(key_file))
    env = {"DATABASE_URL": schema_url(database_url, db_schema), "BALOOT_SIGNING_KEY_FILE": str(key_file)}
    receipts = await build_log(pool, signer, deals=2)
    (tmp_path / "receipts.json").write_bytes(msgspec.json.encode(receipts))

    key = baloot("key", env=env)
    assert key.returncode == 0 and signer.public_key_hex in key.stdout and signer.key_id in key.stdout

    clean = baloot("verify", "--json", env=env)
    assert clean.returncode == 0, clean.stderr
    report = json.loads(clean.stdout)
    assert (report["ok"], report["public_key"], report["key_id"]) == (True, signer.public_key_hex, signer.key_id)
    assert signer.public_key_hex in clean.stderr  # printed first, before the findings

    exported = tmp_path / "checkpoints.json"
    listing = baloot("checkpoints", "--export", str(exported), env=env)
    assert listing.returncode == 0 and "Exported 2 signed checkpoint(s)" in listing.stdout
    assert [c["size"] for c in json.loads(exported.read_text())] == [12, 24]

    conn = await superuser(connect)
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-c' AND version > 6")
    await conn.execute("DELETE FROM receipts WHERE stream_id = 'table-c'")
    await conn.execute("DELETE FROM checkpoints")
    found = baloot("verify", "--stream", "table-c", "--receipts", str(tmp_path / "receipts.json"),
                   "--checkpoints", str(exported), env=env)
    assert found.returncode == 1, found.stderr
    assert f"Public key (Ed25519): {signer.public_key_hex}" in found.stdout
    assert "[truncated] stream table-c ends at version 6 but the deal 2 receipt signed version 8" in found.stdout

    published = baloot("checkpoint", env=env)
    assert published.returncode == 0 and "Checkpoint #1: 22 events" in published.stdout


async def test_verify_refuses_bad_input(database_url, db_schema, tmp_path):
    env = {"DATABASE_URL": schema_url(database_url, db_schema),
           "BALOOT_SIGNING_KEY_FILE": str(tmp_path / "none.pem")}
    assert baloot("verify", env=env).returncode == 2  # no key: a new one would call every signature forged
    (tmp_path / "bad.json").write_text("[{\"stream\": 1}]")
    bad = baloot("verify", "--public-key", "ab" * 32, "--receipts", str(tmp_path / "bad.json"), env=env)
    assert bad.returncode == 2 and "bad.json" in bad.stderr
    assert baloot("verify", "--public-key", "xyz", env=env).returncode == 2
