"""The embedded PostgreSQL stops when the last process of ours using it exits, however that process ends.

Each test runs real processes that join the embedded server in a temporary data directory (never the
user's own), and looks at the postgres process itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent

# A process of ours: joins the server, says so, then waits for its stdin to close (or for a signal).
USER = """
import sys
from pathlib import Path
from services.db import embedded_server
embedded_server(Path(sys.argv[1]))
print("joined", flush=True)
sys.stdin.read()
"""


@pytest.fixture(scope="module")
def pgdata():
    with tempfile.TemporaryDirectory(prefix="baloot-embedded-", ignore_cleanup_errors=True) as tmp:
        yield Path(tmp) / "pgdata"


def start_user(pgdata: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", USER, str(pgdata)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "joined\n", "the process did not join the embedded server"
    return proc


def postmaster(pgdata: Path) -> psutil.Process | None:
    """The running postgres of ``pgdata``, or None."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
        proc = psutil.Process(pid)
    except (FileNotFoundError, IndexError, ValueError, psutil.Error):
        return None
    return proc if proc.status() != psutil.STATUS_ZOMBIE else None


def gone(proc: psutil.Process, timeout: float = 15) -> bool:
    try:
        proc.wait(timeout)
    except psutil.TimeoutExpired:
        return False
    return True


def leave(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    proc.wait(30)


def test_the_server_stops_when_its_only_user_exits(pgdata):
    user = start_user(pgdata)
    server = postmaster(pgdata)
    assert server is not None
    leave(user)
    assert gone(server), "postgres outlived the process that started it"


def test_the_server_stops_when_its_user_is_terminated(pgdata):
    # `kill` (SIGTERM) is how servers are stopped; uvicorn re-raises it after its graceful shutdown.
    user = start_user(pgdata)
    server = postmaster(pgdata)
    user.send_signal(signal.SIGTERM)
    assert user.wait(30) == 128 + signal.SIGTERM
    assert gone(server), "postgres outlived the process that started it"


def test_the_server_keeps_running_while_another_user_remains(pgdata):
    first = start_user(pgdata)
    second = start_user(pgdata)
    server = postmaster(pgdata)
    leave(first)
    time.sleep(0.5)
    assert server.is_running() and postmaster(pgdata) is not None
    leave(second)
    assert gone(server)


def test_a_killed_user_does_not_keep_the_server_running_for_good(pgdata):
    # SIGKILL runs no code of ours: the server outlives that process, but not the next one to leave.
    killed = start_user(pgdata)
    killed.kill()
    killed.wait(30)
    user = start_user(pgdata)
    server = postmaster(pgdata)
    leave(user)
    assert gone(server), "a dead process in pgserver's user list kept postgres running"


@pytest.fixture(autouse=True)
def no_stray_postgres(pgdata):
    yield
    server = postmaster(pgdata)
    if server is not None:
        server.terminate()      # only the server of this test's own data directory
        gone(server, 5)
