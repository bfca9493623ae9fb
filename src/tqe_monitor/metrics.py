"""The Prometheus metrics: the public contract of what tqe-monitor knows, scraped by Prometheus.

The registry is passed in (never the global one) so tests and several daemons in one process do
not share series. Only configured targets ever get series, and every process starts from an
empty registry, so a target removed from the config leaves no stale series after a restart.
Labels hold names from the config (service, target) and fixed vocabularies; never a secret.
Families with a series per target are `TargetGauge`s: with thousands of targets they are most
of /metrics, and they render an order of magnitude faster (see `exposition`).
"""

from __future__ import annotations

from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Enum, Gauge, Histogram

from tqe_monitor.errors import PollErrorReason
from tqe_monitor.exposition import TargetGauge
from tqe_monitor.models import Component, ComponentState

STATES = [state.value for state in ComponentState]
POLL_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def _epoch(moment: datetime) -> float:
    return moment.timestamp()


class MonitorMetrics:
    """Every series tqe-monitor exports, with methods named after what happened."""

    def __init__(self, registry: CollectorRegistry, version: str) -> None:
        self.registry = registry
        self.service_state = Enum(
            "tqe_service_state",
            "State of a service component (platform, ai_service, overall) as last read.",
            ["service", "component"],
            states=STATES,
            registry=registry,
        )
        self.state_since = Gauge(
            "tqe_service_state_since_timestamp_seconds",
            "Unix time when the component's current state began (as observed).",
            ["service", "component"],
            registry=registry,
        )
        self.status_up = Gauge(
            "tqe_status_up",
            "1 if the last /status poll of the service succeeded and its payload was read.",
            ["service"],
            registry=registry,
        )
        self.remaining_words = TargetGauge(
            "tqe_wallet_remaining_words",
            "Remaining words in the target's wallet, as last read.",
            ["service", "target"],
            registry=registry,
        )
        self.wallet_updated = TargetGauge(
            "tqe_wallet_updated_timestamp_seconds",
            "The wallet's own last-update time, as reported by the service.",
            ["service", "target"],
            registry=registry,
        )
        self.wallet_up = TargetGauge(
            "tqe_wallet_up",
            "1 if the last /wallet poll of the target succeeded and its payload was read.",
            ["service", "target"],
            registry=registry,
        )
        self.key_rejected = TargetGauge(
            "tqe_api_key_rejected",
            "1 while the service answers 401/403 for this target's API key.",
            ["service", "target"],
            registry=registry,
        )
        self.poll_duration = Histogram(
            "tqe_poll_duration_seconds",
            "Duration of polls (all attempts of one poll), by endpoint.",
            ["service", "endpoint"],
            buckets=POLL_BUCKETS,
            registry=registry,
        )
        self.poll_errors = Counter(
            "tqe_poll_errors",
            "Failed polls by reason (timeout, connect, auth, rate_limited, server_error, "
            "http_error, bad_payload).",
            ["service", "endpoint", "reason"],
            registry=registry,
        )
        self.last_poll = TargetGauge(
            "tqe_last_poll_timestamp_seconds",
            "Unix time of the last poll attempt (target is empty for per-service status polls).",
            ["service", "target", "endpoint"],
            registry=registry,
        )
        self.overruns = Counter(
            "tqe_poll_overruns",
            "Polls skipped because the previous poll of the same thing was still running.",
            ["service", "endpoint"],
            registry=registry,
        )
        self.store_errors = Counter(
            "tqe_store_errors",
            "Failed writes to the state store (monitoring goes on; memory may be lost).",
            registry=registry,
        )
        self.targets = Gauge(
            "tqe_targets", "Configured targets per service.", ["service"], registry=registry
        )
        build_info = Gauge(
            "tqe_monitor_build_info",
            "Always 1; the version label says which tqe-monitor is running.",
            ["version"],
            registry=registry,
        )
        build_info.labels(version).set(1)

    def declare(self, service: str, targets: list[str]) -> None:
        """Create the series of a service and its targets before the first poll, so dashboards
        and `absent()`-style alerts see them from the start (errors start at zero)."""
        self.targets.labels(service).set(len(targets))
        for endpoint in ("status", "wallet"):
            for reason in PollErrorReason:
                self.poll_errors.labels(service, endpoint, reason.value)
            self.overruns.labels(service, endpoint)
        for target in targets:
            self.key_rejected.labels(service, target).set(0)

    def status_polled(
        self, service: str, at: datetime, duration: float, error: PollErrorReason | None
    ) -> None:
        """Record one /status poll attempt and its outcome."""
        self.last_poll.labels(service, "", "status").set(_epoch(at))
        self.poll_duration.labels(service, "status").observe(duration)
        self.status_up.labels(service).set(0 if error else 1)
        if error is not None:
            self.poll_errors.labels(service, "status", error.value).inc()

    def component_state(
        self, service: str, component: Component, state: ComponentState, since: datetime
    ) -> None:
        """Publish a component's current state and when it began."""
        self.service_state.labels(service, component.value).state(state.value)
        self.state_since.labels(service, component.value).set(_epoch(since))

    def wallet_polled(
        self,
        service: str,
        target: str,
        at: datetime,
        duration: float,
        error: PollErrorReason | None,
    ) -> None:
        """Record one /wallet poll attempt and its outcome."""
        self.last_poll.labels(service, target, "wallet").set(_epoch(at))
        self.poll_duration.labels(service, "wallet").observe(duration)
        self.wallet_up.labels(service, target).set(0 if error else 1)
        if error is not None:
            self.poll_errors.labels(service, "wallet", error.value).inc()

    def wallet_read(
        self, service: str, target: str, remaining_words: int, updated_at: datetime | None
    ) -> None:
        """Publish a successfully read wallet."""
        self.remaining_words.labels(service, target).set(remaining_words)
        if updated_at is not None:
            self.wallet_updated.labels(service, target).set(_epoch(updated_at))

    def key_accepted(self, service: str, target: str, accepted: bool) -> None:
        """Publish whether the service accepts the target's key."""
        self.key_rejected.labels(service, target).set(0 if accepted else 1)

    def store_error(self) -> None:
        """Count a failed write to the state store."""
        self.store_errors.inc()

    def overrun(self, service: str, endpoint: str) -> None:
        """Count a poll skipped because its previous run had not finished."""
        self.overruns.labels(service, endpoint).inc()
