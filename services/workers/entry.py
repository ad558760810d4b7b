"""The worker process: ``dramatiq services.workers.entry`` (what ``baloot worker`` runs).

Sets up the broker from BROKER_URL, declares the actors, and after boot keeps a reconciler running that
re-derives pending work from the log every ``BALOOT_RECONCILE_SECONDS`` (default 5) and publishes a
signed checkpoint of the log every ``BALOOT_CHECKPOINT_SECONDS`` (default 60; services/anchor).
"""

from __future__ import annotations

import logging
import os
import threading

import dramatiq
from dramatiq.asyncio import get_event_loop_thread

from services.anchor.checkpoints import CheckpointPublisher
from services.workers.actors import Workers
from services.workers.broker import make_broker

log = logging.getLogger("baloot.workers")


class KeyValueFormatter(logging.Formatter):
    """Log lines that end with the table/championship/command ids they concern (key=value)."""

    KEYS = ("table_id", "championship_id", "command_id")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extra = " ".join(f"{k}={getattr(record, k)}" for k in self.KEYS if getattr(record, k, None))
        return f"{line} {extra}" if extra else line


def configure_logging(level: str = "WARNING") -> None:
    """The platform's own log lines (``baloot.*``): warnings by default, so that a server says its start lines
    and then only what needs an operator (every bot action and every reconciler pass at ``info``)."""
    handler = logging.StreamHandler()
    handler.setFormatter(KeyValueFormatter("%(asctime)s %(levelname)s %(process)d %(name)s %(message)s"))
    root = logging.getLogger("baloot")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


class Reconciler(dramatiq.Middleware):
    """After a worker boots, re-derive pending work from the log at start and then periodically."""

    def __init__(self, workers: Workers, every: float):
        self.workers = workers
        self.every = every
        self.checkpoints = CheckpointPublisher()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def after_worker_boot(self, broker, worker):
        self._thread = threading.Thread(target=self._loop, name="baloot-reconciler", daemon=True)
        self._thread.start()

    def before_worker_shutdown(self, broker, worker):
        self._stop.set()

    def after_worker_shutdown(self, broker, worker):
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        quiet = 0.0                               # at boot every live table; then those quiet for a period
        while not self._stop.is_set():
            try:
                n = get_event_loop_thread().run_coroutine(self.workers.reconcile(quiet))
                quiet = self.every
                if n:
                    log.info("reconciler: enqueued %d pending table(s)", n)
            except Exception:
                log.exception("reconciler failed; trying again later")
            try:
                if get_event_loop_thread().run_coroutine(self._publish_checkpoint()):
                    log.info("reconciler: published a checkpoint of the log")
            except Exception:
                log.exception("checkpoint not published; trying again later")
            self._stop.wait(self.every)

    async def _publish_checkpoint(self):
        return await self.checkpoints.tick((await self.workers.runtime.tables()).pool)


def build(database_url: str | None = None, broker_url: str | None = None, reconcile_every: float | None = None,
          secret: bytes | None = None, log_level: str | None = None):
    """Broker, runtime and actors for this process; returns (broker, workers, where). ``secret``: the server
    secret (default: the configured one); ``log_level``: the platform's log level (default:
    ``BALOOT_LOG_LEVEL``, else warnings only)."""
    from services.db import database_server

    configure_logging((log_level or os.environ.get("BALOOT_LOG_LEVEL", "WARNING")).upper())
    broker, where = make_broker(broker_url)
    # A connection per worker thread: each thread's actor waits on its own (a commit's flush), not on a pool.
    threads = int(os.environ.get("BALOOT_WORKER_THREADS", "4"))
    workers = Workers(broker, database_url or database_server().url, secret=secret, schedules=True,
                      pool_size=max(4, threads))
    every = reconcile_every if reconcile_every is not None else float(os.environ.get("BALOOT_RECONCILE_SECONDS", "5"))
    broker.add_middleware(Reconciler(workers, every))
    return broker, workers, where


if os.environ.get("BALOOT_WORKER_ENTRY") == "1":   # set by `baloot worker` for the dramatiq CLI
    broker, workers, _where = build()
