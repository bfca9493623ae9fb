"""The planner, step by step with a fixed `now`: grouping, resolves, maintenance, reminders."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tqe_monitor.notify.planner import MessageSettings, Plan, Planner
from tqe_monitor.notify.routing import Route, Router
from tqe_monitor.store.outbox import NOTIFIED_HELD, NOTIFIED_YES, PendingEvent
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, ConditionState, Severity

T0 = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
GROUP_WAIT = 10.0
REPEAT = 3600.0

DEGRADED = ConditionKey(ConditionKind.COMPONENT_DEGRADED, "tqe", "", "ai_service")
UNKNOWN = ConditionKey(ConditionKind.COMPONENT_UNKNOWN, "tqe", "", "platform")
UNREACHABLE = ConditionKey(ConditionKind.SERVICE_UNREACHABLE, "tqe")
MAINTENANCE = ConditionKey(ConditionKind.COMPONENT_MAINTENANCE, "tqe", "", "ai_service")
PLATFORM_MAINTENANCE = ConditionKey(ConditionKind.COMPONENT_MAINTENANCE, "tqe", "", "platform")
KEY_REJECTED = ConditionKey(ConditionKind.API_KEY_REJECTED, "tqe", "production")
WALLET_LOW = ConditionKey(ConditionKind.WALLET_LOW, "tqe", "staging", "100000")
EU_DEGRADED = ConditionKey(ConditionKind.COMPONENT_DEGRADED, "tqe-eu", "", "ai_service")

SEVERITY = {
    ConditionKind.COMPONENT_DEGRADED: Severity.WARNING,
    ConditionKind.COMPONENT_UNKNOWN: Severity.WARNING,
    ConditionKind.COMPONENT_MAINTENANCE: Severity.INFO,
    ConditionKind.SERVICE_UNREACHABLE: Severity.CRITICAL,
    ConditionKind.API_KEY_REJECTED: Severity.CRITICAL,
    ConditionKind.WALLET_LOW: Severity.WARNING,
}


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def event(
    seq: int,
    key: ConditionKey,
    *,
    raised: bool = True,
    when: float = 0.0,
    details: dict[str, Any] | None = None,
) -> PendingEvent:
    return PendingEvent(
        seq,
        at(when),
        key.id,
        key.service,
        key.target,
        key.name,
        SEVERITY[key.kind].value,
        raised,
        at(when),
        details or {},
    )


def active(key: ConditionKey, since: float = 0.0) -> ConditionState:
    return ConditionState(key, SEVERITY[key.kind], True, at(since), {})


def planner(*routes: Route, channels: Sequence[str] = ("mail", "slack")) -> Planner:
    tags = {name: frozenset({f"tag-{name}"}) for name in channels}
    counter = itertools.count(1)
    return Planner(
        Router(tags, routes, repeat_interval=REPEAT, send_resolved=True),
        group_wait=GROUP_WAIT,
        new_id=lambda: f"ref{next(counter)}",
        settings=MessageSettings(dashboard_url="https://dash.example.com"),
    )


def sent_to(plan: Plan) -> dict[tuple[str, ...], str]:
    """channels -> body, for each planned notification."""
    return {n.channels: n.body for n in plan.notifications}


# -- grouping ---------------------------------------------------------------------------------


def test_events_wait_for_group_wait_then_go_out_as_one_message_shared_by_channels() -> None:
    events = [event(1, DEGRADED), event(2, KEY_REJECTED, when=3)]
    plan_early = planner().events(events, {}, [], at(GROUP_WAIT - 0.001))
    assert not plan_early
    plan = planner().events(events, {}, [], at(GROUP_WAIT))
    assert len(plan.notifications) == 1
    [notification] = plan.notifications
    assert notification.channels == ("mail", "slack")
    assert notification.service == "tqe"
    assert notification.category == "event"
    assert notification.first_event_at == T0
    assert notification.created_at == at(GROUP_WAIT)
    assert notification.title == "[CRITICAL] tqe: 2 raised"
    assert notification.notify_type == "failure"
    assert "AI service degraded" in notification.body
    assert "production: API key rejected" in notification.body
    assert "Dashboard: https://dash.example.com" in notification.body
    assert notification.body.endswith(f"ref: {notification.id}")
    assert plan.consumed == {1: NOTIFIED_YES, 2: NOTIFIED_YES}
    assert sorted(plan.announce) == sorted(
        (key.id, channel, at(GROUP_WAIT))
        for key in (DEGRADED, KEY_REJECTED)
        for channel in ("mail", "slack")
    )
    assert plan.unannounce == []


def test_the_oldest_event_of_a_group_decides_when_it_goes_out() -> None:
    """A later event joins its service's group instead of restarting the wait."""
    events = [event(1, DEGRADED), event(2, KEY_REJECTED, when=GROUP_WAIT - 1)]
    plan = planner().events(events, {}, [], at(GROUP_WAIT))
    assert [n.title for n in plan.notifications] == ["[CRITICAL] tqe: 2 raised"]


