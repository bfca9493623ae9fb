"""normalize_status: one row per payload shape the upstream might plausibly send."""

from __future__ import annotations

import pytest

from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.models import ComponentState
from tqe_monitor.normalizer import StatusMapping, normalize_status

OP = ComponentState.OPERATIONAL
DEG = ComponentState.DEGRADED
MAINT = ComponentState.MAINTENANCE
UNK = ComponentState.UNKNOWN

# (payload, platform, ai_service, overall)
SHAPES = [
    pytest.param("Fully Operational", OP, OP, OP, id="bare-string"),
    pytest.param({"status": "degraded performance"}, DEG, DEG, DEG, id="overall-status-key"),
    pytest.param({"state": "maintenance"}, MAINT, MAINT, MAINT, id="overall-state-key"),
    pytest.param(
        {"platform": "operational", "ai_service": "degraded"}, OP, DEG, DEG, id="flat-snake-keys"
    ),
    pytest.param(
        {"platformStatus": "up", "aiServiceStatus": "Under-Maintenance"},
        OP,
        MAINT,
        MAINT,
        id="flat-camel-keys-with-status-suffix",
    ),
    pytest.param(
        {"Platform": "OK", "AIService": "Degraded_Performance"},
        OP,
        DEG,
        DEG,
        id="pascal-keys-acronym",
    ),
    pytest.param(
        {"platform-status": "healthy", "ai-service": "slow"}, OP, DEG, DEG, id="kebab-keys"
    ),
    pytest.param({"data": {"platform": "ok", "ai_service": "ok"}}, OP, OP, OP, id="data-envelope"),
    pytest.param(
        {"result": {"status": {"platform": "green", "aiService": "yellow"}}},
        OP,
        DEG,
        DEG,
        id="result-and-status-envelopes",
    ),
    pytest.param(
        {
            "platform": {"status": "ok", "message": "all good"},
            "ai_service": {"state": "scheduled maintenance", "since": "2026-01-01"},
        },
        OP,
        MAINT,
        MAINT,
        id="component-objects",
    ),
    pytest.param(
        {"platform": {"health": "normal"}, "ai_service": {"indicator": "partial outage"}},
        OP,
        DEG,
        DEG,
        id="component-objects-health-indicator",
    ),
    pytest.param(
        {
            "components": [
                {"name": "Platform", "status": "operational"},
                {"name": "AI Service", "state": "degraded"},
            ]
        },
        OP,
        DEG,
        DEG,
        id="components-list",
    ),
    pytest.param(
        {
            "page": {"name": "TQE"},
            "components": [
                {"name": "Billing", "status": "major_outage"},
                {"name": "API", "status": "operational"},
                {"name": "AI inference", "status": "degraded_performance"},
            ],
        },
        OP,
        DEG,
        DEG,
        id="statuspage-like-list-other-components-ignored",
    ),
    pytest.param(
        [{"id": "ai-service", "status": "online"}, {"id": "platform", "status": "offline"}],
        DEG,
        OP,
        DEG,
        id="bare-list-with-ids-down-means-degraded",
    ),
    pytest.param({"platform": True, "ai_service": False}, OP, DEG, DEG, id="boolean-components"),
    pytest.param(
        {"platform": {"up": True}, "ai_service": {"maintenance": True, "up": False}},
        OP,
        MAINT,
        MAINT,
        id="boolean-flags-in-objects",
    ),
    pytest.param({"platform": "operational"}, OP, UNK, UNK, id="only-platform-found"),
    pytest.param(
        {"platform": "operational", "ai_service": "purple"}, OP, UNK, UNK, id="unknown-word"
    ),
    pytest.param({"status": "purple"}, UNK, UNK, UNK, id="overall-key-unknown-word"),
    pytest.param(
        {"status": "success", "data": {"state": "maintenance"}},
        MAINT,
        MAINT,
        MAINT,
        id="envelope-status-is-not-the-service-state",
    ),
    pytest.param(
        {"status": "ok", "platform": "TQE Cloud", "version": "2.0.0"},
        OP,
        OP,
        OP,
        id="component-key-with-non-state-value-yields-to-overall",
    ),
    pytest.param(
        {"a": {"b": {"c": {"platform": "maintenance", "ai": "ok"}}}},
        MAINT,
        OP,
        MAINT,
        id="nested-a-few-levels",
    ),
    pytest.param(
        {"ai_platform_status": {"status": {"state": "degraded"}}, "web_app": "ok"},
        OP,
        DEG,
        DEG,
        id="ai-platform-is-the-ai-one-and-nested-status-object",
    ),
]


