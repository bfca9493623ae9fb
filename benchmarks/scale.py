"""Scale benchmark: the daemon against the simulator with many targets, as separate processes.

    .venv/bin/python benchmarks/scale.py --targets 100 1000 10000 --duration 180
    .venv/bin/python benchmarks/scale.py --quick          # a short smoke run

For each target count it writes a simulator scenario (one key per target) and a daemon config
(targets spread over 10 services, status every 30 s, wallet every 60 s, 10 s timeout), stores
`--history` hours of wallet samples as a daemon in service would have, starts `tqe-monitor
simulate` and `tqe-monitor run` as their own processes (see `rig`), scrapes /metrics every
`--scrape-interval` seconds (like a Prometheus would) for `--duration` seconds and reports:
polls due vs done on time (see `punctuality`), the daemon's CPU time (from /proc/PID/stat, so it
is the daemon's alone), its peak RSS (VmHWM), and the /metrics render time and size. A separate
run measures detection latency (see `detection`).

Results are printed as a table and written as JSON (`--json`). This is a benchmark, not a test:
it asserts nothing and takes minutes. docs/performance.md explains the method and the results.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import tempfile
import time
from contextlib import suppress
from itertools import pairwise
from pathlib import Path

from detection import detection_run
from punctuality import JobKey, ParsedScrape, judge, parse_metrics
from rig import (
    HERE,
    SERVICES,
    TIMEOUT,
    WALLET_INTERVAL,
    Fetched,
    cpu_seconds,
    cpu_split,
    http,
    machine,
    machine_cpu_seconds,
    memory_kb,
    service_of,
    sim_requests,
    stack,
    target_of,
)

STATUS_INTERVAL = 30.0
LATE_AFTER = 2.0
SCRAPE_TIMEOUT = 10.0  # Prometheus' default scrape_timeout
OPENMETRICS = "application/openmetrics-text; version=1.0.0"


def job_intervals(targets: int, status_interval: float) -> dict[JobKey, float]:
    """Every poll job the daemon should run: one status job per service, one wallet per target."""
    jobs: dict[JobKey, float] = {
        (f"svc-{s}", "", "status"): status_interval for s in range(min(SERVICES, targets))
    }
    for i in range(targets):
        jobs[(service_of(i), target_of(i), "wallet")] = WALLET_INTERVAL
    return jobs


# -- the scale run ----------------------------------------------------------------------------


def scale_run(
    targets: int,
    duration: float,
    scrape_interval: float,
    *,
    keep: bool,
    profile: bool,
    history_hours: float,
) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix=f"tqe-scale-{targets}-"))
    print(f"[{targets} targets] workdir {workdir}", flush=True)
    with stack(
        workdir,
        targets,
        status_interval=STATUS_INTERVAL,
        wallet_interval=WALLET_INTERVAL,
        profile=profile,
        history_hours=history_hours,
    ) as running:
        pid = running.daemon.pid
        sim_before = sim_requests(running.sim_url)
        sim_cpu_before = cpu_seconds(running.simulator.pid)
        (busy_before, steal_before), own_before = machine_cpu_seconds(), time.process_time()
        split_before = cpu_split(pid)
        cpu_before, wall_before = cpu_seconds(pid), time.time()
        scrapes: list[Fetched] = []
        failed_scrapes = 0
        yardstick: list[float] = []
        rss_samples: list[tuple[float, float]] = []
        parsed = []
        cpu_samples: list[tuple[float, float]] = [(wall_before, cpu_before)]
        rss_ready_kb = rss_window_kb = memory_kb(pid).get("VmRSS", 0)
        end = wall_before + duration
        next_scrape = wall_before
        while True:
            now = time.time()
            if now >= next_scrape:
                try:
                    fetched = http(running.metrics_url, timeout=SCRAPE_TIMEOUT)
                except OSError:  # timed out: count it, as Prometheus would (up == 0)
                    failed_scrapes += 1
                    fetched = Fetched(0, b"", now, SCRAPE_TIMEOUT)
                if fetched.status == 200:
                    scrapes.append(fetched)
                    parsed.append(parse_metrics(fetched.body.decode()))
                else:
                    failed_scrapes += 1
                next_scrape += scrape_interval
                if next_scrape >= end + scrape_interval:
                    break
                print(
                    f"[{targets} targets] t+{now - wall_before:5.0f}s scrape "
                    f"{fetched.seconds * 1000:.0f} ms",
                    flush=True,
                )
                yardstick.append(round(yardstick_ms(), 1))
            cpu_samples.append((time.time(), cpu_seconds(pid)))
            rss_kb = memory_kb(pid).get("VmRSS", 0)
            rss_window_kb = max(rss_window_kb, rss_kb)
            rss_samples.append((time.time(), rss_kb / 1024))
            time.sleep(max(0.0, min(1.0, next_scrape - time.time())))
        cpu_after, wall_after = cpu_seconds(pid), time.time()
        split_after = cpu_split(pid)
        sim_cpu = cpu_seconds(running.simulator.pid) - sim_cpu_before
        busy_after, steal_after = machine_cpu_seconds()
        busy, steal = busy_after - busy_before, steal_after - steal_before
        own = time.process_time() - own_before
        sim_after = sim_requests(running.sim_url)
        openmetrics = http(running.metrics_url, accept=OPENMETRICS, timeout=60)
        memory = memory_kb(pid)
    exit_code = running.daemon.returncode
    log = (workdir / "daemon.log").read_text(errors="replace").splitlines()

    last = scrapes[-1]
    cutoff = last.started - LATE_AFTER - 1.0
    verdict = judge(
        {key: sorted(set(values)) for key, values in _poll_starts(parsed).items()},
        job_intervals(targets, STATUS_INTERVAL),
        cutoff,
        late_after=LATE_AFTER,
    )
    first_totals, last_totals = parsed[0].totals, parsed[-1].totals
    delta = {k: last_totals.get(k, 0.0) - first_totals.get(k, 0.0) for k in last_totals}
    polls_window = delta.get("polls:status", 0.0) + delta.get("polls:wallet", 0.0)
    cpu = cpu_after - cpu_before
    wall = wall_after - wall_before
    gaps = [b.started - a.started for a, b in pairwise(scrapes)]
    render = [s.seconds for s in scrapes]
    result: dict[str, object] = {
        "targets": targets,
        "duration_s": round(wall, 1),
        "startup_s": round(running.startup_s, 1),
        "startup_cpu_s": round(running.startup_cpu, 2),
        "punctuality": verdict.as_dict(),
        "observation_complete": max(gaps, default=0.0) < STATUS_INTERVAL,
        "max_scrape_gap_s": round(max(gaps, default=0.0), 2),
        "polls_done_in_window": int(polls_window),
        "sim_requests_in_window": {k: sim_after[k] - sim_before.get(k, 0) for k in sim_after},
        "expected_polls_per_s": round(
            min(SERVICES, targets) / STATUS_INTERVAL + targets / WALLET_INTERVAL, 2
        ),
        "slow_polls": int(delta.get("slow:status", 0) + delta.get("slow:wallet", 0)),
        "overruns": int(delta.get("overruns:status", 0) + delta.get("overruns:wallet", 0)),
        "errors": int(delta.get("errors:status", 0) + delta.get("errors:wallet", 0)),
        "cpu_s": round(cpu, 2),
        "cpu_percent": round(100 * cpu / wall, 1),
        "cpu_percent_max_60s": _rolling_max(cpu_samples, 60.0),
        "cpu_ms_per_poll": round(1000 * cpu / polls_window, 3) if polls_window else None,
        "cpu_percent_by_30s": _per_window(cpu_samples, 30.0),
        "cpu_user_s": round(split_after[0] - split_before[0], 2),
        "cpu_system_s": round(split_after[1] - split_before[1], 2),
        # The same fixed piece of work timed in this process at each scrape: if it slows down,
        # the machine did (other guests, frequency), not the daemon.
        "yardstick_ms": yardstick,
        "simulator_cpu_percent": round(100 * sim_cpu / wall, 1),
        "benchmark_cpu_percent": round(100 * own / wall, 1),
        # Everything else on the machine (other users' jobs), in % of one core: a noisy
        # neighbour on a small machine delays the daemon's polls without being its fault.
        "other_cpu_percent": round(100 * (busy - cpu - sim_cpu - own) / wall, 1),
        "steal_percent": round(100 * steal / wall, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
        "rss_end_mb": round(memory.get("VmRSS", 0) / 1024, 1),
        "rss_at_ready_mb": round(rss_ready_kb / 1024, 1),
        "rss_max_in_window_mb": round(rss_window_kb / 1024, 1),
        "rss_mb_by_30s": _every(rss_samples, 30.0),
        "metrics_samples": len(render),
        "metrics_failed_scrapes": failed_scrapes,
        "metrics_ms_median": round(1000 * statistics.median(render), 1),
        "metrics_ms_max": round(1000 * max(render), 1),
        "metrics_bytes": len(last.body),
        "openmetrics_ms": round(1000 * openmetrics.seconds, 1),
        "openmetrics_bytes": len(openmetrics.body),
        "daemon_warnings": sum('"level": "warning"' in line for line in log),
        "daemon_errors": sum('"level": "error"' in line for line in log),
        "daemon_exit_code": exit_code,
        "workdir": str(workdir),
        "profiled": profile,
    }
    if not keep:
        for name in ("scenario.json", "tqe-monitor.yaml"):
            with suppress(OSError):
                (workdir / name).unlink()
    return result


def _poll_starts(parsed: list[ParsedScrape]) -> dict[JobKey, list[float]]:
    starts: dict[JobKey, list[float]] = {}
    for scrape in parsed:
        for key, value in scrape.last_poll.items():
            starts.setdefault(key, []).append(value)
    return starts


def yardstick_ms() -> float:
    """CPU milliseconds this process takes for a fixed, Python-heavy piece of work."""
    started = time.process_time()
    text = "".join(f'x{{a="{i}"}} {i * 1.5}\n' for i in range(20_000))
    parse_metrics(text)
    return 1000 * (time.process_time() - started)


def _every(samples: list[tuple[float, float]], step: float) -> list[float]:
    """The first value at or after each `step` seconds of the run."""
    picked, due = [], samples[0][0] if samples else 0.0
    for at, value in samples:
        if at >= due:
            picked.append(round(value, 1))
            due += step
    return picked


def _per_window(samples: list[tuple[float, float]], window: float) -> list[float]:
    """CPU % of one core in consecutive `window`-second stretches of the run."""
    shares, start = [], samples[0]
    for sample in samples[1:]:
        if sample[0] - start[0] >= window:
            shares.append(round(100 * (sample[1] - start[1]) / (sample[0] - start[0]), 1))
            start = sample
    return shares


def _rolling_max(samples: list[tuple[float, float]], window: float) -> float | None:
    """The highest CPU % of one core over any `window` seconds of the run (None: too short)."""
    best: float | None = None
    start = 0
    for end in range(len(samples)):
        while samples[end][0] - samples[start][0] > window:
            start += 1
        elapsed = samples[end][0] - samples[start][0]
        if elapsed >= window * 0.9:
            share = 100 * (samples[end][1] - samples[start][1]) / elapsed
            best = share if best is None else max(best, share)
    return None if best is None else round(best, 1)


# -- reporting ----------------------------------------------------------------------------------

COLUMNS = [
    ("targets", "targets"),
    ("polls due", "due"),
    ("on time", "on_time"),
    ("late >2s", "late"),
    ("missed", "missed"),
    ("lateness p99 / max (s)", "lateness"),
    ("daemon CPU % of a core", "cpu_percent"),
    ("CPU ms / poll", "cpu_ms_per_poll"),
    ("peak RSS MB", "peak_rss_mb"),
    ("/metrics median / max ms", "render"),
    ("/metrics size", "size"),
    ("overruns", "overruns"),
    ("errors", "errors"),
]


def row(result: dict[str, object]) -> dict[str, str]:
    p = result["punctuality"]
    assert isinstance(p, dict)
    size = int(result["metrics_bytes"])  # type: ignore[call-overload]
    return {
        "targets": f"{result['targets']:,}",
        "due": f"{p['due']:,}",
        "on_time": f"{p['on_time']:,}",
        "late": f"{p['late']:,}",
        "missed": f"{p['missed']:,}",
        "lateness": f"{p['lateness_p99']:.3f} / {p['lateness_max']:.3f}",
        "cpu_percent": f"{result['cpu_percent']}"
        + (f" (max {peak} / 60 s)" if (peak := result["cpu_percent_max_60s"]) is not None else ""),
        "cpu_ms_per_poll": f"{result['cpu_ms_per_poll']}",
        "peak_rss_mb": f"{result['peak_rss_mb']}",
        "render": f"{result['metrics_ms_median']} / {result['metrics_ms_max']}",
        "size": f"{size / 1e6:.2f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB",
        "overruns": f"{result['overruns']}",
        "errors": f"{result['errors']}",
    }


def markdown_table(results: list[dict[str, object]]) -> str:
    lines = ["| " + " | ".join(title for title, _ in COLUMNS) + " |"]
    lines.append("|" + "---|" * len(COLUMNS))
    for result in results:
        cells = row(result)
        lines.append("| " + " | ".join(cells[key] for _, key in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", type=int, nargs="+", metavar="N")
    parser.add_argument("--duration", type=float, help="seconds per target count (default 180)")
    parser.add_argument("--scrape-interval", type=float, default=15.0)
    parser.add_argument(
        "--history",
        type=float,
        default=6.0,
        metavar="HOURS",
        help="hours of wallet samples stored before the daemon starts, as if it had been running "
        "(default 6: the default forecast window, the steady state; 0: start empty)",
    )
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--no-detection", action="store_true")
    parser.add_argument("--detection-targets", type=int, default=100)
    parser.add_argument("--detection-interval", type=float, default=5.0)
    parser.add_argument("--detection-repeats", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=HERE / "results" / "scale.json")
    parser.add_argument("--keep", action="store_true", help="keep generated scenario and config")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run the daemon under a sampling profiler (benchmarks/profiled.py), report in "
        "WORKDIR/profile.txt; "
        "profiling costs CPU, so the CPU figures of such a run are not comparable",
    )
    args = parser.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the simulator and the daemon are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    targets = args.targets or ([100] if args.quick else [100, 1000, 10000])
    duration = args.duration or (40.0 if args.quick else 180.0)
    repeats = args.detection_repeats or (3 if args.quick else 10)
    if args.scrape_interval > STATUS_INTERVAL / 2:
        parser.error("--scrape-interval must be at most half the status interval to see every poll")

    report: dict[str, object] = {
        "machine": machine(),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "settings": {
            "services": SERVICES,
            "status_interval_s": STATUS_INTERVAL,
            "wallet_interval_s": WALLET_INTERVAL,
            "timeout_s": TIMEOUT,
            "duration_s": duration,
            "scrape_interval_s": args.scrape_interval,
            "late_after_s": LATE_AFTER,
            "history_hours": args.history,
        },
    }
    results = [
        scale_run(
            n,
            duration,
            args.scrape_interval,
            keep=args.keep,
            profile=args.profile,
            history_hours=args.history,
        )
        for n in targets
    ]
    report["scale"] = results
    detection = None
    if not args.no_detection:
        detection = detection_run(
            args.detection_targets, repeats, args.detection_interval, args.seed
        )
        report["detection"] = detection
    print()
    print(markdown_table(results))
    for result in results:
        extras = {
            k: result[k]
            for k in (
                "startup_s",
                "startup_cpu_s",
                "polls_done_in_window",
                "sim_requests_in_window",
                "expected_polls_per_s",
                "slow_polls",
                "observation_complete",
                "simulator_cpu_percent",
                "rss_end_mb",
                "openmetrics_ms",
                "openmetrics_bytes",
                "daemon_warnings",
                "daemon_exit_code",
            )
        }
        print(f"{result['targets']:>6} targets: {json.dumps(extras)}")
    if detection is not None:
        summary = {k: v for k, v in detection.items() if k != "detail"}
        print(f"detection: {json.dumps(summary)}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
