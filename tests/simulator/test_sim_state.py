"""The pure simulated world: timeline, drains, top-ups, maintenance, faults, repeat (no sleep)."""

from __future__ import annotations

import pytest

from tqe_monitor.simulator import Component, Endpoint, FaultKind, InvalidInput, State, World
from tqe_monitor.simulator.actions import (
    AddFault,
    Drain,
    FaultSpec,
    SetKey,
    SetStatus,
    TopUp,
)
from tqe_monitor.simulator.scenario import parse_scenario
from tqe_monitor.simulator.state import Access


def world_of(**scenario: object) -> World:
    return World(parse_scenario(scenario))


def balance(world: World, key: str, now: float) -> int:
    return world.wallet(key, now=now)[0]


DRAINING = {
    "keys": {"k": {"balance": 1000}},
    "timeline": [
        {"at": "10s", "drain": {"key": "k", "words_per_second": 10}},
        {"at": "50s", "top_up": {"key": "k", "words": 500}},
        {"at": "60s", "drain": {"key": "k", "words_per_second": 0}},
    ],
}


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        pytest.param(0.0, 1000, id="before-drain"),
        pytest.param(10.0, 1000, id="drain-starts"),
        pytest.param(15.0, 950, id="five-seconds-in"),
        pytest.param(49.9, 601, id="just-before-top-up"),
        pytest.param(50.0, 1100, id="top-up-adds-to-drained-balance"),
        pytest.param(55.0, 1050, id="drain-continues-after-top-up"),
        pytest.param(60.0, 1000, id="drain-stopped"),
        pytest.param(500.0, 1000, id="stays-after-stop"),
    ],
)
def test_balance_follows_drain_and_top_up(now: float, expected: int) -> None:
    assert balance(world_of(**DRAINING), "k", now) == expected


@pytest.mark.parametrize(
    ("queries", "expected"),
    [
        pytest.param([15.0], 950, id="one-jump"),
        pytest.param([11.0, 12.0, 13.0, 14.0, 15.0], 950, id="many-small-steps"),
        pytest.param([20.0, 55.0], 1050, id="step-over-top-up"),
    ],
)
def test_balance_does_not_depend_on_how_often_it_is_read(
    queries: list[float], expected: int
) -> None:
    world = world_of(**DRAINING)
    for now in queries:
        result = balance(world, "k", now)
    assert result == expected


def test_drain_never_goes_below_zero_and_stamps_the_moment_it_emptied() -> None:
    world = world_of(
        keys={"k": {"balance": 100}},
        timeline=[{"at": 10, "drain": {"key": "k", "words_per_second": 10}}],
    )
    assert world.wallet("k", now=1000.0) == (0, 20.0)


@pytest.mark.parametrize(
    ("now", "expected_updated_at"),
    [
        pytest.param(5.0, 0.0, id="static-balance-keeps-start-time"),
        pytest.param(30.0, 30.0, id="live-drain-changes-it-continuously"),
        pytest.param(50.0, 50.0, id="top-up"),
        pytest.param(90.0, 60.0, id="last-change-when-drain-stopped"),
    ],
)
def test_last_update_time_moves_only_when_the_balance_changes(
    now: float, expected_updated_at: float
) -> None:
    assert world_of(**DRAINING).wallet("k", now=now)[1] == expected_updated_at


def test_charge_takes_words_or_refuses_without_taking_any() -> None:
    world = world_of(keys={"k": {"balance": 10}})
    assert world.charge("k", 4, now=1.0)
    assert world.wallet("k", now=2.0) == (6, 1.0)
    assert not world.charge("k", 7, now=3.0)
    assert world.wallet("k", now=3.0) == (6, 1.0)


MAINTENANCE = {
    "status": {"platform": "operational", "ai_service": "degraded"},
    "timeline": [
        {"at": 40, "maintenance": {"duration": "20s", "components": ["platform"]}},
        {"at": 50, "set_status": {"platform": "degraded"}},
    ],
}