@pytest.mark.parametrize(("payload", "platform", "ai_service", "overall"), SHAPES)
def test_status_shapes(
    payload: object,
    platform: ComponentState,
    ai_service: ComponentState,
    overall: ComponentState,
) -> None:
    reading = normalize_status(payload)

    assert (reading.platform, reading.ai_service, reading.overall) == (
        platform,
        ai_service,
        overall,
    )


STATE_WORDS = [
    ("Fully Operational", OP),
    ("operational", OP),
    ("OK", OP),
    ("up", OP),
    ("Healthy", OP),
    ("normal", OP),
    ("GREEN", OP),
    ("available", OP),
    ("online", OP),
    ("All Systems Operational", OP),
    ("fully_operational", OP),
    ("degraded", DEG),
    ("Degraded Performance", DEG),
    ("degraded_performance", DEG),
    ("DegradedPerformance", DEG),
    ("partial outage", DEG),
    ("reduced performance", DEG),
    ("slow", DEG),
    ("yellow", DEG),
    ("down", DEG),
    ("outage", DEG),
    ("Major Outage", DEG),
    ("unavailable", DEG),
    ("offline", DEG),
    ("red", DEG),
    ("not operational", DEG),
    ("partially operational", DEG),
    ("maintenance", MAINT),
    ("Under Maintenance", MAINT),
    ("Under-Maintenance", MAINT),
    ("under_maintenance", MAINT),
    ("scheduled maintenance", MAINT),
    ("in maintenance", MAINT),
    ("down for maintenance", MAINT),
    ("purple", UNK),
    ("", UNK),
    ("the operator says the platform is working fine today", UNK),
]


@pytest.mark.parametrize(
    ("word", "expected"), STATE_WORDS, ids=[w or "empty" for w, _ in STATE_WORDS]
)
def test_state_words(word: str, expected: ComponentState) -> None:
    reading = normalize_status({"platform": word, "ai_service": "ok"})

    assert reading.platform is expected


MAPPINGS = [
    pytest.param(
        {"data": {"p": {"state": "degraded"}, "a": {"state": "ok"}}},
        StatusMapping(platform="data.p.state", ai_service="data.a.state"),
        DEG,
        OP,
        id="paths-to-words",
    ),
    pytest.param(
        {"data": {"p": {"cond": "ok"}, "a": {"state": "maintenance"}}},
        StatusMapping(platform="data.p.cond", ai_service="data.a"),
        OP,
        MAINT,
        id="path-to-an-object-with-a-state",
    ),
    pytest.param(
        {"components": [{"s": "ok"}, {"s": "maintenance"}]},
        StatusMapping(platform="components.0.s", ai_service="components.1.s"),
        OP,
        MAINT,
        id="list-indices",
    ),
    pytest.param(
        {"summary": {"word": "Code Red"}},
        StatusMapping(overall="summary.word", states={"code-red": MAINT}),
        MAINT,
        MAINT,
        id="overall-path-and-custom-word",
    ),
    pytest.param(
        {"svc": 2, "ai": 0},
        StatusMapping(platform="svc", ai_service="ai", states={"0": OP, "2": DEG}),
        DEG,
        OP,
        id="numeric-codes-via-custom-words",
    ),
    pytest.param(
        {"platform": "green", "ai_service": "ok"},
        StatusMapping(states={"GREEN": MAINT}),
        MAINT,
        OP,
        id="custom-words-beat-builtins-in-auto-detection",
    ),
    pytest.param(
        {"x": {"y": "degraded"}, "ai_service": "maintenance"},
        StatusMapping(platform="x.y"),
        DEG,
        MAINT,
        id="unmapped-component-is-auto-detected",
    ),
    pytest.param(
        {"x": {"y": "degraded"}, "nothing": "here"},
        StatusMapping(platform="x.y"),
        DEG,
        UNK,
        id="unmapped-component-not-found-is-unknown",
    ),
    pytest.param(
        {"all": "ok", "ai": "degraded"},
        StatusMapping(overall="all", ai_service="ai"),
        OP,
        DEG,
        id="component-path-beats-overall-path",
    ),
    pytest.param(
        {"p": "lilac", "a": "ok"},
        StatusMapping(platform="p", ai_service="a"),
        UNK,
        OP,
        id="mapped-unknown-word-is-unknown",
    ),
]


