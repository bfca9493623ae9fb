"""Scale benchmark: the daemon against the simulator with many targets, as separate processes.

    .venv/bin/python benchmarks/scale.py --targets 100 1000 10000 --duration 180
    .venv/bin/python benchmarks/scale.py --quick          # a short smoke run

For each target count it writes a simulator scenario (one key per target) and a daemon config
(targets spread over 10 services, status every 30 s, wallet every 60 s, 10 s timeout), starts
`tqe-monitor simulate` and `tqe-monitor run` as their own processes, scrapes /metrics every
`--scrape-interval` seconds (like a Prometheus would) for `--duration` seconds and reports:
polls due vs done on time (see `punctuality`), the daemon's CPU time (from /proc/PID/stat, so it
is the daemon's alone), its peak RSS (VmHWM), and the /metrics render time and size. A separate
run measures detection latency: the AI service's state is flipped through the simulator's
control API and /metrics is read every 100 ms until the new state shows for every service.

Results are printed as a table and written as JSON (`--json`). This is a benchmark, not a test:
it asserts nothing and takes minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import yaml
from punctuality import JobKey, judge, parse_metrics

SERVICES = 10
STATUS_INTERVAL = 30.0
WALLET_INTERVAL = 60.0
TIMEOUT = 10.0
LATE_AFTER = 2.0
SCRAPE_TIMEOUT = 10.0  # Prometheus' default scrape_timeout
OPENMETRICS = "application/openmetrics-text; version=1.0.0"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
HERE = Path(__file__).resolve().parent

# -- the machine and the processes ------------------------------------------------------------


def machine() -> dict[str, object]:
    """What the numbers were measured on."""
    model = "unknown"
    with suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with suppress(OSError, ValueError, IndexError):
        mem_kb = int(Path("/proc/meminfo").read_text().split("\n")[0].split()[1])
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "ram_gb": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process (all its threads), from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat), to see what else was running."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLOCK_TICKS  # minus idle and iowait


def memory_kb(pid: int) -> dict[str, int]:
    """VmHWM (peak resident set) and VmRSS of the process, in kB."""
    found: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            found[name] = int(value.split()[0])
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Fetched:
    status: int
    body: bytes
    started: float  # wall clock
    seconds: float  # the whole GET, body included


def http(
    url: str, *, accept: str | None = None, data: bytes | None = None, timeout: float = 30.0
) -> Fetched:
    headers = {"Accept": accept} if accept else {}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, headers=headers)
    started, clock = time.time(), time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    return Fetched(status, body, started, time.perf_counter() - clock)


def wait_until(check: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with suppress(OSError):
            if check():
                return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


@contextmanager
def process(args: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A child process with its output in `log`, stopped with SIGTERM (then SIGKILL) at exit."""
    with log.open("wb") as out:
        child = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield child
        finally:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


# -- the scenario and the config ----------------------------------------------------------------


def key_of(index: int) -> str:
    return f"bench-key-{index:05d}"


def target_of(index: int) -> str:
    return f"t{index:05d}"


def service_of(index: int) -> str:
    return f"svc-{index % SERVICES}"


def write_scenario(path: Path, targets: int) -> None:
    keys = {key_of(i): {"balance": 1_000_000 + i} for i in range(targets)}
    path.write_text(json.dumps({"description": f"scale benchmark, {targets} keys", "keys": keys}))


