"""Notification metrics: what was sent, what failed, what waits, and how late it arrived."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

OUTCOMES = ("sent", "failed", "retried", "dropped")
DELIVERY_BUCKETS = (1, 5, 10, 15, 30, 60, 120, 300, 900, 3600, 4 * 3600, 24 * 3600)


class NotificationMetrics:
    """tqe_notifications_total, tqe_notification_queue_depth, tqe_notification_delivery_seconds."""

    def __init__(self, registry: CollectorRegistry, channels: list[str]) -> None:
        self.outcomes = Counter(
            "tqe_notifications",
            "Notification delivery attempts by channel and outcome "
            "(sent, failed, retried, dropped).",
            ["channel", "outcome"],
            registry=registry,
        )
        self.queue_depth = Gauge(
            "tqe_notification_queue_depth",
            "Deliveries waiting in the outbox (new or to be retried).",
            registry=registry,
        )
        self.delivery_seconds = Histogram(
            "tqe_notification_delivery_seconds",
            "Time from the condition change to the channel accepting the notification.",
            ["channel"],
            buckets=DELIVERY_BUCKETS,
            registry=registry,
        )
        for channel in channels:
            for outcome in OUTCOMES:
                self.outcomes.labels(channel, outcome)

    def outcome(self, channel: str, outcome: str) -> None:
        self.outcomes.labels(channel, outcome).inc()
