"""Fixtures for the monitoring-mixin tests: the committed dashboards and rules, and what is
inside them (panels, PromQL expressions), read the way Grafana and Prometheus read them.

Panels are parametrized at collection time (`pytest_generate_tests`), so each panel is its own
test case with its dashboard and title as the id.
"""

from __future__ import annotations

import importlib.util
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DASHBOARDS = REPO / "dashboards"
PROMETHEUS_CONFIG = REPO / "config" / "prometheus" / "prometheus.yml"
ALERTS = REPO / "config" / "prometheus" / "alerts.yml"
ALERT_TESTS = Path(__file__).resolve().parent / "alerts_test.yml"
RUNBOOK = REPO / "docs" / "runbook.md"
GRAFANA_PROVISIONING = REPO / "config" / "grafana" / "provisioning"


@dataclass(frozen=True)
class PanelQuery:
    """One Prometheus target of one panel, as Grafana would send it."""

    dashboard: str
    panel: str
    ref: str
    expr: str
    instant: bool


def committed_dashboards() -> dict[str, dict[str, Any]]:
    """File name -> parsed JSON of every dashboard in dashboards/."""
    return {path.name: json.loads(path.read_text()) for path in sorted(DASHBOARDS.glob("*.json"))}


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel, including those nested in collapsed rows."""
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def panel_queries(name: str, panel: dict[str, Any]) -> list[PanelQuery]:
    return [
        PanelQuery(name, panel["title"], target["refId"], target["expr"], target["instant"])
        for target in panel.get("targets", [])
    ]


def dashboard_queries() -> list[PanelQuery]:
    return [
        query
        for name, dashboard in committed_dashboards().items()
        for panel in panels(dashboard)
        for query in panel_queries(name, panel)
    ]


LABEL_VALUES = re.compile(r"^label_values\((?P<selector>.+),\s*(?P<label>\w+)\)$")


def variable_selectors() -> list[tuple[str, str, str]]:
    """(dashboard, variable, series selector) of every `label_values(...)` query variable."""
    found = []
    for name, dashboard in committed_dashboards().items():
        for variable in dashboard["templating"]["list"]:
            if variable["type"] == "query":
                match = LABEL_VALUES.match(variable["query"])
                assert match, f"{name} ${variable['name']}: not a label_values query"
                found.append((name, variable["name"], match["selector"]))
    return found


def alert_rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def free_port() -> int:
    """A loopback port that was free a moment ago (for programs that cannot report theirs)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def load_generator() -> ModuleType:
    """dashboards/generate.py, loaded by path (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location(
        "tqe_dashboards_generate", DASHBOARDS / "generate.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Mixin:
    """Paths and readers of the mixin's files, handed to tests by the `mixin` fixture (test
    modules cannot import this conftest)."""

    repo = REPO
    dashboards_dir = DASHBOARDS
    prometheus_config = PROMETHEUS_CONFIG
    alerts = ALERTS
    alert_tests = ALERT_TESTS
    runbook = RUNBOOK
    grafana_provisioning = GRAFANA_PROVISIONING
    committed_dashboards = staticmethod(committed_dashboards)
    panels = staticmethod(panels)
    panel_queries = staticmethod(panel_queries)
    dashboard_queries = staticmethod(dashboard_queries)
    variable_selectors = staticmethod(variable_selectors)
    alert_rules = staticmethod(alert_rules)
    load_generator = staticmethod(load_generator)
    free_port = staticmethod(free_port)


@pytest.fixture(scope="session")
def mixin() -> type[Mixin]:
    return Mixin


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "alert_rule" in metafunc.fixturenames:
        rules = [rule for rule in alert_rules() if "alert" in rule]
        metafunc.parametrize("alert_rule", rules, ids=[rule["alert"] for rule in rules])
    if "panel_entry" in metafunc.fixturenames:
        entries = [
            (name, panel)
            for name, dashboard in committed_dashboards().items()
            for panel in panels(dashboard)
            if panel["type"] != "row"
        ]
        metafunc.parametrize(
            "panel_entry",
            entries,
            ids=[f"{name.removesuffix('.json')}:{panel['title']}" for name, panel in entries],
        )
