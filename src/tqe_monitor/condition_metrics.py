"""Metrics of what the tracker concluded: transitions, active conditions, burn rate, forecast.

Kept beside `metrics` (the poll metrics) so each file stays about one thing; both register on
the same registry that the app passes in. The per-target families are `TargetGauge`s, which
render fast when there are thousands of targets (see `exposition`).
"""

from __future__ import annotations

import contextlib

from prometheus_client import CollectorRegistry, Counter, Gauge

from tqe_monitor.exposition import TargetGauge
from tqe_monitor.tracking import StateChange
from tqe_monitor.tracking.conditions import ConditionBook, ConditionKey, ConditionKind, Transition
from tqe_monitor.tracking.forecast import Forecast
from tqe_monitor.tracking.wallet import WalletPolicy


class ConditionMetrics:
    """tqe_state_transitions_total, tqe_condition_active and the wallet analysis gauges."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.transitions = Counter(
            "tqe_state_transitions",
            "Component state changes observed (first sightings are not counted).",
            ["service", "component", "from_state", "to_state"],
            registry=registry,
        )
        self.active = Gauge(
            "tqe_condition_active",
            "1 while a condition is active (the series is removed when it resolves).",
            ["service", "target", "condition", "severity"],
            registry=registry,
        )
        self.burn_rate = TargetGauge(
            "tqe_wallet_burn_rate_words_per_hour",
            "Words spent per hour, least-squares fit over the forecast window (negative: rising).",
            ["service", "target"],
            registry=registry,
        )
        self.depletion = TargetGauge(
            "tqe_wallet_depletion_seconds",
            "Forecast seconds until the wallet reaches zero; absent when it is not draining.",
            ["service", "target"],
            registry=registry,
        )
        self.breached = TargetGauge(
            "tqe_wallet_threshold_breached",
            "1 while a low-balance threshold of this severity is breached (with hysteresis).",
            ["service", "target", "severity"],
            registry=registry,
        )
        self.threshold_words = TargetGauge(
            "tqe_wallet_threshold_words",
            "Configured low-balance thresholds, for dashboards and label-driven alert rules.",
            ["service", "target", "severity", "tier"],
            registry=registry,
        )

    def declare_wallet(self, service: str, target: str, policy: WalletPolicy) -> None:
        """Publish a target's thresholds and start its breach gauges at 0."""
        for threshold in policy.thresholds:
            self.threshold_words.labels(
                service, target, threshold.severity.value, threshold.tier
            ).set(threshold.words)
            self.breached.labels(service, target, threshold.severity.value).set(0)

    def state_changed(self, change: StateChange) -> None:
        if change.previous is not None:
            self.transitions.labels(
                change.service, change.component.value, change.previous.value, change.current.value
            ).inc()

    def condition(self, transition: Transition) -> None:
        """Set or remove a condition's series."""
        self.condition_active(transition.key, transition.severity.value, transition.raised)

    def condition_active(self, key: ConditionKey, severity: str, active: bool) -> None:
        labels = (key.service, key.target, key.name, severity)
        if active:
            self.active.labels(*labels).set(1)
        else:
            with contextlib.suppress(KeyError):
                self.active.remove(*labels)

    def wallet_analysis(
        self,
        service: str,
        target: str,
        forecast: Forecast | None,
        policy: WalletPolicy,
        book: ConditionBook,
    ) -> None:
        """Publish the burn rate, the forecast and which threshold severities are breached."""
        if forecast is not None:
            self.burn_rate.labels(service, target).set(forecast.burn_rate_per_hour)
        if forecast is not None and forecast.seconds_to_zero is not None:
            self.depletion.labels(service, target).set(forecast.seconds_to_zero)
        else:
            with contextlib.suppress(KeyError):
                self.depletion.remove(service, target)
        breached: dict[str, bool] = {}
        for threshold in policy.thresholds:
            key = ConditionKey(ConditionKind.WALLET_LOW, service, target, threshold.tier)
            severity = threshold.severity.value
            breached[severity] = breached.get(severity, False) or book.is_active(key)
        for severity, value in breached.items():
            self.breached.labels(service, target, severity).set(int(value))
