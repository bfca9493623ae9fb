"""The committed dashboards: exactly what the generator writes, valid against Grafana's dashboard
schema as grafana-foundation-sdk models it, portable (no data source UID) and laid out on the
grid without overlaps. Each check is also shown to fail on a broken dashboard.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from tqe_monitor.condition_metrics import ConditionMetrics
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.notify.notify_metrics import NotificationMetrics

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # the SDK prefers its v2 format
    from grafana_foundation_sdk.cog import runtime
    from grafana_foundation_sdk.cog.encoder import JSONEncoder
    from grafana_foundation_sdk.cog.plugins import register_default_plugins
    from grafana_foundation_sdk.models.dashboard import Dashboard

register_default_plugins()

DASHBOARD_NAMES = ["tqe-overview.json", "tqe-target.json"]


def schema_differences(data: dict[str, Any]) -> list[str]:
    """Where `data` differs from itself decoded into the SDK's models and encoded again.

    The models know every field of the dashboard, panel, query and of each panel type's
    options, so an unknown or misspelt key is dropped on the way and shows up here.
    """
    decoded = Dashboard.from_json(copy.deepcopy(data))
    again = json.loads(json.dumps(decoded, cls=JSONEncoder))
    return list(_diff(data, again, "$"))


def _diff(a: Any, b: Any, path: str) -> Any:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in b:
                yield f"{path}.{key}: not in the schema"
            elif key not in a:
                yield f"{path}.{key}: added by the schema"
            else:
                yield from _diff(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _diff(x, y, f"{path}[{index}]")
    elif a != b or type(a) is not type(b):
        yield f"{path}: {a!r} became {b!r}"


def test_committed_json_is_what_the_generator_writes(mixin: Any) -> None:
    generated = mixin.load_generator().generate()
    committed = {path.name: path.read_text() for path in mixin.dashboards_dir.glob("*.json")}

    assert sorted(generated) == DASHBOARD_NAMES
    outdated = [name for name in generated if committed.get(name) != generated[name]]
    assert outdated == [], "out of date: run `.venv/bin/python dashboards/generate.py`"
    assert sorted(committed) == DASHBOARD_NAMES, "a JSON file the generator does not write"


def test_a_hand_edited_dashboard_is_reported_stale(mixin: Any, tmp_path: Any) -> None:
    generator = mixin.load_generator()
    for name, text in generator.generate().items():
        (tmp_path / name).write_text(text)
    assert generator.stale(tmp_path) == []

    edited = tmp_path / "tqe-target.json"
    edited.write_text(edited.read_text().replace('"refresh": "1m"', '"refresh": "5s"'))

    assert generator.stale(tmp_path) == ["tqe-target.json"]


@pytest.mark.parametrize("name", DASHBOARD_NAMES)
def test_dashboard_matches_the_grafana_schema(mixin: Any, name: str) -> None:
    data = mixin.committed_dashboards()[name]
    assert schema_differences(data) == []
    assert data["schemaVersion"] >= 39


def _unknown_panel_key(data: dict[str, Any]) -> None:
    data["panels"][1]["colour"] = "red"


def _misspelt_stat_option(data: dict[str, Any]) -> None:
    stat = next(p for p in data["panels"] if p["type"] == "stat")
    stat["options"]["colorMod"] = stat["options"].pop("colorMode")


def _misspelt_timeseries_field_option(data: dict[str, Any]) -> None:
    series = next(p for p in data["panels"] if p["type"] == "timeseries")
    custom = series["fieldConfig"]["defaults"]["custom"]
    custom["lineWidht"] = custom.pop("lineWidth")


def _unknown_variable_key(data: dict[str, Any]) -> None:
    data["templating"]["list"][0]["datasourceUid"] = "abc"


@pytest.mark.parametrize(
    "breakage",
    [
        _unknown_panel_key,
        _misspelt_stat_option,
        _misspelt_timeseries_field_option,
        _unknown_variable_key,
    ],
    ids=["panel key", "stat option", "timeseries field option", "variable key"],
)
def test_schema_check_catches_a_broken_dashboard(mixin: Any, breakage: Any) -> None:
    data = mixin.committed_dashboards()["tqe-overview.json"]
    breakage(data)
    assert schema_differences(data) != []


def _datasource_refs(node: Any) -> Any:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "datasource":
                yield value
            else:
                yield from _datasource_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _datasource_refs(item)


@pytest.mark.parametrize("name", DASHBOARD_NAMES)
def test_no_data_source_uid_is_hard_coded(mixin: Any, name: str) -> None:
    data = mixin.committed_dashboards()[name]
    refs = list(_datasource_refs(data["panels"])) + list(_datasource_refs(data["templating"]))

    assert refs
    assert all(ref == {"type": "prometheus", "uid": "${datasource}"} for ref in refs), refs
    variables = {variable["name"]: variable for variable in data["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert {"service", "target"} <= set(variables)


@pytest.mark.parametrize("name", DASHBOARD_NAMES)
def test_panels_tile_the_grid_without_overlapping(mixin: Any, name: str) -> None:
    placed = list(mixin.panels(mixin.committed_dashboards()[name]))
    ids = [panel["id"] for panel in placed]
    assert len(ids) == len(set(ids)), "duplicate panel ids"

    cells: dict[tuple[int, int], str] = {}
    for panel in placed:
        grid = panel["gridPos"]
        assert all(isinstance(grid[key], int) for key in ("x", "y", "w", "h"))
        assert grid["x"] >= 0, panel["title"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"{panel['title']} overlaps {cells[(x, y)]}"
                cells[(x, y)] = panel["title"]


def test_every_panel_has_a_description_and_its_own_queries(panel_entry: Any) -> None:
    _, panel = panel_entry
    assert panel["type"] in runtime.Runtime().panelcfg_variants
    assert panel["description"].strip()
    refs = [target["refId"] for target in panel["targets"]]
    assert refs
    assert len(refs) == len(set(refs))
    assert all(target["expr"].strip() for target in panel["targets"])


def test_the_overview_answers_the_wall_screen_questions(mixin: Any) -> None:
    overview = mixin.committed_dashboards()["tqe-overview.json"]
    by_title = {panel["title"]: panel["type"] for panel in mixin.panels(overview)}

    assert by_title["State over time"] == "state-timeline"
    for title in ("State now", "Remaining words", "Empty in", "Burn rate", "Poll success"):
        assert by_title[title] == "stat", title
    for title in ("Remaining words over time", "Poll latency p50 / p95", "Poll errors by reason"):
        assert by_title[title] == "timeseries", title
    assert by_title["Active conditions"] in {"table", "stat"}
    assert {"Notifications", "Queue depth", "Notifications per minute"} <= set(by_title)


def exported_metric_names() -> set[str]:
    """Every series name the daemon can export, from its own metric definitions."""
    registry = CollectorRegistry()
    MonitorMetrics(registry, "test")
    ConditionMetrics(registry)
    NotificationMetrics(registry, ["console"])
    suffixes = {
        "counter": ("_total",),
        "histogram": ("_bucket", "_count", "_sum"),
        "gauge": ("",),
        "stateset": ("",),
    }
    return {
        family.name + suffix for family in registry.collect() for suffix in suffixes[family.type]
    }


def test_every_queried_metric_is_one_the_daemon_exports(mixin: Any) -> None:
    expressions = [query.expr for query in mixin.dashboard_queries()]
    expressions += [rule["expr"] for rule in mixin.alert_rules()]
    expressions += [selector for _, _, selector in mixin.variable_selectors()]
    queried = {name for expr in expressions for name in re.findall(r"\btqe_\w+", expr)}

    unknown = queried - exported_metric_names()
    assert unknown == set()
    assert "tqe_wallet_threshold_words" in queried
