"""`baloot serve` with cProfile, or a record of its event loop's pauses, switched on and off by signals: the
measured window only, not start-up.

    python bench/profiled_serve.py OUT.prof serve --port 8000 ...     # the arguments of `baloot`
    python bench/profiled_serve.py OUT.json serve --port 8000 ...     # the pauses instead

SIGUSR1 starts, SIGUSR2 stops and writes OUT. With ``.prof``: cProfile of the event loop's thread (the one
that serves), its stats for ``pstats``. With ``.json``: each collection of the cyclic garbage collector (when,
its generation, how long, how many objects the young generation held, how many it found unreachable; at the
window's first young collection, its twenty commonest types) and each time a 10 ms timer's step, queued
behind what was ready when it fired (as a command's next step after a reply from the database is), ran over
15 ms late (when, how late): what holds every command waiting at once.
``bench/human_load.py --profile`` and ``--pauses`` send the signals at their window's edges.
"""

from __future__ import annotations

import asyncio
import collections
import cProfile
import gc
import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TICK = 0.010        # the timer's period, seconds
LATE = 0.015        # a turn that delays the timer more than this is recorded


class Pauses:
    """The collections and the late timers between ``start`` and ``stop``, written to ``out`` as JSON."""

    def __init__(self, out: str) -> None:
        self.out = out
        # (when, generation, ms, young objects, unreachable objects found)
        self.collections: list[tuple[float, int, float, int, int]] = []
        self.late: list[tuple[float, float]] = []                    # (when, ms late)
        self.on = False
        self._began = (0.0, 0)
        self.census: list[tuple[str, int]] = []   # the young generation's commonest types, at its first collection

    def start(self) -> None:
        self.on = True
        self.census = []
        if self._collected not in gc.callbacks:
            gc.callbacks.append(self._collected)
        loop = asyncio.get_running_loop()          # a signal handler runs on the loop's thread
        loop.call_later(TICK, self._tick, loop, loop.time() + TICK)

    def stop(self) -> None:
        self.on = False
        Path(self.out).write_text(json.dumps({"collections": self.collections, "late": self.late,
                                              "census": self.census}))

    def _collected(self, phase: str, info: dict) -> None:
        if not self.on:
            return
        if phase == "start":
            # (listing the young objects costs the loop a millisecond or two, outside the collection's time)
            young = gc.get_objects(0) if info["generation"] == 0 else []
            if young and not self.census:      # once a window (start): what the young generation is made of
                self.census = collections.Counter(
                    f"{type(o).__module__}.{type(o).__qualname__}" for o in young).most_common(20)
            self._began = (time.perf_counter(), len(young) if info["generation"] == 0 else -1)
        else:
            began, young = self._began
            self.collections.append((time.time(), info["generation"], 1e3 * (time.perf_counter() - began), young,
                                     info["collected"]))

    def _tick(self, loop, due: float) -> None:
        loop.call_soon(self._ran, loop, due)     # behind what is ready, as a waiting command's next step is

    def _ran(self, loop, due: float) -> None:
        late = loop.time() - due
        if late > LATE:
            self.late.append((time.time(), 1e3 * late))
        if self.on:
            loop.call_later(TICK, self._tick, loop, loop.time() + TICK)


def main() -> int:
    out, argv = sys.argv[1], sys.argv[2:]
    if out.endswith(".json"):
        pauses = Pauses(out)
        start, stop = (lambda *_: pauses.start()), (lambda *_: pauses.stop())
    else:
        profiler = cProfile.Profile()

        def start(*_):
            profiler.enable()

        def stop(*_):
            profiler.disable()
            profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from services.cli import main as baloot
    return baloot(argv)


if __name__ == "__main__":
    sys.exit(main())