@pytest.mark.parametrize(("payload", "mapping", "platform", "ai_service"), MAPPINGS)
def test_status_mappings(
    payload: object,
    mapping: StatusMapping,
    platform: ComponentState,
    ai_service: ComponentState,
) -> None:
    reading = normalize_status(payload, mapping)

    assert (reading.platform, reading.ai_service) == (platform, ai_service)


BAD_PAYLOADS = [
    pytest.param(
        {"foo": 1, "bar": {"baz": "operational"}}, ["foo", "bar", "bar.baz"], id="no-known-keys"
    ),
    pytest.param(
        {"status": "success", "data": {"message": "hello"}},
        ["status", "data", "data.message"],
        id="envelope-only",
    ),
    pytest.param({"status": 200}, ["status"], id="numeric-status-code"),
    pytest.param(
        {"items": [{"name": "billing", "status": "ok"}]},
        ["items", "items[].name", "items[].status"],
        id="list-of-other-components",
    ),
    pytest.param({}, [], id="empty-object"),
    pytest.param([], [], id="empty-array"),
    pytest.param(None, [], id="null"),
    pytest.param(42, [], id="bare-number"),
    pytest.param("purple", [], id="bare-unknown-word"),
]


@pytest.mark.parametrize(("payload", "keys_seen"), BAD_PAYLOADS)
def test_bad_payloads_name_expectation_and_keys_seen(payload: object, keys_seen: list[str]) -> None:
    with pytest.raises(PollError) as caught:
        normalize_status(payload)

    assert caught.value.reason is PollErrorReason.BAD_PAYLOAD
    assert "expected" in caught.value.message
    for key in keys_seen:
        assert key in caught.value.message


def test_bad_payload_message_names_keys_but_not_values() -> None:
    secret_value = "s3cr3t-value-never-shown"

    with pytest.raises(PollError) as caught:
        normalize_status({"token": secret_value, "nested": {"also": secret_value}})

    assert "keys seen: token, nested, nested.also" in caught.value.message
    assert secret_value not in caught.value.message


def test_keys_seen_is_truncated() -> None:
    payload = {f"field_number_{index}": index for index in range(500)}

    with pytest.raises(PollError) as caught:
        normalize_status(payload)

    assert "field_number_0" in caught.value.message
    assert "field_number_499" not in caught.value.message
    assert len(caught.value.message) < 1000


BAD_MAPPINGS = [
    pytest.param(
        {"data": {}},
        StatusMapping(platform="data.platform.state"),
        "data.platform.state",
        id="missing-key",
    ),
    pytest.param(
        {"components": [{"s": "ok"}]},
        StatusMapping(platform="components.3.s"),
        "components.3.s",
        id="index-out-of-range",
    ),
    pytest.param(
        {"components": [{"s": "ok"}]},
        StatusMapping(ai_service="components.x"),
        "components.x",
        id="non-numeric-index",
    ),
    pytest.param({"a": "ok"}, StatusMapping(overall="a.b"), "a.b", id="descend-into-a-string"),
    pytest.param({"a": None}, StatusMapping(overall="a"), "'a'", id="resolves-to-null"),
    pytest.param({"a": [1]}, StatusMapping(overall="a"), "'a'", id="resolves-to-array"),
    pytest.param(
        {"a": {"b": 1}}, StatusMapping(overall="a"), "'a'", id="resolves-to-object-without-state"
    ),
    pytest.param({"a": "ok"}, StatusMapping(overall="a..b"), "a..b", id="malformed-path"),
]


@pytest.mark.parametrize(("payload", "mapping", "named"), BAD_MAPPINGS)
def test_bad_mapping_paths_are_bad_payloads_naming_the_path(
    payload: object, mapping: StatusMapping, named: str
) -> None:
    with pytest.raises(PollError) as caught:
        normalize_status(payload, mapping)

    assert caught.value.reason is PollErrorReason.BAD_PAYLOAD
    assert named in caught.value.message