@pytest.mark.parametrize(
    ("now", "platform", "ai_service"),
    [
        pytest.param(39.9, State.OPERATIONAL, State.DEGRADED, id="before-window"),
        pytest.param(40.0, State.MAINTENANCE, State.DEGRADED, id="window-starts"),
        pytest.param(55.0, State.MAINTENANCE, State.DEGRADED, id="window-hides-base-change"),
        pytest.param(60.0, State.DEGRADED, State.DEGRADED, id="window-ends-to-new-base"),
    ],
)
def test_maintenance_window_overrides_base_state_while_it_lasts(
    now: float, platform: State, ai_service: State
) -> None:
    status = world_of(**MAINTENANCE).status(now=now)
    assert status == {Component.PLATFORM: platform, Component.AI_SERVICE: ai_service}


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        pytest.param(10.0, 0.0, id="nothing-changed-yet"),
        pytest.param(45.0, 40.0, id="window-start"),
        pytest.param(55.0, 50.0, id="base-change-during-window"),
        pytest.param(70.0, 60.0, id="window-end"),
    ],
)
def test_status_update_time_is_the_last_visible_change(now: float, expected: float) -> None:
    assert world_of(**MAINTENANCE).status_updated_at(now=now) == expected


def fault(
    endpoint: Endpoint = Endpoint.STATUS, count: int | None = None, duration: float | None = None
) -> AddFault:
    spec = FaultSpec(endpoint, FaultKind.SERVER_ERROR, count=count, duration=duration)
    return AddFault(spec)


@pytest.mark.parametrize(
    ("added", "requests", "expected"),
    [
        pytest.param(fault(count=2), [(Endpoint.STATUS, 1.0)] * 3, [True, True, False],
                     id="count-expires"),
        pytest.param(fault(duration=5.0), [(Endpoint.STATUS, 1.0), (Endpoint.STATUS, 5.9),
                     (Endpoint.STATUS, 6.0)], [True, True, False], id="duration-expires"),
        pytest.param(fault(count=5, duration=2.0), [(Endpoint.STATUS, 1.5), (Endpoint.STATUS, 3.0)],
                     [True, False], id="duration-ends-before-count"),
        pytest.param(fault(count=1, duration=60.0), [(Endpoint.STATUS, 2.0)] * 2, [True, False],
                     id="count-ends-before-duration"),
        pytest.param(fault(), [(Endpoint.STATUS, t) for t in (1.0, 100.0, 1e6)],
                     [True, True, True], id="unlimited"),
        pytest.param(fault(count=1), [(Endpoint.WALLET, 1.0), (Endpoint.CHECK, 1.0),
                     (Endpoint.STATUS, 1.0)], [False, False, True], id="other-endpoints-spared"),
        pytest.param(fault(Endpoint.ALL, count=3), [(Endpoint.WALLET, 1.0), (Endpoint.CHECK, 1.0),
                     (Endpoint.STATUS, 1.0), (Endpoint.STATUS, 1.0)], [True, True, True, False],
                     id="all-endpoints-share-the-count"),
    ],
)  # fmt: skip
def test_fault_lasts_for_its_count_or_duration(
    added: AddFault, requests: list[tuple[Endpoint, float]], expected: list[bool]
) -> None:
    world = world_of()
    world.apply(added, now=1.0)
    taken = [world.take_fault(endpoint, now=now) is not None for endpoint, now in requests]
    assert taken == expected


def test_clear_faults_from_timeline_stops_them() -> None:
    world = world_of(
        timeline=[
            {"at": 0, "fault": {"endpoint": "wallet", "kind": "slow"}},
            {"at": 10, "clear_faults": True},
        ]
    )
    spec = world.take_fault(Endpoint.WALLET, now=1.0)
    assert spec is not None
    assert (spec.kind, spec.delay) == (FaultKind.SLOW, 2.0)
    assert world.take_fault(Endpoint.WALLET, now=10.0) is None


REPEATING = {
    "repeat": "100s",
    "keys": {"k": {"balance": 1000}},
    "timeline": [
        {"at": 10, "set_status": {"ai_service": "degraded"}},
        {"at": 20, "drain": {"key": "k", "words_per_second": 1}},
        {"at": 30, "set_shape": "kebab"},
    ],
}


@pytest.mark.parametrize(
    ("now", "ai_service", "words", "shape"),
    [
        pytest.param(5.0, State.OPERATIONAL, 1000, "default", id="first-run-start"),
        pytest.param(50.0, State.DEGRADED, 970, "kebab", id="first-run-middle"),
        pytest.param(100.0, State.OPERATIONAL, 1000, "default", id="reset-at-repeat"),
        pytest.param(150.0, State.DEGRADED, 970, "kebab", id="second-run-middle"),
        pytest.param(10_050.0, State.DEGRADED, 970, "kebab", id="many-runs-later"),
    ],
)
def test_repeat_restarts_the_story(now: float, ai_service: State, words: int, shape: str) -> None:
    world = world_of(**REPEATING)
    assert world.status(now=now)[Component.AI_SERVICE] is ai_service
    assert balance(world, "k", now) == words
    assert world.shape(now=now).value == shape


