"""Whatever the upstream sends, the normalizer answers a reading or PollError(BAD_PAYLOAD)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.models import ComponentState, StatusReading, WalletReading
from tqe_monitor.normalizer import (
    StatusMapping,
    WalletMapping,
    normalize_status,
    normalize_wallet,
)

# Keys and words the normalizer looks for, mixed with arbitrary text, so generated documents
# reach the interesting code paths instead of being rejected at the first key.
_KEYS = st.sampled_from(
    [
        "data", "result", "status", "state", "platform", "ai_service", "aiServiceStatus",
        "components", "name", "health", "remaining_words", "balance", "words", "wallet",
        "updated_at", "lastUpdated", "timestamp", "quota", "remaining", "rate_limit", "up",
        "maintenance", "AIService", "id", "value",
    ]
)  # fmt: skip
_WORDS = st.sampled_from(
    [
        "operational", "Fully Operational", "degraded_performance", "Under-Maintenance", "down",
        "ok", "AI Service", "Platform", "12,345", "1700000000000", "2026-11-21T04:35:00Z",
        "2026-11-21 04:35:00", "9999-12-31T23:59:59-05:00", "-0", "1e9", "", " ",
    ]
)  # fmt: skip
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats()  # includes NaN and +-inf
    | st.text(max_size=30)
    | _WORDS
)
JSON_LIKE = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(_KEYS | st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=40,
)
_PATHS = st.none() | st.sampled_from(
    ["data", "status", "data.platform", "components.0.status", "0", "a..b", "", "x.1.y"]
)
_STATE_OVERRIDES = st.dictionaries(
    st.text(max_size=10) | _WORDS, st.sampled_from(list(ComponentState)), max_size=3
)
STATUS_MAPPINGS = st.none() | st.builds(
    StatusMapping,
    platform=_PATHS,
    ai_service=_PATHS,
    overall=_PATHS,
    states=_STATE_OVERRIDES,
)
WALLET_MAPPINGS = st.none() | st.builds(WalletMapping, remaining_words=_PATHS, updated_at=_PATHS)

_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reading_or_bad_payload(normalize: Callable[[], object]) -> object | None:
    """The reading, or None after checking that the only failure is BAD_PAYLOAD."""
    try:
        return normalize()
    except PollError as error:
        failure = error
    assert failure.reason is PollErrorReason.BAD_PAYLOAD
    assert failure.message
    return None


@_SETTINGS
@given(payload=JSON_LIKE, mapping=STATUS_MAPPINGS)
def test_normalize_status_returns_a_reading_or_bad_payload(
    payload: object, mapping: StatusMapping | None
) -> None:
    reading = _reading_or_bad_payload(lambda: normalize_status(payload, mapping))

    if reading is not None:
        assert isinstance(reading, StatusReading)
        assert isinstance(reading.platform, ComponentState)
        assert isinstance(reading.ai_service, ComponentState)


@_SETTINGS
@given(payload=JSON_LIKE, mapping=WALLET_MAPPINGS)
def test_normalize_wallet_returns_a_reading_or_bad_payload(
    payload: object, mapping: WalletMapping | None
) -> None:
    reading = _reading_or_bad_payload(lambda: normalize_wallet(payload, mapping))

    if reading is not None:
        assert isinstance(reading, WalletReading)
        assert type(reading.remaining_words) is int
        assert abs(reading.remaining_words) <= 2**53
        assert reading.updated_at is None or reading.updated_at.tzinfo is UTC


def _nested_objects(depth: int, leaf: object) -> object:
    node = leaf
    for _ in range(depth):
        node = {"data": node, "status": {"platform": node}}
    return node


def _nested_arrays(depth: int, leaf: object) -> object:
    node = leaf
    for _ in range(depth):
        node = [node]
    return node


HOSTILE = [
    pytest.param(_nested_arrays(50_000, "ok"), id="very-deep-arrays"),
    pytest.param(_nested_objects(2_000, {"remaining_words": 1}), id="deep-shared-objects"),
    pytest.param({f"k{i}": {"platform": i} for i in range(20_000)}, id="very-wide-object"),
    pytest.param([[{"status": "ok"}] * 200] * 200, id="wide-arrays"),
    pytest.param({"status": "x" * 1_000_000, "balance": "9" * 1_000_000}, id="huge-strings"),
    pytest.param({"remaining_words": 10**5000, "updated_at": 10**5000}, id="huge-integers"),
    pytest.param({1: "ok", None: "ok", (1, 2): "ok"}, id="non-string-keys"),
    pytest.param({"status": {1, 2}, "balance": b"12", "x": object()}, id="non-json-values"),
]


@pytest.mark.parametrize("payload", HOSTILE)
@pytest.mark.parametrize("normalize", [normalize_status, normalize_wallet])
def test_hostile_payloads_cost_bounded_work_and_never_crash(
    payload: object, normalize: Callable[[object], object]
) -> None:
    _reading_or_bad_payload(lambda: normalize(payload))
