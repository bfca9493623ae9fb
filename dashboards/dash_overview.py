"""The overview: one screen for a wall, read from across a room.

Top to bottom, in the order a person looking at the wall asks: is the service up, will the
words last, is the monitor itself seeing things (polls), who has been told (notifications),
and what is wrong right now (conditions). Big coloured stats for "now", lines for "lately".
"""

from __future__ import annotations

import dash_queries as q
import dash_shared as shared
import dash_variables as variables
from dash_queries import WALL
from dash_widgets import (
    BLUE,
    GREEN,
    ORANGE,
    RED,
    At,
    PanelBuilder,
    Query,
    Section,
    fixed_colour,
    stack,
    stat_panel,
    steps,
    timeseries_panel,
    value_text,
)
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model

UID = "tqe-overview"
VALUE_ONLY = common.BigValueTextMode.VALUE


def _services(y: int) -> list[PanelBuilder]:
    return [
        shared.state_now(WALL, At(0, y, 6, 6)),
        shared.state_timeline(WALL, At(6, y, 12, 6)),
        stat_panel(
            "Active conditions",
            "How many conditions are active now, by severity (details below).",
            At(18, y, 6, 6),
            [Query(q.active_conditions_by_severity(WALL), "{{severity}}", instant=True)],
            thresholds=steps(ORANGE),
            no_value="none",
        )
        .override_by_name("critical", fixed_colour(RED))
        .override_by_name("info", fixed_colour(BLUE)),
    ]


def _wallets(y: int) -> list[PanelBuilder]:
    return [
        shared.remaining_words(WALL, At(0, y, 6, 8), links=True),
        shared.remaining_over_time(WALL, At(6, y, 10, 8)),
        shared.empty_in(WALL, At(16, y, 8, 4)),
        shared.burn_rate(WALL, At(16, y + 4, 8, 4)),
    ]


def _polls(y: int) -> list[PanelBuilder]:
    return [
        shared.status_poll(WALL, At(0, y, 3, 6)),
        shared.wallet_poll(WALL, At(3, y, 4, 6)),
        stat_panel(
            "Poll success",
            "Share of polls that succeeded over the dashboard's time range.",
            At(7, y, 4, 6),
            [
                Query(
                    q.poll_success_ratio(WALL, "$__range"),
                    "{{service}} {{endpoint}}",
                    instant=True,
                )
            ],
            unit="percentunit",
            thresholds=steps(RED, (0.9, ORANGE), (0.99, GREEN)),
            decimals=1,
        ),
        shared.poll_latency(WALL, At(11, y, 6, 6)),
        shared.poll_errors(WALL, At(17, y, 7, 6)),
    ]


def _conditions_and_notifications(y: int) -> list[PanelBuilder]:
    return [
        shared.conditions_table(WALL, At(0, y, 12, 7)),
        stat_panel(
            "Notifications",
            "Notifications sent and failed over the dashboard's time range.",
            At(12, y, 4, 7),
            [Query(q.NOTIFICATIONS_BY_OUTCOME, "{{outcome}}", instant=True)],
            thresholds=steps(GREEN, (1, RED)),  # for "failed"; "sent" is always blue
            decimals=0,
        ).override_by_name("sent", fixed_colour(BLUE)),
        stat_panel(
            "Queue depth",
            "Notifications waiting in the outbox to be delivered.",
            At(16, y, 3, 7),
            [Query(q.NOTIFICATION_QUEUE, "queued", instant=True)],
            thresholds=steps(GREEN, (10, ORANGE), (100, RED)),
            text_mode=VALUE_ONLY,
            decimals=0,
        ),
        timeseries_panel(
            "Notifications per minute",
            "Delivery attempts by channel and outcome (sent, failed, retried, dropped).",
            At(19, y, 5, 7),
            [Query(q.NOTIFICATION_RATE, "{{channel}} {{outcome}}")],
            bars=True,
            min_value=0,
        ),
    ]


def _monitor(y: int) -> list[PanelBuilder]:
    return [
        stat_panel(
            "Exporter up",
            "Whether Prometheus can scrape tqe-monitor (the `up` series of its job).",
            At(0, y, 4, 4),
            [Query(q.exporter_up(WALL), "{{instance}}", instant=True)],
            mappings=value_text({"1": ("UP", GREEN), "0": ("DOWN", RED)}),
        ),
        stat_panel(
            "Version",
            "tqe-monitor build running (tqe_monitor_build_info).",
            At(4, y, 4, 4),
            [Query(q.build_info(WALL), "{{version}}", instant=True)],
            text_mode=common.BigValueTextMode.NAME,
            thresholds=steps(BLUE),
        ),
        stat_panel(
            "Targets",
            "Configured targets of the selected services.",
            At(8, y, 4, 4),
            [Query(q.configured_targets(WALL), "targets", instant=True)],
            thresholds=steps(BLUE),
            text_mode=VALUE_ONLY,
            decimals=0,
        ),
        stat_panel(
            "Poll overruns",
            "Polls skipped because the previous one was still running, over the time range.",
            At(12, y, 4, 4),
            [Query(q.overruns(WALL), "overruns", instant=True)],
            thresholds=steps(GREEN, (1, ORANGE)),
            text_mode=VALUE_ONLY,
            decimals=0,
        ),
        stat_panel(
            "Store errors",
            "Failed writes to the state store over the time range (monitoring goes on).",
            At(16, y, 4, 4),
            [Query(q.store_errors(WALL), "errors", instant=True)],
            thresholds=steps(GREEN, (1, RED)),
            text_mode=VALUE_ONLY,
            decimals=0,
        ),
        stat_panel(
            "Delivery p95",
            "95th percentile of the time to deliver one notification.",
            At(20, y, 4, 4),
            [Query(q.NOTIFICATION_DELIVERY_P95, "p95")],
            unit="s",
            thresholds=steps(GREEN, (10, ORANGE), (60, RED)),
            text_mode=VALUE_ONLY,
        ),
    ]


def overview() -> dash.Dashboard:
    board = (
        dash.Dashboard("TQE monitor: overview")
        .uid(UID)
        .description("State, word balances, poll health and conditions of every TQE target.")
        .tags(["tqe-monitor"])
        .time("now-6h", "now")
        .refresh("30s")
        .timezone("browser")
        .tooltip(model.DashboardCursorSync.CROSSHAIR)
        .readonly()
        .variables(
            [
                variables.datasource(),
                variables.job(),
                variables.services(many=True),
                variables.targets(many=True),
            ]
        )
        .link(
            dash.DashboardLink("Target detail")
            .type(model.DashboardLinkType.DASHBOARDS)
            .tags(["tqe-monitor"])
            .as_dropdown(False)
            .include_vars(True)
            .keep_time(True)
        )
    )
    return stack(
        board,
        [
            Section("Service", _services, 6),
            Section("Wallets", _wallets, 8),
            Section("Polls", _polls, 6),
            Section("Conditions and notifications", _conditions_and_notifications, 7),
            Section("Monitor", _monitor, 4),
        ],
    )
