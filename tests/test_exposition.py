"""TargetGauge and render_metrics: the fast path writes what prometheus_client would write."""

from __future__ import annotations

import math

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_latest

from tqe_monitor.exposition import TargetGauge, render_metrics

OPENMETRICS = "application/openmetrics-text; version=1.0.0"
LABEL_VALUES = {
    "plain": ("svc-0", "t00001"),
    "quote": ("svc-1", 'say "hi"'),
    "backslash": ("svc-2", "C:\\keys\\prod"),
    "newline": ("svc-3", "line\nbreak"),
    "utf-8": ("svc-4", "übersetzung-東京"),
    "empty": ("svc-5", ""),
}
VALUES = [0.0, 1.0, -2.5, 1_000_000.0, 1.7e9 + 0.123456, math.inf, -math.inf, math.nan]


def fill(registry: CollectorRegistry, gauge_type: type) -> None:
    """The same families and values, built with `gauge_type` for the per-target ones."""
    for family in range(2):
        gauge = gauge_type(
            f"tqe_test_family_{family}",
            'Help with a \\ backslash and a "quote".\nSecond line.',
            ["service", "target"],
            registry=registry,
        )
        for index, labels in enumerate(LABEL_VALUES.values()):
            gauge.labels(*labels).set(VALUES[(index + family) % len(VALUES)])
    counter = Counter("tqe_test_events", "Events.", ["kind"], registry=registry)
    counter.labels("a").inc(3)
    Gauge("tqe_test_plain", "A plain gauge.", registry=registry).set(7)


def lines(body: bytes) -> list[str]:
    # Counters carry a `_created` time of their own creation: equal in kind, not in value.
    return sorted(line for line in body.decode().splitlines() if "_created" not in line)


@pytest.mark.parametrize(
    ("accept", "reference"),
    [("", generate_latest), (OPENMETRICS, openmetrics_latest)],
    ids=["prometheus-text", "openmetrics"],
)
def test_the_fast_path_writes_the_same_lines_as_prometheus_client(
    accept: str, reference: object
) -> None:
    fast, slow = CollectorRegistry(), CollectorRegistry()
    fill(fast, TargetGauge)
    fill(slow, Gauge)

    body, _ = render_metrics(fast, accept)

    assert lines(body) == lines(reference(slow))  # type: ignore[operator]


def test_openmetrics_ends_with_one_eof_after_every_family() -> None:
    registry = CollectorRegistry()
    fill(registry, TargetGauge)

    body, content_type = render_metrics(registry, OPENMETRICS)

    assert content_type.startswith("application/openmetrics-text")
    assert body.endswith(b"# EOF\n")
    assert body.count(b"# EOF") == 1


def test_prometheus_text_is_the_default() -> None:
    registry = CollectorRegistry()
    fill(registry, TargetGauge)

    body, content_type = render_metrics(registry, "text/plain")

    assert content_type.startswith("text/plain; version=0.0.4")
    assert b"# EOF" not in body


def test_registry_readers_see_every_series() -> None:
    registry = CollectorRegistry()
    gauge = TargetGauge("tqe_test_words", "Words.", ["service", "target"], registry=registry)
    gauge.labels("svc", "a").set(5)
    gauge.labels("svc", "b").set(6)

    assert registry.get_sample_value("tqe_test_words", {"service": "svc", "target": "b"}) == 6
    assert generate_latest(registry) == render_metrics(registry, "")[0]


def test_a_removed_series_is_gone_and_removing_it_again_is_a_key_error() -> None:
    registry = CollectorRegistry()
    gauge = TargetGauge("tqe_test_words", "Words.", ["service", "target"], registry=registry)
    gauge.labels("svc", "a").set(5)

    gauge.remove("svc", "a")

    assert registry.get_sample_value("tqe_test_words", {"service": "svc", "target": "a"}) is None
    assert b'target="a"' not in render_metrics(registry, "")[0]
    with pytest.raises(KeyError):
        gauge.remove("svc", "a")


def test_labels_must_match_the_label_names() -> None:
    gauge = TargetGauge(
        "tqe_test_words", "Words.", ["service", "target"], registry=CollectorRegistry()
    )

    with pytest.raises(ValueError, match="expected labels"):
        gauge.labels("svc")


def test_a_name_registered_twice_is_refused() -> None:
    registry = CollectorRegistry()
    TargetGauge("tqe_test_words", "Words.", ["service"], registry=registry)

    with pytest.raises(ValueError, match="Duplicated"):
        Gauge("tqe_test_words", "Words again.", ["service"], registry=registry)
