"""The benchmark's rig: the machine, the processes, the simulator scenario and the daemon config.

Everything here talks to the world (files, processes, /proc, HTTP), so `scale` and `detection`
can stay about what they measure.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

SERVICES = 10
WALLET_INTERVAL = 60.0
TIMEOUT = 10.0
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
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of the process: system is the kernel's work for it (sockets,
    files), user is the Python interpreter's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS  # utime, stime


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, stolen) CPU seconds of all cores since boot, from /proc/stat: busy to see what
    else ran on the machine, stolen to see what the hypervisor gave to other guests."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    user, nice, system, _, _, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq) / CLOCK_TICKS, steal / CLOCK_TICKS


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
