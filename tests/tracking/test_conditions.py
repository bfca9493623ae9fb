"""The condition book walked through time: confirmations, since-times, details, restore, ids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.tracking.conditions import (
    ConditionBook,
    ConditionKey,
    ConditionKind,
    ConditionState,
    Confirmation,
    Severity,
    Transition,
)

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
KEY = ConditionKey(ConditionKind.COMPONENT_DEGRADED, "svc", "", "ai_service")


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


# A step: (seconds after T0, does the condition hold, expected transition or None).
# An expected transition is ("raised" | "resolved", seconds of its since-time).
Step = tuple[int, bool, tuple[str, int] | None]

CASES: dict[str, tuple[Confirmation, list[Step]]] = {
    "default-raises-and-resolves-at-once": (
        Confirmation(),
        [
            (0, False, None),
            (30, True, ("raised", 30)),
            (60, True, None),
            (90, False, ("resolved", 90)),
            (120, False, None),
            (150, True, ("raised", 150)),
        ],
    ),
    "enter-after-3-since-is-the-first-confirming-observation": (
        Confirmation(enter_after=3),
        [
            (0, True, None),
            (30, True, None),
            (60, True, ("raised", 0)),
            (90, True, None),
            (120, False, ("resolved", 120)),
        ],
    ),
    "enter-after-3-a-success-resets-the-streak": (
        Confirmation(enter_after=3),
        [
            (0, True, None),
            (30, True, None),
            (60, False, None),
            (90, True, None),
            (120, True, None),
            (150, True, ("raised", 90)),
        ],
    ),
    "leave-after-2-needs-two-recoveries": (
        Confirmation(leave_after=2),
        [
            (0, True, ("raised", 0)),
            (30, False, None),
            (60, True, None),  # the recovery streak is broken: still active, no re-raise
            (90, False, None),
            (120, False, ("resolved", 90)),
            (150, False, None),
        ],
    ),
    "enter-3-leave-2-together": (
        Confirmation(enter_after=3, leave_after=2),
        [
            (0, True, None),
            (30, True, None),
            (60, True, ("raised", 0)),
            (90, False, None),
            (120, False, ("resolved", 90)),
            (150, True, None),
            (180, False, None),
            (210, True, None),
        ],
    ),
}


@pytest.mark.parametrize(("confirmation", "steps"), CASES.values(), ids=CASES.keys())
def test_confirmation_steps(confirmation: Confirmation, steps: list[Step]) -> None:
    book = ConditionBook({KEY.kind: confirmation})
    for index, (seconds, holds, expected) in enumerate(steps):
        transition = book.observe(KEY, holds, at(seconds), Severity.WARNING)
        if expected is None:
            assert transition is None, f"step {index}"
            continue
        assert transition is not None, f"step {index}"
        change, since = expected
        assert (transition.raised, transition.since) == (change == "raised", at(since))
        assert transition.at == at(seconds)
        assert transition.key == KEY
        assert transition.severity is Severity.WARNING
        assert book.is_active(KEY) is transition.raised


def test_confirmations_are_per_kind() -> None:
    unreachable = ConditionKey(ConditionKind.SERVICE_UNREACHABLE, "svc")
    book = ConditionBook({ConditionKind.SERVICE_UNREACHABLE: Confirmation(enter_after=3)})
    assert book.observe(unreachable, True, at(0), Severity.CRITICAL) is None
    assert book.observe(KEY, True, at(0), Severity.WARNING) is not None  # default: at once


def test_details_are_updated_while_active_and_carried_by_the_resolve() -> None:
    book = ConditionBook()
    raised = book.observe(KEY, True, at(0), Severity.WARNING, {"state": "degraded", "n": 1})
    assert raised is not None
    assert dict(raised.details) == {"state": "degraded", "n": 1}
    assert book.observe(KEY, True, at(30), Severity.WARNING, {"state": "degraded", "n": 2}) is None
    [active] = book.active()
    assert active.details == {"state": "degraded", "n": 2}
    assert active.since == at(0)
    resolved = book.observe(KEY, False, at(60), Severity.WARNING)
    assert resolved is not None
    assert not resolved.raised
    assert dict(resolved.details) == {
        "state": "degraded",
        "n": 2,
        "active_since": at(0).isoformat(),
    }


def test_the_raise_uses_the_latest_severity_and_details_of_the_streak() -> None:
    book = ConditionBook({KEY.kind: Confirmation(enter_after=2)})
    assert book.observe(KEY, True, at(0), Severity.INFO, {"n": 1}) is None
    raised = book.observe(KEY, True, at(30), Severity.CRITICAL, {"n": 2})
    assert raised is not None
    assert raised.severity is Severity.CRITICAL
    assert dict(raised.details) == {"n": 2}
    assert raised.since == at(0)


def test_idle_conditions_are_forgotten() -> None:
    """A long-running daemon sees many conditions come and go; none may stay in memory."""
    book = ConditionBook({KEY.kind: Confirmation(enter_after=2)})
    for service in ("a", "b", "c"):
        key = ConditionKey(ConditionKind.API_KEY_REJECTED, service, "t")
        book.observe(key, True, at(0), Severity.CRITICAL)
        book.observe(key, False, at(30), Severity.CRITICAL)
    book.observe(KEY, True, at(0), Severity.WARNING)  # a streak that never confirms
    book.observe(KEY, False, at(30), Severity.WARNING)
    book.observe(KEY, False, at(60), Severity.WARNING)  # never seen holding: nothing to track
    assert book.active() == []
    assert book._states == {}


def test_active_lists_in_key_order() -> None:
    book = ConditionBook()
    keys = [
        ConditionKey(ConditionKind.WALLET_STALE, "svc", "b"),
        ConditionKey(ConditionKind.API_KEY_REJECTED, "svc", "a"),
        ConditionKey(ConditionKind.COMPONENT_DEGRADED, "svc", "", "platform"),
    ]
    for key in keys:
        book.observe(key, True, at(0), Severity.WARNING)
    assert [s.key for s in book.active()] == sorted(keys)


RESTORE_CASES = {
    "still-true-is-not-raised-again": ([True, True], [None, None]),
    "false-resolves-it": ([False], ["resolved"]),
    "true-then-false": ([True, False], [None, "resolved"]),
}


@pytest.mark.parametrize(("holds", "expected"), RESTORE_CASES.values(), ids=RESTORE_CASES.keys())
def test_restore(holds: list[bool], expected: list[str | None]) -> None:
    stored_since = T0 - timedelta(hours=5)
    book = ConditionBook()
    book.restore([ConditionState(KEY, Severity.WARNING, True, stored_since, {"state": "x"})])
    assert book.is_active(KEY)
    transitions: list[Transition | None] = []
    for index, value in enumerate(holds):
        transitions.append(book.observe(KEY, value, at(30 * index), Severity.WARNING))
    got = [None if t is None else ("raised" if t.raised else "resolved") for t in transitions]
    assert got == expected
    if expected[-1] is None:
        [active] = book.active()
        assert active.since == stored_since  # the restart did not restart the clock
    else:
        assert not book.is_active(KEY)


KEYS = {
    "component-degraded": (
        ConditionKey(ConditionKind.COMPONENT_DEGRADED, "tqe", "", "ai_service"),
        "ai_service_degraded",
        "component_degraded|tqe||ai_service",
    ),
    "component-maintenance": (
        ConditionKey(ConditionKind.COMPONENT_MAINTENANCE, "tqe", "", "platform"),
        "platform_maintenance",
        "component_maintenance|tqe||platform",
    ),
    "component-unknown": (
        ConditionKey(ConditionKind.COMPONENT_UNKNOWN, "tqe", "", "platform"),
        "platform_unknown",
        "component_unknown|tqe||platform",
    ),
    "unreachable": (
        ConditionKey(ConditionKind.SERVICE_UNREACHABLE, "tqe.example.com"),
        "service_unreachable",
        "service_unreachable|tqe.example.com||",
    ),
    "key-rejected": (
        ConditionKey(ConditionKind.API_KEY_REJECTED, "tqe", "team-a"),
        "api_key_rejected",
        "api_key_rejected|tqe|team-a|",
    ),
    "wallet-low": (
        ConditionKey(ConditionKind.WALLET_LOW, "tqe", "team-a", "10000"),
        "wallet_below_10000",
        "wallet_low|tqe|team-a|10000",
    ),
    "wallet-exhausted": (
        ConditionKey(ConditionKind.WALLET_EXHAUSTED, "tqe", "team-a"),
        "wallet_exhausted",
        "wallet_exhausted|tqe|team-a|",
    ),
    "wallet-depletion": (
        ConditionKey(ConditionKind.WALLET_DEPLETION, "tqe", "team-a"),
        "wallet_depletion_forecast",
        "wallet_depletion_forecast|tqe|team-a|",
    ),
    "wallet-stale": (
        ConditionKey(ConditionKind.WALLET_STALE, "tqe", "team-a"),
        "wallet_stale",
        "wallet_stale|tqe|team-a|",
    ),
}


@pytest.mark.parametrize(("key", "name", "key_id"), KEYS.values(), ids=KEYS.keys())
def test_key_name_id_and_round_trip(key: ConditionKey, name: str, key_id: str) -> None:
    assert key.name == name
    assert key.id == key_id
    assert ConditionKey.from_id(key_id) == key
