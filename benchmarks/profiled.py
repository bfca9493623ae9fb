"""Run a Python module under a sampling profiler and write a report at exit.

    python benchmarks/profiled.py OUT.txt -m tqe_monitor run --config C

Every 5 ms of the process's CPU time (ITIMER_PROF), a signal handler records the stack of every
thread that is not waiting (the event loop in `select`, idle worker threads). Samples therefore
follow CPU use, with little overhead (cProfile slows the daemon so much at 10,000 targets that it
falls behind and stops being the thing measured). The daemon exits normally on SIGTERM, and the
report is written then: the hottest functions by own samples and by total samples (anything on
the stack), and the collapsed stacks (`frame;frame;frame count`, for flame-graph tools).
"""

from __future__ import annotations

import atexit
import runpy
import signal
import sys
import threading
from collections import Counter
from pathlib import Path
from types import FrameType

INTERVAL = 0.005
TOP = 50
# Leaf functions of a thread that waits rather than works.
_IDLE = frozenset({"select", "wait", "_worker", "get", "poll", "sleep"})


def _name(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    for marker in ("site-packages/", "src/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{code.co_qualname} ({path})"


def _stack(frame: FrameType | None) -> tuple[str, ...]:
    names: list[str] = []
    while frame is not None:
        names.append(_name(frame))
        frame = frame.f_back
    return tuple(reversed(names))


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        raise SystemExit("usage: profiled.py OUT -m MODULE [ARGS...]")
    out, module = Path(sys.argv[1]), sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    stacks: Counter[tuple[str, ...]] = Counter()

    main_thread = threading.main_thread().ident

    def sample(_: int, interrupted: FrameType | None) -> None:
        # The handler runs on the main thread: its own frame is not part of the picture.
        for ident, frame in sys._current_frames().items():
            seen = interrupted if ident == main_thread else frame
            if seen is not None and seen.f_code.co_name not in _IDLE:
                stacks[_stack(seen)] += 1

    def write() -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        total = sum(stacks.values()) or 1
        own: Counter[str] = Counter()
        inclusive: Counter[str] = Counter()
        for stack, count in stacks.items():
            own[stack[-1]] += count
            for name in set(stack):
                inclusive[name] += count
        lines = [f"samples: {total} (one per {INTERVAL * 1000:g} ms of CPU)", "", "own:"]
        lines += [f"{100 * c / total:6.2f}%  {name}" for name, c in own.most_common(TOP)]
        lines += ["", "total:"]
        lines += [f"{100 * c / total:6.2f}%  {name}" for name, c in inclusive.most_common(TOP)]
        lines += ["", "collapsed:"]
        lines += [f"{';'.join(stack)} {count}" for stack, count in stacks.most_common()]
        out.write_text("\n".join(lines) + "\n")

    atexit.register(write)
    signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
