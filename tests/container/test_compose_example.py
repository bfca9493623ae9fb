"""config/compose.yaml: it parses, and everything it points at exists and fits together.

There is no compose implementation here; what `docker compose up` would trip over is checked
directly: bind-mounted files and folders that do not exist, undeclared volumes and secrets, a
tqe-monitor config that does not load or names key files compose does not mount, secrets that
git would commit, Grafana provisioning that points elsewhere than the mounts.
"""

from __future__ import annotations

import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from tqe_monitor.config import load_config

REPO = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO / "config"
COMPOSE: dict[str, Any] = yaml.safe_load((CONFIG_DIR / "compose.yaml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def _bind_mounts(service: str) -> dict[PurePosixPath, Path]:
    """Container path -> host path of the service's bind mounts (not named volumes)."""
    mounts = {}
    for volume in SERVICES[service].get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith((".", "/")):
            mounts[PurePosixPath(target)] = (CONFIG_DIR / source).resolve()
    return mounts


def test_the_stack_is_tqe_monitor_prometheus_and_grafana() -> None:
    assert set(SERVICES) == {"tqe-monitor", "prometheus", "grafana"}


def test_tqe_monitor_is_built_from_the_repository_dockerfile() -> None:
    context = (CONFIG_DIR / SERVICES["tqe-monitor"]["build"]["context"]).resolve()
    assert (context / "Dockerfile").is_file()


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_bind_mount_source_exists(service: str) -> None:
    missing = [str(host) for host in _bind_mounts(service).values() if not host.exists()]
    assert not missing, f"{service} mounts missing files: {missing}"


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_named_volumes_and_secrets_are_declared(service: str) -> None:
    spec = SERVICES[service]
    named = {v.split(":")[0] for v in spec.get("volumes", []) if not v.startswith((".", "/"))}
    assert named <= set(COMPOSE.get("volumes", {}))
    assert set(spec.get("secrets", [])) <= set(COMPOSE.get("secrets", {}))


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_ports_are_published_on_loopback_only(service: str) -> None:
    assert all(port.startswith("127.0.0.1:") for port in SERVICES[service].get("ports", []))


def test_secret_files_live_where_git_ignores_them() -> None:
    for name, secret in COMPOSE["secrets"].items():
        path = (CONFIG_DIR / secret["file"]).resolve()
        assert path.parent == CONFIG_DIR / "secrets", name
        ignored = subprocess.run(
            ["git", "check-ignore", "--quiet", "--no-index", str(path)], cwd=REPO, check=False
        )
        assert ignored.returncode == 0, f"git would commit {path}"


def test_the_tqe_monitor_config_loads_and_reads_keys_from_its_compose_secrets() -> None:
    mounts = _bind_mounts("tqe-monitor")
    config = mounts[PurePosixPath("/etc/tqe-monitor/config.yaml")]
    settings = load_config(config).settings
    mounted = {PurePosixPath("/run/secrets", name) for name in SERVICES["tqe-monitor"]["secrets"]}
    for name, target in settings.targets.items():
        assert target.api_key is None, f"{name}: keys belong in secret files"
        assert PurePosixPath(str(target.api_key_file)) in mounted, name


def test_the_daemon_stops_with_sigterm_and_a_grace_period_longer_than_its_drain() -> None:
    spec = SERVICES["tqe-monitor"]
    assert spec["stop_signal"] == "SIGTERM"
    assert spec["stop_grace_period"] == "15s"  # the daemon drains for 5 s at most


def _prometheus_host() -> str:
    """The name under which the other containers reach Prometheus (and Prometheus's own
    network: sharing tqe-monitor's, it sees the daemon on 127.0.0.1)."""
    mode: str = SERVICES["prometheus"].get("network_mode", "")
    return mode.removeprefix("service:") if mode.startswith("service:") else "prometheus"


def test_prometheus_scrapes_the_daemon_and_loads_the_shipped_rules() -> None:
    mounts = _bind_mounts("prometheus")
    flags = dict(arg.partition("=")[::2] for arg in SERVICES["prometheus"]["command"])
    config_path = PurePosixPath(flags["--config.file"])
    prometheus = yaml.safe_load(mounts[config_path].read_text())

    loaded = {mounts[config_path.parent / rules] for rules in prometheus["rule_files"]}
    assert loaded == {CONFIG_DIR / "prometheus" / "alerts.yml"}

    (job,) = (j for j in prometheus["scrape_configs"] if j["job_name"] == "tqe-monitor")
    targets = [target for static in job["static_configs"] for target in static["targets"]]
    daemon = "127.0.0.1" if _prometheus_host() == "tqe-monitor" else "tqe-monitor"
    assert targets == [f"{daemon}:9787"]


def test_grafana_provisions_the_repository_dashboards_from_prometheus() -> None:
    mounts = _bind_mounts("grafana")
    provisioning = mounts[PurePosixPath("/etc/grafana/provisioning")]
    providers = yaml.safe_load((provisioning / "dashboards" / "tqe-monitor.yaml").read_text())
    dashboards_path = PurePosixPath(providers["providers"][0]["options"]["path"])
    assert mounts[dashboards_path] == REPO / "dashboards"
    sources = yaml.safe_load((provisioning / "datasources" / "prometheus.yaml").read_text())
    assert [s["url"] for s in sources["datasources"]] == [f"http://{_prometheus_host()}:9090"]