def test_two_services_make_two_messages() -> None:
    events = [event(1, DEGRADED), event(2, EU_DEGRADED)]
    plan = planner().events(events, {}, [], at(GROUP_WAIT))
    assert sorted(n.title for n in plan.notifications) == [
        "[WARNING] tqe-eu: AI service degraded",
        "[WARNING] tqe: AI service degraded",
    ]
    assert len({n.id for n in plan.notifications}) == 2


def test_a_service_whose_group_is_young_waits_while_another_goes_out() -> None:
    events = [event(1, DEGRADED), event(2, EU_DEGRADED, when=5)]
    plan = planner().events(events, {}, [], at(GROUP_WAIT))
    assert [n.service for n in plan.notifications] == ["tqe"]
    assert plan.consumed == {1: NOTIFIED_YES}


def test_channels_with_different_content_get_different_messages() -> None:
    routes = (
        Route(severities=frozenset({"critical"}), channels=("mail",)),
        Route(channels=("slack",)),
    )
    events = [event(1, DEGRADED), event(2, KEY_REJECTED)]
    plan = planner(*routes).events(events, {}, [], at(GROUP_WAIT))
    titles = {n.channels: n.title for n in plan.notifications}
    assert titles == {
        ("mail",): "[CRITICAL] tqe/production: API key rejected",
        ("slack",): "[CRITICAL] tqe: 2 raised",
    }


def test_an_event_no_route_takes_is_consumed_without_a_message() -> None:
    routes = (Route(kinds=frozenset({"wallet_low"}), channels=("slack",)),)
    plan = planner(*routes).events([event(1, DEGRADED)], {}, [], at(GROUP_WAIT))
    assert plan.notifications == []
    assert plan.consumed == {1: NOTIFIED_YES}
    assert plan.announce == []


# -- resolves ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("announced_to", "send_resolved", "messaged", "unannounced"),
    [
        pytest.param((), True, (), (), id="never-announced-no-resolve"),
        pytest.param(("mail",), True, ("mail",), ("mail",), id="only-to-told-channels"),
        pytest.param(("mail", "slack"), True, ("mail", "slack"), ("mail", "slack"), id="both"),
        pytest.param(("mail", "slack"), False, (), ("mail", "slack"), id="send-resolved-off"),
    ],
)
def test_a_resolve_goes_only_to_channels_told_about_the_raise(
    announced_to: tuple[str, ...],
    send_resolved: bool,
    messaged: tuple[str, ...],
    unannounced: tuple[str, ...],
) -> None:
    routes = (Route(channels=("mail", "slack"), send_resolved=send_resolved),)
    announced = {DEGRADED.id: dict.fromkeys(announced_to, T0)} if announced_to else {}
    resolve = event(7, DEGRADED, raised=False, when=100, details={"active_since": T0.isoformat()})
    plan = planner(*routes).events([resolve], announced, [], at(100 + GROUP_WAIT))
    assert plan.consumed == {7: NOTIFIED_YES}
    assert sorted(plan.unannounce) == [(DEGRADED.id, c) for c in unannounced]
    if not messaged:
        assert plan.notifications == []
        return
    [notification] = plan.notifications
    assert notification.channels == messaged
    assert notification.title == "[RESOLVED] tqe: AI service degraded"
    assert notification.notify_type == "success"
    assert "RESOLVED AI service degraded (was active 100s, since 2026-01-02 12:00:00Z)" in (
        notification.body
    )


