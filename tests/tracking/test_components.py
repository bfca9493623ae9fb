"""The component tracker, walked through time step by step."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.models import Component, ComponentState, StatusReading
from tqe_monitor.tracking import ComponentTracker

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
OK, DEG, MAINT, UNK = (
    ComponentState.OPERATIONAL,
    ComponentState.DEGRADED,
    ComponentState.MAINTENANCE,
    ComponentState.UNKNOWN,
)
FAIL = None  # a failed poll


def reading(platform: ComponentState, ai: ComponentState) -> StatusReading:
    return StatusReading(platform=platform, ai_service=ai)


# Each step: (what the poll returned, expected (platform, ai_service, overall) afterwards,
#             expected changed components at that step)
STEPS = {
    "first-sight-reports-every-component": [
        (reading(OK, OK), (OK, OK, OK), {"platform", "ai_service", "overall"}),
        (reading(OK, OK), (OK, OK, OK), set()),
    ],
    "ai-degrades-then-recovers": [
        (reading(OK, OK), (OK, OK, OK), {"platform", "ai_service", "overall"}),
        (reading(OK, DEG), (OK, DEG, DEG), {"ai_service", "overall"}),
        (reading(OK, DEG), (OK, DEG, DEG), set()),
        (reading(OK, OK), (OK, OK, OK), {"ai_service", "overall"}),
    ],
    "maintenance-outranks-degraded-overall": [
        (reading(MAINT, DEG), (MAINT, DEG, MAINT), {"platform", "ai_service", "overall"}),
        (reading(OK, DEG), (OK, DEG, DEG), {"platform", "overall"}),
    ],
    "short-failures-keep-the-last-state-then-unknown": [
        (reading(OK, DEG), (OK, DEG, DEG), {"platform", "ai_service", "overall"}),
        (FAIL, (OK, DEG, DEG), set()),
        (FAIL, (OK, DEG, DEG), set()),
        (FAIL, (UNK, UNK, UNK), {"platform", "ai_service", "overall"}),
        (FAIL, (UNK, UNK, UNK), set()),
        (reading(OK, OK), (OK, OK, OK), {"platform", "ai_service", "overall"}),
    ],
    "a-success-resets-the-failure-count": [
        (reading(OK, OK), (OK, OK, OK), {"platform", "ai_service", "overall"}),
        (FAIL, (OK, OK, OK), set()),
        (FAIL, (OK, OK, OK), set()),
        (reading(OK, OK), (OK, OK, OK), set()),
        (FAIL, (OK, OK, OK), set()),
        (FAIL, (OK, OK, OK), set()),
    ],
    "failure-before-anything-was-seen-is-unknown-at-once": [
        (FAIL, (UNK, UNK, UNK), {"platform", "ai_service", "overall"}),
        (reading(OK, OK), (OK, OK, OK), {"platform", "ai_service", "overall"}),
    ],
}


@pytest.mark.parametrize("steps", STEPS.values(), ids=STEPS.keys())
def test_steps(
    steps: list[tuple[StatusReading | None, tuple[ComponentState, ...], set[str]]],
) -> None:
    tracker = ComponentTracker(unknown_after=3)
    for index, (polled, expected, changed) in enumerate(steps):
        now = T0 + timedelta(seconds=30 * index)
        changes = tracker.observe("svc", polled, now)
        assert {str(c.component) for c in changes} == changed, f"step {index}"
        states = tuple(tracker.current("svc", c)[0] for c in Component)  # type: ignore[index]
        assert states == expected, f"step {index}"
        for change in changes:
            assert change.since == now


def test_since_is_kept_while_the_state_holds_and_reset_on_change() -> None:
    tracker = ComponentTracker()
    tracker.observe("svc", reading(OK, OK), T0)
    tracker.observe("svc", reading(OK, OK), T0 + timedelta(minutes=5))
    assert tracker.current("svc", Component.AI_SERVICE) == (OK, T0)
    later = T0 + timedelta(minutes=10)
    (ai, overall) = tracker.observe("svc", reading(OK, DEG), later)
    assert (ai.previous, ai.current, ai.since) == (OK, DEG, later)
    assert overall.component is Component.OVERALL


def test_services_are_tracked_apart() -> None:
    tracker = ComponentTracker()
    tracker.observe("a", reading(OK, OK), T0)
    tracker.observe("b", reading(DEG, OK), T0)
    assert tracker.current("a", Component.PLATFORM) == (OK, T0)
    assert tracker.current("b", Component.PLATFORM) == (DEG, T0)
    assert tracker.current("c", Component.PLATFORM) is None


def test_restored_state_is_not_reported_again() -> None:
    tracker = ComponentTracker()
    for component, state in zip(Component, (OK, DEG, DEG), strict=True):
        tracker.restore("svc", component, state, T0)
    assert tracker.observe("svc", reading(OK, DEG), T0 + timedelta(hours=1)) == []
    assert tracker.current("svc", Component.AI_SERVICE) == (DEG, T0)
