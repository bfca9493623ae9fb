"""The image built from the Dockerfile, really built and really run with podman.

The main test runs the image as an operator would: a read-only root filesystem, the config and
an API key file mounted read-only, the state in the image's volume. The daemon inside watches the
simulator running in this test on the host's loopback (`--network host`), and must serve
/healthz, export the simulator's real balance on /metrics, run as a non-root user, pass its own
HEALTHCHECK, and exit 0 on the SIGTERM of `podman stop` (an exit after the 10 s grace would be
SIGKILL's 137).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tqe_monitor import __version__
from tqe_monitor.simulator import Simulator, parse_scenario


class Podman(Protocol):  # the `podman` fixture (conftest.py)
    def __call__(
        self, *args: str, timeout: float = ..., check: bool = ...
    ) -> subprocess.CompletedProcess[str]: ...


class Containers(Protocol):  # the `containers` fixture: names removed at teardown
    def new_name(self) -> str: ...


pytestmark = pytest.mark.slow

API_KEY = "tqe-container-KEY-5b1f9e27c4d8a3"
BALANCE = 4_321_987
STARTUP_SECONDS = 60.0
NON_ROOT_UID = "10001"


@pytest.fixture
async def simulator() -> AsyncIterator[Simulator]:
    sim = Simulator(parse_scenario({"keys": {API_KEY: {"balance": BALANCE}}}))
    await sim.start("127.0.0.1", 0)
    try:
        yield sim
    finally:
        await sim.stop()


def mounted_config(tmp_path: Path, base_url: str) -> tuple[Path, Path]:
    """A config directory and a secrets directory, as an operator would mount them.

    The container runs as uid 10001, so they are made world-readable (pytest's temporary
    directories are root's, mode 0700)."""
    etc, secrets = tmp_path / "etc", tmp_path / "secrets"
    config, key = etc / "config.yaml", secrets / "tqe_production_key"
    for directory in (etc, secrets):
        directory.mkdir()
        directory.chmod(0o755)
    config.write_text(
        "defaults: {status_interval: 1s, wallet_interval: 1s, timeout: 2s, retries: 0}\n"
        "targets:\n"
        "  production:\n"
        f"    base_url: {base_url}\n"
        "    api_key_file: /run/secrets/tqe_production_key\n"
    )
    key.write_text(f"{API_KEY}\n")
    for file in (config, key):
        file.chmod(0o644)
    return etc, secrets


async def wait_for(check: Callable[[], Any], what: str, within: float = STARTUP_SECONDS) -> Any:
    """Await `check()` until it returns something truthy; fail naming `what` otherwise."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    last: Any = None
    while loop.time() < deadline:
        last = await check()
        if last:
            return last
        await asyncio.sleep(0.25)
    raise AssertionError(f"{what}: not true after {within:g}s (last: {last!r})")


def wallet_value(metrics_text: str, target: str) -> float | None:
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.name == "tqe_wallet_remaining_words" and sample.labels["target"] == target:
                return sample.value
    return None


async def test_the_image_monitors_the_service_as_non_root_and_stops_cleanly_on_sigterm(
    podman: Podman,
    image: str,
    containers: Containers,
    simulator: Simulator,
    free_port: int,
    tmp_path: Path,
) -> None:
    etc, secrets = mounted_config(tmp_path, simulator.base_url)
    name = containers.new_name()
    await asyncio.to_thread(
        podman,
        "run",
        "--detach",
        f"--name={name}",
        "--network=host",
        "--read-only",
        f"--volume={etc}:/etc/tqe-monitor:ro",
        f"--volume={secrets}:/run/secrets:ro",
        f"--env=TQE_MONITOR_SERVER__LISTEN=127.0.0.1:{free_port}",
        image,  # no arguments: the image's CMD, `run`
    )

    async def logs() -> str:
        result = await asyncio.to_thread(podman, "logs", name)
        return result.stdout + result.stderr

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{free_port}", timeout=5) as http:

        async def healthy() -> bool:
            state = await asyncio.to_thread(podman, "inspect", "--format={{.State.Running}}", name)
            if state.stdout.strip() != "true":
                raise AssertionError(f"the container stopped:\n{await logs()}")
            try:
                return (await http.get("/healthz")).status_code == 200
            except httpx.TransportError:
                return False

        await wait_for(healthy, "/healthz answers 200")

        accounts = simulator.snapshot()["keys"]
        assert isinstance(accounts, dict)
        expected = accounts[API_KEY]["balance"]

        async def balance_exported() -> bool:
            return wallet_value((await http.get("/metrics")).text, "production") == expected

        await wait_for(balance_exported, f"/metrics shows the wallet's {expected} words")

    uid = await asyncio.to_thread(podman, "exec", name, "id", "-u")
    assert uid.stdout.strip() == NON_ROOT_UID

    health = await asyncio.to_thread(podman, "healthcheck", "run", name, check=False)
    assert health.returncode == 0, f"the image's HEALTHCHECK failed: {health.stdout}{health.stderr}"

    store = await asyncio.to_thread(podman, "exec", name, "ls", "/var/lib/tqe-monitor")
    assert "tqe-monitor.db" in store.stdout.split()

    await asyncio.to_thread(podman, "stop", "--time=10", name)
    exit_code = await asyncio.to_thread(podman, "inspect", "--format={{.State.ExitCode}}", name)
    output = await logs()
    assert exit_code.stdout.strip() == "0", f"exit {exit_code.stdout.strip()}:\n{output}"
    assert "stopped" in output
    assert API_KEY not in output


def test_version_runs_through_the_entrypoint(podman: Podman, image: str) -> None:
    result = podman("run", "--rm", "--no-healthcheck", image, "--version")
    assert result.stdout.strip() == f"tqe-monitor {__version__}"


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        pytest.param(lambda c: c["Config"]["User"], "10001:10001", id="numeric-non-root-user"),
        pytest.param(lambda c: c["Config"]["Entrypoint"], ["tqe-monitor"], id="entrypoint"),
        pytest.param(lambda c: c["Config"]["Cmd"], ["run"], id="cmd"),
        pytest.param(lambda c: c["Config"]["StopSignal"], "SIGTERM", id="stop-signal"),
        pytest.param(
            lambda c: sorted(c["Config"]["Volumes"]),
            ["/etc/tqe-monitor", "/var/lib/tqe-monitor"],
            id="volumes",
        ),
        pytest.param(lambda c: list(c["Config"]["ExposedPorts"]), ["9787/tcp"], id="port"),
        pytest.param(
            lambda c: "/healthz" in " ".join(c["Healthcheck"]["Test"]), True, id="healthcheck"
        ),
        pytest.param(
            lambda c: c["Labels"]["org.opencontainers.image.version"],
            __version__,
            id="version-label",
        ),
        pytest.param(
            lambda c: {
                key: value
                for key, _, value in (item.partition("=") for item in c["Config"]["Env"])
                if key.startswith("TQE_MONITOR_")
            },
            {
                "TQE_MONITOR_CONFIG": "/etc/tqe-monitor/config.yaml",
                "TQE_MONITOR_STORAGE__PATH": "/var/lib/tqe-monitor/tqe-monitor.db",
                "TQE_MONITOR_SERVER__LISTEN": "0.0.0.0:9787",
            },
            id="environment",
        ),
    ],
)
def test_image_configuration(
    image_config: dict[str, Any], field: Callable[[dict[str, Any]], object], expected: object
) -> None:
    assert field(image_config) == expected


@pytest.mark.parametrize(
    "absent",
    [
        pytest.param("/opt/venv/bin/pip", id="no-pip-in-the-venv"),
        pytest.param("/opt/venv/lib/python3.11/site-packages/setuptools", id="no-setuptools"),
        pytest.param("/root/.cache/pip", id="no-pip-cache"),
        pytest.param("/wheels", id="no-build-wheels"),
        pytest.param("/src", id="no-source-tree"),
        pytest.param("/usr/bin/gcc", id="no-compiler"),
    ],
)
def test_the_runtime_stage_carries_no_build_leftovers(
    podman: Podman, image: str, absent: str
) -> None:
    result = podman(
        "run",
        "--rm",
        "--no-healthcheck",
        "--user=0",
        "--entrypoint=test",
        image,
        "!",
        "-e",
        absent,
        check=False,
    )
    assert result.returncode == 0, f"{absent} exists in the image"