def test_a_raise_and_its_resolve_in_one_group_make_one_message() -> None:
    events = [event(1, DEGRADED), event(2, DEGRADED, raised=False, when=2)]
    plan = planner().events(events, {}, [], at(GROUP_WAIT))
    [notification] = plan.notifications
    assert notification.title == "[WARNING] tqe: 1 raised, 1 resolved"
    assert plan.consumed == {1: NOTIFIED_YES, 2: NOTIFIED_YES}
    assert sorted(plan.unannounce) == [(DEGRADED.id, "mail"), (DEGRADED.id, "slack")]


# -- maintenance --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "held"),
    [
        pytest.param(DEGRADED, True, id="degraded-held"),
        pytest.param(UNKNOWN, True, id="unknown-held"),
        pytest.param(UNREACHABLE, True, id="unreachable-held"),
        pytest.param(KEY_REJECTED, False, id="key-rejected-sent"),
        pytest.param(WALLET_LOW, False, id="wallet-low-sent"),
    ],
)
def test_raises_are_held_while_the_service_is_in_maintenance(key: ConditionKey, held: bool) -> None:
    plan = planner().events([event(5, key)], {}, [active(MAINTENANCE)], at(GROUP_WAIT))
    assert plan.consumed == {5: NOTIFIED_HELD if held else NOTIFIED_YES}
    assert bool(plan.notifications) is not held
    assert any(cid == key.id for cid, _, _ in plan.announce) is not held


def test_maintenance_of_another_service_holds_nothing() -> None:
    eu_maintenance = ConditionKey(ConditionKind.COMPONENT_MAINTENANCE, "tqe-eu", "", "platform")
    plan = planner().events([event(5, DEGRADED)], {}, [active(eu_maintenance)], at(GROUP_WAIT))
    assert plan.consumed == {5: NOTIFIED_YES}
    assert len(plan.notifications) == 1


def test_the_maintenance_raise_itself_is_announced() -> None:
    plan = planner().events([event(1, MAINTENANCE)], {}, [active(MAINTENANCE)], at(GROUP_WAIT))
    [notification] = plan.notifications
    assert notification.title == "[INFO] tqe: AI service in maintenance"
    assert notification.notify_type == "info"


def test_after_maintenance_one_message_lists_held_conditions_that_are_still_active() -> None:
    announced = {
        MAINTENANCE.id: {"mail": T0, "slack": T0},
        KEY_REJECTED.id: {"mail": T0, "slack": T0},  # already told: not repeated
    }
    still_active = [
        active(DEGRADED, since=60),  # held during maintenance, still true
        active(UNREACHABLE, since=90),  # held during maintenance, still true
        active(KEY_REJECTED),
        active(WALLET_LOW),  # never held (not a held kind): not listed
    ]
    ended = event(9, MAINTENANCE, raised=False, when=600, details={"active_since": T0.isoformat()})
    plan = planner().events([ended], announced, still_active, at(600 + GROUP_WAIT))
    [notification] = plan.notifications
    assert notification.channels == ("mail", "slack")
    lines = notification.body.split("\n\n")[0].splitlines()
    assert lines == [
        "RESOLVED AI service in maintenance (was active 10m, since 2026-01-02 12:00:00Z)",
        "STILL ACTIVE AFTER MAINTENANCE [warning] AI service degraded (since 2026-01-02 12:01:00Z)",
        "STILL ACTIVE AFTER MAINTENANCE [critical] service unreachable "
        "(since 2026-01-02 12:01:30Z)",
    ]
    assert notification.title == "[CRITICAL] tqe: 1 resolved, 2 still active"
    now = at(600 + GROUP_WAIT)
    assert sorted(plan.announce) == sorted(
        (key.id, channel, now) for key in (DEGRADED, UNREACHABLE) for channel in ("mail", "slack")
    )
    assert sorted(plan.unannounce) == [(MAINTENANCE.id, "mail"), (MAINTENANCE.id, "slack")]


def test_no_summary_while_another_component_is_still_in_maintenance() -> None:
    announced = {MAINTENANCE.id: {"mail": T0, "slack": T0}}
    still = [active(PLATFORM_MAINTENANCE), active(DEGRADED)]
    ended = event(9, MAINTENANCE, raised=False, when=600)
    plan = planner().events([ended], announced, still, at(600 + GROUP_WAIT))
    [notification] = plan.notifications
    assert "STILL ACTIVE" not in notification.body
    assert all(cid != DEGRADED.id for cid, _, _ in plan.announce)