def test_repeat_discards_changes_made_through_the_control_api() -> None:
    world = world_of(**REPEATING)
    world.apply(SetKey(key="extra", balance=5), now=1.0)
    assert world.authorize("extra", now=99.0) is Access.GRANTED
    assert world.authorize("extra", now=101.0) is Access.INVALID


def test_events_at_the_same_instant_apply_in_file_order() -> None:
    world = world_of(
        timeline=[
            {"at": 5, "set_status": {"platform": "maintenance"}},
            {"at": 5, "set_status": {"platform": "degraded"}},
        ]
    )
    assert world.status(now=5.0)[Component.PLATFORM] is State.DEGRADED


def test_time_never_moves_backwards() -> None:
    world = world_of(**DRAINING)
    assert balance(world, "k", 20.0) == 900
    assert balance(world, "k", 12.0) == 900


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param(None, Access.MISSING, id="no-header"),
        pytest.param("nope", Access.INVALID, id="unknown"),
        pytest.param("revoked", Access.REVOKED, id="revoked"),
        pytest.param("unscoped", Access.NO_SCOPE, id="no-scope"),
        pytest.param("good", Access.GRANTED, id="valid"),
    ],
)
def test_authorize_for_protected_resources(key: str | None, expected: Access) -> None:
    world = world_of(
        keys={
            "good": {"balance": 1},
            "revoked": {"balance": 1, "revoked": True},
            "unscoped": {"balance": 1, "scope": False},
        }
    )
    assert world.authorize(key, now=0.0) is expected


def test_status_needs_no_scope_but_still_a_valid_key() -> None:
    world = world_of(keys={"unscoped": {"scope": False}, "revoked": {"revoked": True}})
    assert world.authorize("unscoped", now=0.0, needs_scope=False) is Access.GRANTED
    assert world.authorize("revoked", now=0.0, needs_scope=False) is Access.REVOKED


def test_timeline_revoke_and_set_key_change_access() -> None:
    world = world_of(
        keys={"a": {"balance": 1}},
        timeline=[
            {"at": 10, "revoke": "a"},
            {"at": 20, "set_key": {"key": "b", "balance": 7, "scope": False}},
            {"at": 30, "set_key": {"key": "b", "scope": True}},
        ],
    )
    assert [world.authorize("a", now=t) for t in (9.0, 10.0)] == [Access.GRANTED, Access.REVOKED]
    assert world.authorize("b", now=25.0) is Access.NO_SCOPE
    assert world.authorize("b", now=30.0) is Access.GRANTED
    assert balance(world, "b", 30.0) == 7


@pytest.mark.parametrize(
    "action",
    [
        pytest.param(TopUp(key="ghost", words=1), id="top-up"),
        pytest.param(Drain(key="ghost", words_per_second=1), id="drain"),
    ],
)
def test_actions_on_unknown_keys_are_rejected_without_naming_the_key(action: TopUp | Drain) -> None:
    with pytest.raises(InvalidInput) as caught:
        world_of().apply(action, now=0.0)
    assert caught.value.field == "key"
    assert "ghost" not in str(caught.value)


def test_snapshot_reports_effective_state_keys_and_faults() -> None:
    world = world_of(**MAINTENANCE, keys={"k": {"balance": 3}})
    world.apply(fault(count=2), now=41.0)
    world.apply(SetStatus(ai_service=State.OPERATIONAL), now=42.0)
    snap = world.snapshot(now=45.0)
    assert snap["status"] == {"platform": "maintenance", "ai_service": "operational"}
    assert snap["base_status"] == {"platform": "operational", "ai_service": "operational"}
    assert snap["keys"] == {
        "k": {"balance": 3, "updated_at": 0.0, "words_per_second": 0.0, "scope": True,
              "revoked": False}
    }  # fmt: skip
    assert snap["faults"] == [
        {"endpoint": "status", "kind": "server_error", "remaining": 2, "expires_at": None,
         "delay": 0.0, "status_code": 500, "retry_after": 5}
    ]  # fmt: skip


def test_repr_does_not_list_keys() -> None:
    assert "secret-key" not in repr(world_of(keys={"secret-key": {"balance": 1}}))
