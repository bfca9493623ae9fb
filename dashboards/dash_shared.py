"""Panels that both dashboards show, for a scope (the wall's many targets, or one target).

Colours mean the same everywhere: green fine, blue informational (maintenance, info tier),
orange needs attention (degraded, warning tier), red act now (critical tier, failing polls,
rejected key), dark red the wallet is empty, purple the state is unknown.
"""

from __future__ import annotations

import dash_queries as q
from dash_queries import Scope
from dash_widgets import (
    BLUE,
    DARK_RED,
    GREEN,
    ORANGE,
    PURPLE,
    RED,
    At,
    Query,
    fixed_colour,
    stat_panel,
    state_timeline_panel,
    steps,
    table_panel,
    timeseries_panel,
    value_text,
)
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import stat, statetimeline, table, timeseries

STATE_NAMES = {
    "operational": ("OPERATIONAL", GREEN),
    "maintenance": ("MAINTENANCE", BLUE),
    "degraded": ("DEGRADED", ORANGE),
    "unknown": ("UNKNOWN", PURPLE),
}
STATES = value_text({str(q.STATE_CODES[state]): shown for state, shown in STATE_NAMES.items()})
LEVEL_COLOURS = {"OK": GREEN, "INFO": BLUE, "WARNING": ORANGE, "CRITICAL": RED, "EMPTY": DARK_RED}
SEVERITY_COLOURS = {
    "info": ("info", BLUE),
    "warning": ("warning", ORANGE),
    "critical": ("critical", RED),
}
DAY = 86_400.0
TARGET_DETAIL_URL = (
    "/d/tqe-target/tqe-monitor-target?${datasource:queryparam}"
    "&var-service=${__field.labels.service}&var-target=${__field.labels.target}"
    "&${__url_time_range}"
)


def target_link() -> dash.DashboardLink:
    return dash.DashboardLink("Open this target").url(TARGET_DETAIL_URL)


def state_now(scope: Scope, at: At) -> stat.Panel:
    return stat_panel(
        "State now",
        "Platform and AI service of each service, as last read from /status. UNKNOWN after "
        "3 failed status polls in a row or for a state word the monitor does not understand.",
        at,
        [Query(q.service_state_code(scope), "{{service}} {{component}}", instant=True)],
        mappings=STATES,
    )


def state_timeline(scope: Scope, at: At) -> statetimeline.Panel:
    return state_timeline_panel(
        "State over time",
        "Each band is one component of one service; its colour is the state it was in.",
        at,
        [Query(q.service_state_code(scope), "{{service}} · {{component}}")],
        STATES,
    )


def remaining_words(scope: Scope, at: At, *, links: bool) -> stat.Panel:
    """Remaining words per target, coloured by the worst threshold it is below.

    One query per level: each target is in exactly one of them at any moment, and each query
    has its own colour, so the value shown is the balance while the colour comes from the
    target's own configured thresholds (`tqe_wallet_threshold_words`).
    """
    levels = q.wallet_levels(scope)
    return stat_panel(
        "Remaining words",
        "Balance of each target. Colour: the most severe threshold (from the config, via "
        "tqe_wallet_threshold_words) the balance is below; green above all of them, dark red "
        "at zero.",
        at,
        [Query(expr, "{{target}}", ref, instant=True) for ref, expr in levels.items()],
        by_query_colour=LEVEL_COLOURS,
        links=[target_link()] if links else (),
        decimals=0,
    )


def empty_in(scope: Scope, at: At) -> stat.Panel:
    return stat_panel(
        "Empty in",
        "Forecast time until the balance reaches zero (least squares over the forecast window, "
        "restarted by a top-up). Red under a day, orange under 3 days.",
        at,
        [Query(q.depletion(scope), "{{target}}", instant=True)],
        unit="s",
        mappings=value_text({str(q.NOT_DRAINING): ("not draining", GREEN)}),
        thresholds=steps(RED, (0, RED), (DAY, ORANGE), (3 * DAY, GREEN)),
    )


def burn_rate(scope: Scope, at: At) -> stat.Panel:
    return stat_panel(
        "Burn rate",
        "Words spent per hour over the forecast window (negative: the balance grew).",
        at,
        [Query(q.burn_rate(scope), "{{target}}", instant=True)],
        unit="suffix:/h",
        thresholds=steps(BLUE),
        decimals=0,
    )


def remaining_over_time(scope: Scope, at: At) -> timeseries.Panel:
    panel = timeseries_panel(
        "Remaining words over time",
        "Balance of each target (solid) and its configured thresholds (dashed; red critical, "
        "orange warning, blue info).",
        at,
        [
            Query(q.remaining(scope), "{{target}}", "A"),
            Query(q.thresholds(scope), "{{target}} {{severity}} threshold", "B"),
        ],
        dashed_refs=["B"],
        min_value=0,
    )
    for severity, (_, colour) in SEVERITY_COLOURS.items():
        panel = panel.override_by_regexp(f".* {severity} threshold", fixed_colour(colour))
    return panel


def status_poll(scope: Scope, at: At) -> stat.Panel:
    return stat_panel(
        "Status poll",
        "Whether the last /status poll of each service succeeded and was understood.",
        at,
        [Query(q.status_up(scope), "{{service}}", instant=True)],
        mappings=value_text({"1": ("OK", GREEN), "0": ("FAILING", RED)}),
    )


def wallet_poll(scope: Scope, at: At) -> stat.Panel:
    return stat_panel(
        "Wallet poll",
        "Whether the last /wallet poll of each target succeeded; KEY REJECTED while the "
        "service answers 401/403 for the target's API key.",
        at,
        [Query(q.wallet_poll(scope), "{{target}}", instant=True)],
        mappings=value_text(
            {"1": ("OK", GREEN), "0": ("FAILING", RED), "2": ("KEY REJECTED", RED)}
        ),
    )


def poll_latency(scope: Scope, at: At, endpoint: str = "") -> timeseries.Panel:
    return timeseries_panel(
        "Poll latency p50 / p95",
        "Duration of polls (all attempts of one poll, retries included).",
        at,
        [
            Query(q.poll_latency(scope, 0.5, endpoint), "p50 {{service}} {{endpoint}}", "A"),
            Query(q.poll_latency(scope, 0.95, endpoint), "p95 {{service}} {{endpoint}}", "B"),
        ],
        unit="s",
        dashed_refs=["A"],
        min_value=0,
    )


def poll_errors(scope: Scope, at: At, endpoint: str = "") -> timeseries.Panel:
    return timeseries_panel(
        "Poll errors by reason",
        "Failed polls per minute: timeout, connect, auth, rate_limited, server_error, "
        "http_error, bad_payload.",
        at,
        [
            Query(
                q.poll_errors_per_minute(scope, endpoint),
                "{{service}} {{endpoint}} {{reason}}",
            )
        ],
        unit="short",
        bars=True,
        min_value=0,
    )


def conditions_table(scope: Scope, at: At) -> table.Panel:
    return table_panel(
        "Active conditions",
        "Conditions the daemon holds now (with its confirmations and hysteresis); an empty "
        "target is a condition of the whole service.",
        at,
        [Query(q.active_conditions(scope), ref="A", instant=True, table=True)],
        hide=["Time", "Value", "__name__", "instance", "job"],
        colour_column="severity",
        colours=SEVERITY_COLOURS,
    )
