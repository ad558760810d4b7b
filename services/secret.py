"""The server secret that deal seeds, first dealers and draw seeds derive from (HMAC): kept outside the database.

Whoever holds it can derive the cards of every live deal, so it never sits beside the log: a reader of the
database sees commitments during play, and the seeds only once each deal has ended. Where it comes from:

* ``BALOOT_SECRET`` (any text, used as its UTF-8 bytes): for deployments, shared by every API and worker
  process from their configuration (a Kubernetes Secret, say);
* else ``BALOOT_SECRET_FILE``, or by default the file ``server-secret`` beside the embedded database's data,
  created on first run (mode 0600), so a newcomer's ``baloot serve`` works with no setup.

Earlier versions kept the secret in the ``server_secret`` table. At startup that secret is adopted (written
to the file when no secret is configured yet) and removed from the database; deals dealt before keep their
seeds. If a different secret is configured, the server refuses to start rather than strand live deals.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import asyncpg

from services.db import DATA_DIR


class SecretConflict(RuntimeError):
    """The database still holds the old secret and another one is configured."""


def secret_path(env=os.environ) -> Path:
    return Path(env.get("BALOOT_SECRET_FILE") or DATA_DIR / "server-secret").expanduser()


def configured_secret(env=os.environ) -> bytes | None:
    """The configured secret, or None when none is configured and its file does not exist yet."""
    text = env.get("BALOOT_SECRET")
    if text:
        return text.encode()
    path = secret_path(env)
    return path.read_bytes() if path.exists() else None


def _write_secret(path: Path, secret: bytes) -> bytes:
    """Create the secret file once (O_EXCL: two processes starting together agree on one secret)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as f:
        f.write(secret)
    return secret


async def server_secret(pool: asyncpg.Pool | asyncpg.Connection, env=os.environ) -> bytes:
    """The server secret (see the module docstring), adopting and removing a secret left in the database."""
    secret = configured_secret(env)
    legacy = await pool.fetchval("SELECT secret FROM server_secret") if await pool.fetchval(
        "SELECT to_regclass('server_secret') IS NOT NULL") else None
    if legacy is not None:
        if secret is None:
            secret = _write_secret(secret_path(env), bytes(legacy))
        if secret != bytes(legacy):
            raise SecretConflict(
                "the database still holds the server secret of an earlier version, and another one is "
                f"configured: put the old one in {secret_path(env)} (or BALOOT_SECRET) so that live deals "
                "keep their seeds, or empty the server_secret table to give them up")
        await pool.execute("DELETE FROM server_secret")
    if secret is None:
        secret = _write_secret(secret_path(env), secrets.token_hex(32).encode())
    return secret
