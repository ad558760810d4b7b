"""`baloot serve` is quiet by default: its start lines, then only warnings, however much its workers do (a demo's
bot tables played out in front of it); `--log-level info` adds a line per bot action and reconciler pass. Run
as a user runs it (a subprocess), stopped with Ctrl+C (SIGINT) once its workers have visibly worked."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys

import httpx

from services.cli import main
from services.db import schema_url

STARTS = ("baloot serve: ",)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def serve_while_bots_play(url: str, pool, *options: str) -> list[str]:
    """The server's output while the demo's bot tables add 150 events (its workers' doing, as nothing else
    runs), then Ctrl+C; a server that stops playing fails the test in a minute rather than hanging it."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "BALOOT_RECONCILE_SECONDS": "0.5"}
    env.pop("BALOOT_LOG_LEVEL", None)
    env.pop("BROKER_URL", None)                  # its own workers, in-process (as `baloot serve` runs by default)
    server = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "--port", str(port), *options],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            for _ in range(600):                         # until it answers (a failed start ends the loop)
                if server.poll() is not None:
                    break
                try:
                    if (await http.get("/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
        before = await pool.fetchval("SELECT count(*) FROM events")
        for _ in range(600):
            if server.poll() is not None or await pool.fetchval("SELECT count(*) FROM events") >= before + 150:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the server's workers stored fewer than 150 events in a minute")
    finally:
        server.send_signal(signal.SIGINT)
        out, _ = server.communicate(timeout=60)
    return out.splitlines()


async def test_serve_says_its_start_lines_and_then_nothing_while_bots_play_unless_asked(database_url, db_schema,
                                                                                        pool, capsys):
    url = schema_url(database_url, db_schema)
    assert await asyncio.to_thread(main, ["demo", "--database-url", url, "--pace", "0", "--teams", "16"]) == 0
    capsys.readouterr()
    quiet = await serve_while_bots_play(url, pool)
    assert [line for line in quiet if not line.startswith(STARTS)] == [], quiet
    assert any("pages: play at" in line for line in quiet)
    chatty = await serve_while_bots_play(url, pool, "--log-level", "info")
    assert any("bots from version" in line for line in chatty), chatty[:20]
