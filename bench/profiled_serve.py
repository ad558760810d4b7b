"""`baloot serve` with cProfile switched on and off by signals: the measured window only, not start-up.

    python bench/profiled_serve.py OUT.prof serve --port 8000 ...     # the arguments of `baloot`

SIGUSR1 starts profiling the event loop's thread (the one that serves), SIGUSR2 stops it and writes the
stats to OUT.prof (``pstats`` reads them). ``bench/human_load.py --profile`` sends them at its window's
edges.
"""

from __future__ import annotations

import cProfile
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    out, argv = sys.argv[1], sys.argv[2:]
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