def write_config(
    path: Path,
    targets: int,
    *,
    simulator: str,
    listen: str,
    storage: Path,
    status_interval: float,
    wallet_interval: float,
) -> None:
    config = {
        "server": {"listen": listen},
        "storage": {"path": str(storage)},
        "defaults": {
            "status_interval": f"{status_interval:g}s",
            "wallet_interval": f"{wallet_interval:g}s",
            "timeout": f"{TIMEOUT:g}s",
        },
        "targets": {
            target_of(i): {
                "base_url": f"{simulator}/v2",
                "service": service_of(i),
                "api_key": key_of(i),
            }
            for i in range(targets)
        },
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def prefill_history(path: Path, targets: int, hours: float) -> float:
    """Store `hours` of wallet samples per target, one per wallet interval, as a daemon that had
    been running that long would have; returns the seconds it took.

    The daemon keeps the samples of the forecast window (6 h by default) in memory and fits a
    line through them on every wallet poll, so a run that starts from an empty store measures a
    daemon younger, smaller and cheaper than one in service. Balances fall 10 words a minute
    toward the simulator's (constant) balance, so no sample looks like a top-up.
    """
    from tqe_monitor.store import SqliteStore  # noqa: PLC0415 - only this step needs it
    from tqe_monitor.store.base import WalletSample  # noqa: PLC0415

    started = time.perf_counter()
    now = datetime.now(UTC)
    points = int(hours * 3600 / WALLET_INTERVAL)
    store = SqliteStore(path)
    try:
        for first in range(0, targets, 100):
            batch = [
                WalletSample(
                    service_of(i),
                    target_of(i),
                    now - timedelta(seconds=WALLET_INTERVAL * (points - k)),
                    1_000_000 + i + 10 * (points - k),
                )
                for i in range(first, min(targets, first + 100))
                for k in range(points)
            ]
            store.commit(samples=batch)
    finally:
        store.close()
    return time.perf_counter() - started


def job_intervals(targets: int, status_interval: float) -> dict[JobKey, float]:
    """Every poll job the daemon should run: one status job per service, one wallet per target."""
    jobs: dict[JobKey, float] = {
        (f"svc-{s}", "", "status"): status_interval for s in range(min(SERVICES, targets))
    }
    for i in range(targets):
        jobs[(service_of(i), target_of(i), "wallet")] = WALLET_INTERVAL
    return jobs


@dataclass
class Stack:
    """A running simulator and daemon."""

    simulator: subprocess.Popen[bytes]
    daemon: subprocess.Popen[bytes]
    sim_url: str
    metrics_url: str
    startup_s: float  # from launching the daemon to /healthz answering
    startup_cpu: float


@contextmanager
def stack(
    workdir: Path,
    targets: int,
    *,
    status_interval: float,
    wallet_interval: float,
    profile: bool = False,
    history_hours: float = 0.0,
) -> Iterator[Stack]:
    scenario, config = workdir / "scenario.json", workdir / "tqe-monitor.yaml"
    sim_port, daemon_port = free_port(), free_port()
    sim_url = f"http://127.0.0.1:{sim_port}"
    write_scenario(scenario, targets)
    write_config(
        config,
        targets,
        simulator=sim_url,
        listen=f"127.0.0.1:{daemon_port}",
        storage=workdir / "tqe-monitor.db",
        status_interval=status_interval,
        wallet_interval=wallet_interval,
    )
    if history_hours > 0:
        took = prefill_history(workdir / "tqe-monitor.db", targets, history_hours)
        print(f"[{targets} targets] stored {history_hours:g} h of wallet history in {took:.0f} s")
    python = sys.executable
    simulate = [python, "-m", "tqe_monitor", "simulate", "--port", str(sim_port)]
    simulate += ["--scenario", str(scenario), "--log-level", "warning"]
    sampler = [str(HERE / "profiled.py"), str(workdir / "profile.txt")] if profile else []
    run = [python, *sampler, "-m", "tqe_monitor", "run", "--config", str(config)]
    run += ["--log-format", "json", "--log-level", "warning"]
    with process(simulate, workdir / "simulator.log") as simulator:
        wait_until(lambda: http(f"{sim_url}/v2/status").status == 401, "the simulator", 60)
        launched = time.time()
        with process(run, workdir / "daemon.log") as daemon:
            base = f"http://127.0.0.1:{daemon_port}"
            wait_until(lambda: http(f"{base}/healthz").status == 200, "the daemon", 300)
            yield Stack(
                simulator,
                daemon,
                sim_url,
                f"{base}/metrics",
                time.time() - launched,
                cpu_seconds(daemon.pid),
            )
            if daemon.poll() is not None:
                raise RuntimeError(f"the daemon exited early with {daemon.returncode}")


def sim_requests(sim_url: str) -> dict[str, int]:
    state = json.loads(http(f"{sim_url}/_sim/state", timeout=60).body)
    return {name: int(counts["total"]) for name, counts in state["requests"].items()}


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
        busy_before, own_before = machine_busy_seconds(), time.process_time()
        cpu_before, wall_before = cpu_seconds(pid), time.time()
        scrapes: list[Fetched] = []
        failed_scrapes = 0
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
            cpu_samples.append((time.time(), cpu_seconds(pid)))
            rss_window_kb = max(rss_window_kb, memory_kb(pid).get("VmRSS", 0))
            time.sleep(max(0.0, min(1.0, next_scrape - time.time())))
        cpu_after, wall_after = cpu_seconds(pid), time.time()
        sim_cpu = cpu_seconds(running.simulator.pid) - sim_cpu_before
        busy = machine_busy_seconds() - busy_before
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
        "cpu_percent_max_60s": round(_rolling_max(cpu_samples, 60.0), 1),
        "cpu_ms_per_poll": round(1000 * cpu / polls_window, 3) if polls_window else None,
        "simulator_cpu_percent": round(100 * sim_cpu / wall, 1),
        "benchmark_cpu_percent": round(100 * own / wall, 1),
        # Everything else on the machine (other users' jobs), in % of one core: a noisy
        # neighbour on a small machine delays the daemon's polls without being its fault.
        "other_cpu_percent": round(100 * (busy - cpu - sim_cpu - own) / wall, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
        "rss_end_mb": round(memory.get("VmRSS", 0) / 1024, 1),
        "rss_at_ready_mb": round(rss_ready_kb / 1024, 1),
        "rss_max_in_window_mb": round(rss_window_kb / 1024, 1),
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


def _poll_starts(parsed: list) -> dict[JobKey, list[float]]:  # type: ignore[type-arg]
    starts: dict[JobKey, list[float]] = {}
    for scrape in parsed:
        for key, value in scrape.last_poll.items():
            starts.setdefault(key, []).append(value)
    return starts


def _rolling_max(samples: list[tuple[float, float]], window: float) -> float:
    """The highest CPU % of one core over any `window` seconds of the run."""
    best, start = 0.0, 0
    for end in range(len(samples)):
        while samples[end][0] - samples[start][0] > window:
            start += 1
        elapsed = samples[end][0] - samples[start][0]
        if elapsed >= window * 0.9:
            best = max(best, 100 * (samples[end][1] - samples[start][1]) / elapsed)
    return best


# -- detection latency ------------------------------------------------------------------------


def _state_lines(text: str, component: str) -> dict[str, tuple[str | None, float | None]]:
    """service -> (current state of `component`, since timestamp), from a /metrics body."""
    found: dict[str, list[str | float | None]] = {}
    for line in text.splitlines():
        if not line.startswith("tqe_service_state") or f'component="{component}"' not in line:
            continue
        service = line.split('service="', 1)[1].split('"', 1)[0]
        entry = found.setdefault(service, [None, None])
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith("tqe_service_state{") and value == 1.0:
            entry[0] = line.split('tqe_service_state="', 1)[1].split('"', 1)[0]
        elif line.startswith("tqe_service_state_since_timestamp_seconds{"):
            entry[1] = value
    return {s: (e[0], e[1]) for s, e in found.items()}  # type: ignore[misc]


def detection_run(targets: int, repeats: int, interval: float, seed: int) -> dict[str, object]:
    """Flip ai_service in the simulator; time until /metrics shows it, for every service."""
    workdir = Path(tempfile.mkdtemp(prefix="tqe-detect-"))
    print(f"[detection] {targets} targets, status every {interval:g}s, workdir {workdir}")
    services = [f"svc-{s}" for s in range(min(SERVICES, targets))]
    rng = random.Random(seed)
    flips: list[dict[str, object]] = []
    with stack(workdir, targets, status_interval=interval, wallet_interval=WALLET_INTERVAL) as up:
        base = up.metrics_url.rsplit("/", 1)[0]
        wait_until(lambda: http(f"{base}/readyz").status == 200, "readiness", 120)
        state = "operational"
        for flip in range(repeats):
            time.sleep(rng.uniform(0.5, interval + 0.5))  # land anywhere in the poll cycle
            state = "degraded" if state == "operational" else "operational"
            body = json.dumps({"ai_service": state}).encode()
            sent = time.time()
            if http(f"{up.sim_url}/_sim/status", data=body).status != 200:
                raise RuntimeError("the simulator refused the state change")
            seen: dict[str, dict[str, float]] = {}
            not_seen_since = sent
            deadline = sent + 4 * interval + 10
            while len(seen) < len(services) and time.time() < deadline:
                fetched = http(up.metrics_url)
                done_at = fetched.started + fetched.seconds
                for service, (current, since) in _state_lines(
                    fetched.body.decode(), "ai_service"
                ).items():
                    if service in seen or current != state:
                        continue
                    seen[service] = {
                        "upper_s": done_at - sent,  # shown by then
                        "lower_s": not_seen_since - sent,  # not shown when this GET began
                        "poll_start_s": (since or math.nan) - sent,
                    }
                not_seen_since = fetched.started
                time.sleep(max(0.0, 0.1 - (time.time() - fetched.started)))
            flips.append({"flip": flip, "to": state, "services": seen})
            worst = max((v["upper_s"] for v in seen.values()), default=math.nan)
            print(f"[detection] flip {flip} -> {state}: {len(seen)} services, worst {worst:.2f}s")
        totals = parse_metrics(http(up.metrics_url).body.decode()).totals
        histogram = _status_duration(http(up.metrics_url).body.decode())
    observed = [v for f in flips for v in f["services"].values()]  # type: ignore[attr-defined]
    uppers = [v["upper_s"] for v in observed]
    poll_starts = [v["poll_start_s"] for v in observed]
    missing = sum(len(services) - len(f["services"]) for f in flips)  # type: ignore[arg-type]
    request_s = histogram["mean_s"]
    limit = interval + histogram["max_bucket"]
    return {
        "targets": targets,
        "status_interval_s": interval,
        "flips": repeats,
        "observations": len(observed),
        "not_detected": missing,
        # Seen in /metrics, flip to the first GET that showed it (includes up to 100 ms of our
        # own sampling and the GET itself, so an upper bound).
        "latency_median_s": round(statistics.median(uppers), 3),
        "latency_max_s": round(max(uppers), 3),
        "latency_lower_bound_max_s": round(max(v["lower_s"] for v in observed), 3),
        # From the flip to the start of the poll that read it (`since` of the new state): the
        # wait for the next poll, the part the schedule decides.
        "to_poll_start_median_s": round(statistics.median(poll_starts), 3),
        "to_poll_start_max_s": round(max(poll_starts), 3),
        "status_request_mean_s": round(request_s, 4),
        "status_request_max_bucket_s": histogram["max_bucket"],
        # One interval plus one request, the request taken at its histogram's upper bound.
        "limit_s": round(limit, 3),
        # The true latency of each observation lies between its two bounds.
        "surely_within_limit": sum(v["upper_s"] <= limit for v in observed),
        "surely_over_limit": sum(v["lower_s"] > limit for v in observed),
        "met": missing == 0
        and not any(v["lower_s"] > limit for v in observed)
        and max(poll_starts) + histogram["max_bucket"] <= limit,
        "errors": int(totals.get("errors:status", 0)),
        "detail": flips,
    }


def _status_duration(text: str) -> dict[str, float]:
    """Mean status-poll duration and the smallest bucket bound that holds every status poll."""
    total = count = 0.0
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if 'endpoint="status"' not in line or not line.startswith("tqe_poll_duration_seconds"):
            continue
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith("tqe_poll_duration_seconds_sum"):
            total += value
        elif line.startswith("tqe_poll_duration_seconds_count"):
            count += value
        elif line.startswith("tqe_poll_duration_seconds_bucket"):
            bound = float(line.split('le="', 1)[1].split('"', 1)[0])
            buckets[bound] = buckets.get(bound, 0.0) + value
    max_bucket = min((b for b, c in buckets.items() if c >= count), default=math.inf)
    return {"mean_s": total / count if count else math.nan, "max_bucket": max_bucket}


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
        "cpu_percent": f"{result['cpu_percent']} (max {result['cpu_percent_max_60s']} / 60 s)",
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
        help="run the daemon under cProfile (benchmarks/profiled.py), report in "
        "WORKDIR/profile.txt; "
        "profiling costs CPU, so the CPU figures of such a run are not comparable",
    )
    args = parser.parse_args(argv)
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
    if not args.no_detection:
        report["detection"] = detection_run(
            args.detection_targets, repeats, args.detection_interval, args.seed
        )
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
    if "detection" in report:
        detection = {k: v for k, v in report["detection"].items() if k != "detail"}  # type: ignore[union-attr]
        print(f"detection: {json.dumps(detection)}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