def test_a_condition_raised_with_the_end_of_maintenance_is_listed_once() -> None:
    """Platform maintenance ends in the same poll that finds the AI service degraded: the
    message says 'raised' for the degraded service once, not also 'still active'."""
    announced = {PLATFORM_MAINTENANCE.id: {"mail": T0, "slack": T0}}
    events = [
        event(10, PLATFORM_MAINTENANCE, raised=False, when=600),
        event(11, DEGRADED, when=600),
    ]
    plan = planner().events(events, announced, [active(DEGRADED, 600)], at(600 + GROUP_WAIT))
    [notification] = plan.notifications
    lines = notification.body.split("\n\n")[0].splitlines()
    assert len(lines) == 2, lines
    assert sum("AI service degraded" in text for text in lines) == 1


def test_a_held_raise_that_resolves_during_maintenance_is_never_mentioned() -> None:
    events = [event(1, DEGRADED), event(2, DEGRADED, raised=False, when=30)]
    first = planner().events(events[:1], {}, [active(MAINTENANCE)], at(GROUP_WAIT))
    assert first.consumed == {1: NOTIFIED_HELD}
    second = planner().events(events[1:], {}, [active(MAINTENANCE)], at(30 + GROUP_WAIT))
    assert second.notifications == []
    assert second.consumed == {2: NOTIFIED_YES}


# -- reminders --------------------------------------------------------------------------------


def test_no_reminder_before_repeat_interval() -> None:
    announced = {DEGRADED.id: {"mail": T0, "slack": T0}}
    plan = planner().reminders([active(DEGRADED)], announced, at(REPEAT - 1))
    assert not plan


def test_a_reminder_after_repeat_interval_goes_to_every_told_channel() -> None:
    announced = {DEGRADED.id: {"mail": T0, "slack": T0}}
    now = at(REPEAT)
    plan = planner().reminders([active(DEGRADED)], announced, now)
    [notification] = plan.notifications
    assert notification.category == "reminder"
    assert notification.channels == ("mail", "slack")
    assert notification.title == "[WARNING] tqe: still AI service degraded"
    assert (
        "STILL ACTIVE [warning] AI service degraded (for 60m, since 2026-01-02 12:00:00Z)"
        in notification.body
    )
    assert sorted(plan.announce) == [(DEGRADED.id, "mail", now), (DEGRADED.id, "slack", now)]
    assert plan.consumed == {}


def test_reminders_follow_each_channels_own_repeat_interval_and_last_time() -> None:
    routes = (
        Route(channels=("mail",), repeat_interval=600),
        Route(channels=("slack",)),  # the default REPEAT
    )
    announced = {DEGRADED.id: {"mail": T0, "slack": T0}}
    at_600 = planner(*routes).reminders([active(DEGRADED)], announced, at(600))
    assert [n.channels for n in at_600.notifications] == [("mail",)]
    # mail was reminded at 600: its next reminder is due at 1200, slack's at REPEAT
    announced = {DEGRADED.id: {"mail": at(600), "slack": T0}}
    assert not planner(*routes).reminders([active(DEGRADED)], announced, at(1199))
    at_1200 = planner(*routes).reminders([active(DEGRADED)], announced, at(1200))
    assert [n.channels for n in at_1200.notifications] == [("mail",)]


def test_reminders_only_for_told_channels_that_still_route_the_condition() -> None:
    routes = (Route(channels=("slack",)),)
    announced = {DEGRADED.id: {"mail": T0, "slack": T0}}  # mail no longer routed
    plan = planner(*routes).reminders([active(DEGRADED)], announced, at(REPEAT))
    assert [n.channels for n in plan.notifications] == [("slack",)]
    assert not planner().reminders([active(KEY_REJECTED)], announced, at(REPEAT))


def test_reminders_of_one_service_are_one_message() -> None:
    announced = {
        DEGRADED.id: {"mail": T0},
        KEY_REJECTED.id: {"mail": T0},
        EU_DEGRADED.id: {"mail": T0},
    }
    conditions = [active(DEGRADED), active(KEY_REJECTED), active(EU_DEGRADED)]
    plan = planner().reminders(conditions, announced, at(REPEAT))
    assert sorted(n.title for n in plan.notifications) == [
        "[CRITICAL] tqe: 2 still active",
        "[WARNING] tqe-eu: still AI service degraded",
    ]
