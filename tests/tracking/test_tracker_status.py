"""Tracker.status and Tracker.key walked through time: component conditions, unreachable, keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.errors import PollErrorReason
from tqe_monitor.models import ComponentState, StatusReading
from tqe_monitor.normalizer.status import normalize_status
from tqe_monitor.tracking.conditions import (
    ConditionBook,
    ConditionKey,
    ConditionKind,
    Confirmation,
    Transition,
)
from tqe_monitor.tracking.tracker import Tracker

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SERVICE = "tqe"
OK, DEG, MAINT, UNK = (
    ComponentState.OPERATIONAL,
    ComponentState.DEGRADED,
    ComponentState.MAINTENANCE,
    ComponentState.UNKNOWN,
)
TIMEOUT, CONNECT, SERVER, AUTH, BAD = (
    PollErrorReason.TIMEOUT,
    PollErrorReason.CONNECT,
    PollErrorReason.SERVER_ERROR,
    PollErrorReason.AUTH,
    PollErrorReason.BAD_PAYLOAD,
)
UNREACHABLE = "raised service_unreachable critical"
REACHABLE = "resolved service_unreachable"
UNREACHABLE_AFTER_3 = {ConditionKind.SERVICE_UNREACHABLE: Confirmation(enter_after=3)}


def reading(platform: ComponentState, ai: ComponentState) -> StatusReading:
    return StatusReading(platform=platform, ai_service=ai)


def at(step: int) -> datetime:
    return T0 + timedelta(seconds=30 * step)


def describe(transition: Transition) -> str:
    name = transition.key.name
    if transition.raised:
        return f"raised {name} {transition.severity.value}"
    return f"resolved {name}"


def make_tracker(confirmations: dict[ConditionKind, Confirmation] | None = None) -> Tracker:
    return Tracker(ConditionBook(confirmations or UNREACHABLE_AFTER_3), {}, started=T0)


def poll(tracker: Tracker, outcome: StatusReading | PollErrorReason, step: int) -> set[str]:
    """Apply one status poll (a reading, or the reason it failed); the transitions, described."""
    if isinstance(outcome, StatusReading):
        found = tracker.status(SERVICE, outcome, None, at(step))
    else:
        found = tracker.status(SERVICE, None, outcome, at(step))
    for transition in found:
        assert transition.at == at(step)
        assert transition.key.service == SERVICE
    return {describe(t) for t in found}


# Each step: (the poll's outcome, the transitions it must confirm)
Step = tuple[StatusReading | PollErrorReason, set[str]]

CASES: dict[str, list[Step]] = {
    "ai-degraded-raised-and-resolved": [
        (reading(OK, OK), set()),
        (reading(OK, DEG), {"raised ai_service_degraded warning"}),
        (reading(OK, DEG), set()),
        (reading(OK, OK), {"resolved ai_service_degraded"}),
    ],
    "platform-maintenance-is-info-until-operational": [
        (reading(MAINT, OK), {"raised platform_maintenance info"}),
        (reading(MAINT, OK), set()),
        (reading(OK, OK), {"resolved platform_maintenance"}),
    ],
    "degraded-then-maintenance-swaps-the-conditions": [
        (reading(OK, DEG), {"raised ai_service_degraded warning"}),
        (
            reading(OK, MAINT),
            {"resolved ai_service_degraded", "raised ai_service_maintenance info"},
        ),
    ],
    "both-components-are-separate-conditions": [
        (
            reading(DEG, DEG),
            {"raised platform_degraded warning", "raised ai_service_degraded warning"},
        ),
        (reading(OK, DEG), {"resolved platform_degraded"}),
    ],
    "unknown-state-word-is-component-unknown": [
        (
            normalize_status({"platform": "operational", "ai_service": "flibbertigibbet"}),
            {"raised ai_service_unknown warning"},
        ),
        (
            normalize_status({"platform": "operational", "ai_service": "operational"}),
            {"resolved ai_service_unknown"},
        ),
    ],
    "unknown-reading-is-component-unknown": [
        (reading(UNK, OK), {"raised platform_unknown warning"}),
        (reading(OK, OK), {"resolved platform_unknown"}),
    ],
    "unreachable-after-3-consecutive-failures-resolved-after-1-success": [
        (reading(OK, OK), set()),
        (TIMEOUT, set()),
        (CONNECT, set()),
        (SERVER, {UNREACHABLE}),
        (TIMEOUT, set()),
        (reading(OK, OK), {REACHABLE}),
        (TIMEOUT, set()),
    ],
    "unreachable-before-any-success": [
        (CONNECT, set()),
        (CONNECT, set()),
        (CONNECT, {UNREACHABLE}),
    ],
    "a-success-resets-the-failure-streak": [
        (TIMEOUT, set()),
        (TIMEOUT, set()),
        (reading(OK, OK), set()),
        (TIMEOUT, set()),
        (BAD, set()),
        (TIMEOUT, {UNREACHABLE}),
    ],
    "failures-do-not-touch-component-conditions": [
        (reading(OK, DEG), {"raised ai_service_degraded warning"}),
        (TIMEOUT, set()),
        (TIMEOUT, set()),
        (TIMEOUT, {UNREACHABLE}),
        (reading(OK, DEG), {REACHABLE}),
        (reading(OK, OK), {"resolved ai_service_degraded"}),
    ],
    "failures-do-not-resolve-a-maintenance": [
        (reading(MAINT, OK), {"raised platform_maintenance info"}),
        (CONNECT, set()),
        (reading(MAINT, OK), set()),
    ],
    "auth-failure-is-not-unreachable": [
        (AUTH, set()),
        (AUTH, set()),
        (AUTH, set()),
        (AUTH, set()),
    ],
    "auth-failure-means-the-service-answered": [
        (TIMEOUT, set()),
        (TIMEOUT, set()),
        (AUTH, set()),
        (TIMEOUT, set()),
        (TIMEOUT, set()),
    ],
    "auth-failure-keeps-component-conditions": [
        (reading(OK, DEG), {"raised ai_service_degraded warning"}),
        (AUTH, set()),
        (reading(OK, OK), {"resolved ai_service_degraded"}),
    ],
}


@pytest.mark.parametrize("steps", CASES.values(), ids=CASES.keys())
def test_status_steps(steps: list[Step]) -> None:
    tracker = make_tracker()
    for index, (outcome, expected) in enumerate(steps):
        assert poll(tracker, outcome, index) == expected, f"step {index}: {outcome}"


def test_unreachable_since_is_the_first_failure_and_details_name_the_reason() -> None:
    tracker = make_tracker()
    tracker.status(SERVICE, None, TIMEOUT, at(0))
    tracker.status(SERVICE, None, CONNECT, at(1))
    [raised] = tracker.status(SERVICE, None, SERVER, at(2))
    assert raised.key == ConditionKey(ConditionKind.SERVICE_UNREACHABLE, SERVICE)
    assert raised.since == at(0)
    assert dict(raised.details) == {"reason": "server_error"}


def test_unreachable_recovery_can_need_more_successes() -> None:
    tracker = make_tracker(
        {ConditionKind.SERVICE_UNREACHABLE: Confirmation(enter_after=3, leave_after=2)}
    )
    outcomes: list[Step] = [
        (TIMEOUT, set()),
        (TIMEOUT, set()),
        (TIMEOUT, {UNREACHABLE}),
        (reading(OK, OK), set()),
        (TIMEOUT, set()),  # the recovery streak broke: still unreachable, not raised again
        (reading(OK, OK), set()),
        (reading(OK, OK), {REACHABLE}),
    ]
    for index, (outcome, expected) in enumerate(outcomes):
        assert poll(tracker, outcome, index) == expected, f"step {index}"


def test_component_confirmation_ignores_a_one_poll_blip() -> None:
    tracker = make_tracker({ConditionKind.COMPONENT_DEGRADED: Confirmation(enter_after=2)})
    outcomes: list[Step] = [
        (reading(OK, DEG), set()),
        (reading(OK, OK), set()),
        (reading(OK, DEG), set()),
        (reading(OK, DEG), {"raised ai_service_degraded warning"}),
    ]
    for index, (outcome, expected) in enumerate(outcomes):
        assert poll(tracker, outcome, index) == expected, f"step {index}"


def test_services_are_tracked_apart() -> None:
    tracker = make_tracker()
    tracker.status("other", reading(OK, DEG), None, at(0))
    assert poll(tracker, reading(OK, OK), 1) == set()
    assert [s.key.service for s in tracker.book.active()] == ["other"]


KEY_CASES: dict[str, list[tuple[bool, set[str]]]] = {
    "accepted-is-nothing": [(True, set()), (True, set())],
    "rejected-is-critical-at-once": [(False, {"raised api_key_rejected critical"})],
    "rejected-then-accepted-again": [
        (True, set()),
        (False, {"raised api_key_rejected critical"}),
        (False, set()),
        (True, {"resolved api_key_rejected"}),
        (True, set()),
    ],
}


@pytest.mark.parametrize("steps", KEY_CASES.values(), ids=KEY_CASES.keys())
def test_key_steps(steps: list[tuple[bool, set[str]]]) -> None:
    tracker = make_tracker()
    for index, (accepted, expected) in enumerate(steps):
        found = tracker.key(SERVICE, "team-a", accepted, at(index))
        assert {describe(t) for t in found} == expected, f"step {index}"
        for transition in found:
            assert transition.key == ConditionKey(ConditionKind.API_KEY_REJECTED, SERVICE, "team-a")


def test_a_rejected_key_is_per_target() -> None:
    tracker = make_tracker()
    tracker.key(SERVICE, "team-a", False, at(0))
    assert tracker.key(SERVICE, "team-b", True, at(1)) == []
    assert [s.key.target for s in tracker.book.active()] == ["team-a"]
