"""Run a Python module under cProfile (its main thread) and write a report at exit.

    python benchmarks/profiled.py OUT.txt -m tqe_monitor run --config C

The daemon exits normally on SIGTERM, so the report is written then: the top functions by own
time and by cumulative time, for the main thread, where the event loop (and every poll) runs.
/metrics renders in a worker thread and is not in it: the benchmark times that separately.
cProfile slows Python code down, so CPU figures of a profiled run are not comparable.
"""

from __future__ import annotations

import atexit
import cProfile
import io
import pstats
import runpy
import sys
from pathlib import Path

TOP = 45


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        raise SystemExit("usage: profiled.py OUT -m MODULE [ARGS...]")
    out, module = Path(sys.argv[1]), sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    profiler = cProfile.Profile()

    def write() -> None:
        profiler.disable()
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats("tottime").print_stats(TOP)
        stats.sort_stats("cumulative").print_stats(TOP)
        out.write_text(text.getvalue())
        profiler.dump_stats(out.with_suffix(".prof"))

    atexit.register(write)
    profiler.enable()
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
