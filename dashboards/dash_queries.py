"""The PromQL behind the dashboards, as plain strings built from a label filter.

Kept apart from the panel layout so each query is written once and reused by the overview and
the per-target dashboard with different filters (`=~"$service"` on the wall, `="$service"` on a
target's page). Nothing here is Grafana-specific except the `$variables` in the filters.
"""

from __future__ import annotations

from dataclasses import dataclass

# Component states as numbers for stat and state-timeline panels (the stateset has one series
# per state; a panel needs one number per component). Ordered by how much attention they need.
STATE_CODES = {"operational": 0, "maintenance": 1, "degraded": 2, "unknown": 3}
COMPONENTS = ("platform", "ai_service")
NOT_DRAINING = -1  # "Empty in" shows this (mapped to "not draining") when no forecast exists


@dataclass(frozen=True)
class Scope:
    """Label matchers for one dashboard: which services and targets its panels show.

    `conditions` matches the selected targets and also the services' own conditions, whose
    `target` label is empty.
    """

    service: str
    target: str
    conditions_target: str
    job: str = 'job=~"$job"'

    @property
    def targets(self) -> str:
        return f"{self.service}, {self.target}"

    @property
    def conditions(self) -> str:
        return f"{self.service}, {self.conditions_target}"


WALL = Scope('service=~"$service"', 'target=~"$target"', 'target=~"$target|"')
ONE_TARGET = Scope('service="$service"', 'target="$target"', 'target=~"$target|"')


def service_state_code(scope: Scope) -> str:
    """One series per (service, component): 0 operational, 1 maintenance, 2 degraded, 3 unknown."""
    components = "|".join(COMPONENTS)
    terms = [
        f"{code} * sum by (service, component) (tqe_service_state{{{scope.service}, "
        f'component=~"{components}", tqe_service_state="{state}"}})'
        for state, code in STATE_CODES.items()
        if code
    ]
    return "\n+ ".join(terms)


def remaining(scope: Scope) -> str:
    return f"tqe_wallet_remaining_words{{{scope.targets}}}"


def _breached(scope: Scope, severities: str) -> str:
    """Thresholds (of the given severities) that the balance is below, per target.

    Label-driven: the thresholds come from `tqe_wallet_threshold_words`, so a changed config
    changes the colours without touching the dashboard.
    """
    return (
        f"({remaining(scope)} < ignoring(severity, tier) group_right "
        f'tqe_wallet_threshold_words{{{scope.targets}, severity=~"{severities}"}})'
    )


def wallet_levels(scope: Scope) -> dict[str, str]:
    """Remaining words split by level: each target is in exactly one of these series sets,
    so a stat panel can colour each query (level) differently and still show the words."""
    positive = f"({remaining(scope)} > 0)"
    on = "ignoring(severity, tier)"
    return {
        "OK": f"{positive} unless {on} {_breached(scope, 'info|warning|critical')}",
        "INFO": (
            f"{positive} and {on} {_breached(scope, 'info')}\n"
            f"unless {on} {_breached(scope, 'warning|critical')}"
        ),
        "WARNING": (
            f"{positive} and {on} {_breached(scope, 'warning')}\n"
            f"unless {on} {_breached(scope, 'critical')}"
        ),
        "CRITICAL": f"{positive} and {on} {_breached(scope, 'critical')}",
        "EMPTY": f"{remaining(scope)} <= 0",
    }


def thresholds(scope: Scope) -> str:
    return f"tqe_wallet_threshold_words{{{scope.targets}}}"


def depletion(scope: Scope) -> str:
    """Forecast seconds to zero; NOT_DRAINING for targets whose balance is not falling."""
    return (
        f"tqe_wallet_depletion_seconds{{{scope.targets}}}\n"
        f"or (0 * {remaining(scope)} + ({NOT_DRAINING}))"
    )


def depletion_raw(scope: Scope) -> str:
    return f"tqe_wallet_depletion_seconds{{{scope.targets}}}"


def burn_rate(scope: Scope) -> str:
    return f"tqe_wallet_burn_rate_words_per_hour{{{scope.targets}}}"


def wallet_poll(scope: Scope) -> str:
    """Per target: 1 last wallet poll OK, 0 failing, 2 failing because the key is rejected."""
    return f"tqe_wallet_up{{{scope.targets}}}\n+ 2 * tqe_api_key_rejected{{{scope.targets}}}"


def status_up(scope: Scope) -> str:
    return f"tqe_status_up{{{scope.service}}}"


def poll_success_ratio(scope: Scope, window: str) -> str:
    by = "sum by (service, endpoint)"
    return (
        f"1 - (\n  {by} (increase(tqe_poll_errors_total{{{scope.service}}}[{window}]))\n"
        f"  / {by} (increase(tqe_poll_duration_seconds_count{{{scope.service}}}[{window}]))\n)"
    )


def poll_latency(scope: Scope, quantile: float, endpoint: str = "") -> str:
    matchers = scope.service + (f', endpoint="{endpoint}"' if endpoint else "")
    return (
        f"histogram_quantile({quantile}, sum by (service, endpoint, le) "
        f"(rate(tqe_poll_duration_seconds_bucket{{{matchers}}}[$__rate_interval])))"
    )


def poll_errors_per_minute(scope: Scope, endpoint: str = "") -> str:
    matchers = scope.service + (f', endpoint="{endpoint}"' if endpoint else "")
    return (
        "60 * sum by (service, endpoint, reason) "
        f"(rate(tqe_poll_errors_total{{{matchers}}}[$__rate_interval])) > 0"
    )


def seconds_since_last_poll(scope: Scope, endpoint: str) -> str:
    return f'time() - tqe_last_poll_timestamp_seconds{{{scope.targets}, endpoint="{endpoint}"}}'


def seconds_since_wallet_update(scope: Scope) -> str:
    return f"time() - tqe_wallet_updated_timestamp_seconds{{{scope.targets}}}"


def active_conditions(scope: Scope) -> str:
    return f"tqe_condition_active{{{scope.conditions}}} == 1"


def active_conditions_by_severity(scope: Scope) -> str:
    return f"count by (severity) (tqe_condition_active{{{scope.conditions}}} == 1)"


# Notifications: outcomes, rate, queue depth and delivery latency (tqe_notification*).
NOTIFICATIONS_BY_OUTCOME = (
    'sum by (outcome) (increase(tqe_notifications_total{outcome=~"sent|failed"}[$__range]))'
)
NOTIFICATION_RATE = (
    "60 * sum by (channel, outcome) (rate(tqe_notifications_total[$__rate_interval]))"
)
NOTIFICATION_QUEUE = "sum(tqe_notification_queue_depth)"
NOTIFICATION_DELIVERY_P95 = (
    "histogram_quantile(0.95, sum by (le) "
    "(rate(tqe_notification_delivery_seconds_bucket[$__rate_interval])))"
)


def exporter_up(scope: Scope) -> str:
    return f"up{{{scope.job}}}"


def build_info(scope: Scope) -> str:
    return f"tqe_monitor_build_info{{{scope.job}}}"


def store_errors(scope: Scope) -> str:
    return f"sum(increase(tqe_store_errors_total{{{scope.job}}}[$__range]))"


def overruns(scope: Scope) -> str:
    return f"sum(increase(tqe_poll_overruns_total{{{scope.service}}}[$__range]))"


def configured_targets(scope: Scope) -> str:
    return f"sum(tqe_targets{{{scope.service}}})"
