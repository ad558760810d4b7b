"""A webhook receiver on loopback, as an integrator would write one: it checks every delivery with the
verification code of docs/webhooks.md (run from the document itself), drops the ids it has handled, and writes
what it saw to a log file (one JSON line per request), from which a restart learns the ids it handled.

Run as ``python -m tests.webhooks.receiver --port P --secret S --log F`` with, for the tests' failures,
``--fail`` (answer 500 to everything), ``--crash-at N`` (die at the N-th request, after handling it and before
answering) or ``--hold-at N`` (never answer the N-th). ``Receiver`` runs it from a test.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "webhooks.md"


def documented_receive():
    """``receive`` and ``WebhookVerificationError`` as docs/webhooks.md shows them (its Python block under
    "Verifying a delivery")."""
    text = DOC.read_text(encoding="utf-8").split("## Verifying a delivery", 1)[1]
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace["receive"], namespace["WebhookVerificationError"]


def serve(args) -> None:
    receive, refused = documented_receive()
    log = Path(args.log)
    seen = {e["id"] for e in read_log(log) if e.get("fresh")}
    lock = threading.Lock()
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = dict(self.headers.items())
            with lock:
                count[0] += 1
                n = count[0]
                entry = {"n": n, "id": headers.get("webhook-id"), "path": self.path}
                try:
                    # Failing, it handles nothing: the ids it sees are not kept.
                    payload = receive(args.secret, body, headers, set(seen) if args.fail else seen)
                    status = 500 if args.fail else 200
                    entry.update(fresh=payload is not None and status == 200)
                    if payload is not None:
                        entry.update(type=payload["type"], championship_id=payload["data"]["championship_id"],
                                     sequence=payload["data"]["sequence"], payload=payload)
                except refused as exc:
                    entry.update(refused=str(exc))
                    status = 400
                entry.update(status=status)
                with log.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(entry) + "\n")
                    out.flush()
                    os.fsync(out.fileno())
            if n == args.crash_at:
                os._exit(1)                                   # handled, never answered: a crash
            if n == args.hold_at:
                time.sleep(3600)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_):
            pass

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class Receiver:
    """The receiver as a process of its own on a fixed port, to be killed (SIGKILL) and started again."""

    def __init__(self, directory: Path, secret: str = ""):
        self.secret = secret
        self.log = directory / "receiver.jsonl"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.proc: subprocess.Popen | None = None

    def start(self, *flags: str) -> None:
        assert self.secret, "the receiver needs the endpoint's secret"
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.webhooks.receiver", "--port", str(self.port),
                                      "--secret", self.secret, "--log", str(self.log), *flags], cwd=ROOT)
        deadline = time.monotonic() + 30
        while True:                        # up once it accepts connections (bounded)
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the receiver did not start (exit {self.proc.poll()})") from None
                time.sleep(0.02)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def entries(self) -> list[dict]:
        return read_log(self.log)

    def fresh(self) -> list[dict]:
        """What the receiver handled: each delivery once, by its id."""
        return [e for e in self.entries() if e.get("fresh")]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--crash-at", type=int, default=0)
    parser.add_argument("--hold-at", type=int, default=0)
    serve(parser.parse_args())
