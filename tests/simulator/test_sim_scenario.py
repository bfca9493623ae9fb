"""Scenario files: what they may contain, and errors that name the offending field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tqe_monitor.simulator import (
    BUILTIN_SCENARIOS,
    Component,
    FaultKind,
    KeySpec,
    ScenarioError,
    Shape,
    State,
    World,
    builtin_scenario,
    load_scenario,
    parse_scenario,
)
from tqe_monitor.simulator.actions import (
    AddFault,
    Drain,
    Maintenance,
    Revoke,
    SetShape,
    SetStatus,
    TopUp,
)
from tqe_monitor.simulator.state import Access


def test_full_example_is_read() -> None:
    scenario = parse_scenario(
        {
            "shape": "kebab",
            "speed": 2,
            "repeat": "2m",
            "keys": {"a": {"balance": 5, "scope": False}, "b": {"revoked": True}},
            "status": {"ai_service": "Degraded Performance"},
            "timeline": [
                {"at": "1m30s", "set_shape": "custom"},
                {"at": "10s", "set_status": {"ai_service": "operational"}},
                {"at": 40, "maintenance": {"duration": "20s"}},
                {"at": "5s", "drain": {"key": "a", "words_per_second": 2.5}},
                {"at": "500ms", "revoke": {"key": "b"}},
            ],
        }
    )
    assert (scenario.shape, scenario.speed, scenario.repeat) == (Shape.KEBAB, 2.0, 120.0)
    assert scenario.keys == {"a": KeySpec(balance=5, scope=False), "b": KeySpec(revoked=True)}
    assert scenario.status == {
        Component.PLATFORM: State.OPERATIONAL,
        Component.AI_SERVICE: State.DEGRADED,
    }
    assert [(event.at, event.action) for event in scenario.timeline] == [
        (0.5, Revoke(key="b")),
        (5.0, Drain(key="a", words_per_second=2.5)),
        (10.0, SetStatus(ai_service=State.OPERATIONAL)),
        (40.0, Maintenance(duration=20.0)),
        (90.0, SetShape(Shape.CUSTOM)),
    ]


def test_empty_document_is_a_quiet_scenario() -> None:
    scenario = parse_scenario({})
    assert (scenario.keys, scenario.timeline, scenario.shape) == ({}, (), Shape.DEFAULT)


@pytest.mark.parametrize(
    ("data", "expected_start"),
    [
        pytest.param({"shpae": "x"}, "shpae: unknown field", id="unknown-top-level"),
        pytest.param({"shape": "xml"}, "shape: expected one of: default, envelope_camel",
                     id="shape"),
        pytest.param({"speed": 0}, "speed: must be more than 0", id="speed-zero"),
        pytest.param({"speed": "fast"}, "speed: expected a number", id="speed-text"),
        pytest.param({"repeat": "soon"}, "repeat: expected a duration", id="repeat"),
        pytest.param({"keys": ["a"]}, "keys: expected a mapping", id="keys-list"),
        pytest.param({"keys": {"a": {"balance": -1}}}, "keys[0].balance: must be at least 0",
                     id="negative-balance"),
        pytest.param({"keys": {"a": {}, "b": {"balance": 1.5}}},
                     "keys[1].balance: expected a whole number", id="fractional-balance"),
        pytest.param({"keys": {"a": {"balanse": 1}}}, "keys[0].balanse: unknown field",
                     id="misspelt-key-field"),
        pytest.param({"keys": {"a": {"scope": "yes please"}}}, "keys[0].scope: expected true",
                     id="scope"),
        pytest.param({"status": {"platform": "on fire"}}, "status.platform: expected one of",
                     id="state"),
        pytest.param({"status": {"database": "operational"}}, "status.database: unknown field",
                     id="component"),
        pytest.param({"timeline": {"at": 1}}, "timeline: expected a list", id="timeline-map"),
        pytest.param({"timeline": [{"set_shape": "kebab"}]}, "timeline[0].at: required",
                     id="missing-at"),
        pytest.param({"timeline": [{"at": "1x", "set_shape": "kebab"}]},
                     "timeline[0].at: expected a duration", id="bad-at"),
        pytest.param({"timeline": [{"at": -1, "set_shape": "kebab"}]},
                     "timeline[0].at: expected a finite number of at least 0", id="negative-at"),
        pytest.param({"timeline": [{"at": 1}]}, "timeline[0]: expected exactly one action",
                     id="no-action"),
        pytest.param({"timeline": [{"at": 1, "set_shape": "kebab", "clear_faults": True}]},
                     "timeline[0]: expected exactly one action", id="two-actions"),
        pytest.param({"timeline": [{"at": 1, "explode": True}]},
                     "timeline[0].explode: unknown field", id="unknown-action"),
        pytest.param({"timeline": [{"at": 1, "set_shape": "kebab"},
                                   {"at": 2, "set_status": {"ai_service": "sad"}}]},
                     "timeline[1].set_status.ai_service: expected one of", id="set-status"),
        pytest.param({"timeline": [{"at": 1, "set_status": {}}]},
                     "timeline[0].set_status: give platform and/or ai_service", id="empty-status"),
        pytest.param({"timeline": [{"at": 1, "fault": {"kind": "gremlins"}}]},
                     "timeline[0].fault.kind: expected one of", id="fault-kind"),
        pytest.param({"timeline": [{"at": 1, "fault": {"count": 2}}]},
                     "timeline[0].fault.kind: required", id="fault-no-kind"),
        pytest.param({"timeline": [{"at": 1, "fault": {"kind": "slow", "count": 0}}]},
                     "timeline[0].fault.count: must be at least 1", id="fault-count"),
        pytest.param({"timeline": [{"at": 1, "fault": {"kind": "server_error",
                                                       "status_code": 404}}]},
                     "timeline[0].fault.status_code: expected a 5xx", id="fault-status-code"),
        pytest.param({"timeline": [{"at": 1, "fault": {"kind": "slow", "endpoint": "login"}}]},
                     "timeline[0].fault.endpoint: expected one of", id="fault-endpoint"),
        pytest.param({"timeline": [{"at": 1, "maintenance": {"duration": 5,
                                                             "components": ["platform", "db"]}}]},
                     "timeline[0].maintenance.components[1]: expected one of", id="maintenance"),
        pytest.param({"timeline": [{"at": 1, "maintenance": {}}]},
                     "timeline[0].maintenance.duration: required", id="maintenance-duration"),
        pytest.param({"keys": {"a": {}}, "timeline": [{"at": 1, "top_up": {"key": "a",
                                                                           "words": 0}}]},
                     "timeline[0].top_up.words: must be at least 1", id="top-up-words"),
        pytest.param({"timeline": [{"at": 1, "drain": {"key": "ghost", "words_per_second": 1}}]},
                     "timeline[0].drain.key: not a key under `keys`", id="undeclared-key"),
        pytest.param({"timeline": [{"at": 5, "set_key": {"key": "new"}},
                                   {"at": 1, "revoke": "new"}]},
                     "timeline[1].revoke.key: not a key", id="key-used-before-created"),
        pytest.param({"repeat": 60, "timeline": [{"at": "1m", "set_shape": "kebab"}]},
                     "timeline[0].at: must be earlier than repeat (60s)", id="after-repeat"),
    ],
)  # fmt: skip
def test_validation_errors_name_the_field(data: dict[str, object], expected_start: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    assert str(caught.value).startswith(expected_start)


def test_timeline_key_created_earlier_by_set_key_is_accepted() -> None:
    scenario = parse_scenario(
        {"timeline": [{"at": 9, "top_up": {"key": "n", "words": 3}},
                      {"at": 1, "set_key": {"key": "n"}}]}
    )  # fmt: skip
    assert scenario.timeline[1].action == TopUp(key="n", words=3)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"keys": {"sk-live-SECRET 123": {}}}, id="malformed-key-name"),
        pytest.param({"keys": {"sk-live-SECRET123": {"balance": "lots"}}}, id="key-entry"),
        pytest.param({"timeline": [{"at": 1, "revoke": "sk-live-SECRET123"}]}, id="reference"),
    ],
)
def test_errors_and_reprs_never_show_a_key(data: dict[str, object]) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    assert "SECRET" not in str(caught.value)
    valid = parse_scenario({"keys": {"sk-live-SECRET123": {}}})
    assert "SECRET" not in repr(valid)


def test_load_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("shape: components_list\nkeys:\n  k: {balance: 10}\n", encoding="utf-8")
    scenario = load_scenario(path)
    assert (scenario.shape, scenario.keys) == (Shape.COMPONENTS_LIST, {"k": KeySpec(10)})


def test_load_json_file(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"timeline": [{"at": 3, "fault": {"kind": "not_json"}}]}', encoding="utf-8")
    (event,) = load_scenario(path).timeline
    assert isinstance(event.action, AddFault)
    assert event.action.fault.kind is FaultKind.NOT_JSON


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        pytest.param("bad.yaml", "keys: [unclosed\n", "not valid YAML at line 2", id="yaml"),
        pytest.param("bad.json", "{'single': 1}", "not valid JSON", id="json"),
        pytest.param("list.yaml", "- 1\n", "expected a mapping", id="not-a-mapping"),
        pytest.param("field.yaml", "speed: -2\n", "speed: expected a finite number", id="field"),
    ],
)
def test_file_errors_name_the_file(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_scenario(tmp_path / "absent.yaml")


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_builtin_scenarios_load(name: str) -> None:
    assert builtin_scenario(name).keys


def test_unknown_builtin_scenario() -> None:
    with pytest.raises(ScenarioError, match="default, demo"):
        builtin_scenario("chaos")


def test_demo_scenario_tells_the_whole_story() -> None:
    demo = builtin_scenario("demo")
    assert set(demo.keys) == {"demo-prod-key", "demo-staging-key", "demo-eu-key"}
    assert 100_000 < demo.keys["demo-prod-key"].balance <= 200_000
    kinds = {type(event.action).__name__ for event in demo.timeline}
    assert {"SetStatus", "Maintenance", "Drain", "TopUp", "Revoke"} <= kinds
    assert max(event.at for event in demo.timeline) <= 100


def test_with_shape_overrides_the_shape_or_names_the_problem() -> None:
    assert builtin_scenario("default").with_shape("kebab").shape is Shape.KEBAB
    with pytest.raises(ValueError, match="shape: expected one of"):
        builtin_scenario("default").with_shape("yaml")


def test_demo_scenario_story_over_its_first_hundred_seconds() -> None:
    world = World(builtin_scenario("demo"))
    prod, ai, platform = [], [], []
    for t in range(101):  # one pass: the world's time only moves forward
        prod.append(world.wallet("demo-prod-key", now=float(t))[0])
        status = world.status(now=float(t))
        ai.append(status[Component.AI_SERVICE])
        platform.append(status[Component.PLATFORM])
    assert prod[0] > 100_000
    crossed_100k = next(t for t, words in enumerate(prod) if words < 100_000)
    crossed_10k = next(t for t, words in enumerate(prod) if words < 10_000)
    topped_up = next(t for t in range(crossed_10k, 101) if prod[t] > 100_000)
    assert 0 < crossed_100k < crossed_10k < topped_up < 100
    assert min(prod) > 0, "prod never runs dry: the demo shows thresholds, not an outage"
    degraded = [t for t, state in enumerate(ai) if state is State.DEGRADED]
    assert degraded
    assert ai[max(degraded) + 1] is State.OPERATIONAL
    in_maintenance = [t for t, state in enumerate(platform) if state is State.MAINTENANCE]
    assert in_maintenance
    assert max(in_maintenance) < 100
    assert platform[max(in_maintenance) + 1] is State.OPERATIONAL
    assert world.authorize("demo-staging-key", now=100.0) is Access.REVOKED
    assert world.authorize("demo-eu-key", now=100.0) is Access.GRANTED
