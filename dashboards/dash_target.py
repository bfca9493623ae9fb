"""The per-target page: one API key's wallet, its polls and its service, in detail.

Reached from the overview (click a target's balance) with the service and target already
chosen; also usable on its own through the two drop-downs.
"""

from __future__ import annotations

import dash_queries as q
import dash_shared as shared
import dash_variables as variables
from dash_queries import ONE_TARGET as ONE
from dash_widgets import (
    BLUE,
    At,
    PanelBuilder,
    Query,
    Section,
    stack,
    stat_panel,
    steps,
    timeseries_panel,
)
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model

UID = "tqe-target"


def _now(y: int) -> list[PanelBuilder]:
    return [
        shared.remaining_words(ONE, At(0, y, 6, 6), links=False),
        shared.empty_in(ONE, At(6, y, 4, 6)),
        shared.burn_rate(ONE, At(10, y, 4, 6)),
        shared.wallet_poll(ONE, At(14, y, 4, 6)),
        stat_panel(
            "Last poll / last change",
            "Time since the last /wallet poll attempt, and since the wallet itself last "
            "changed (as the service reports it).",
            At(18, y, 6, 6),
            [
                Query(q.seconds_since_last_poll(ONE, "wallet"), "polled", "A", instant=True),
                Query(q.seconds_since_wallet_update(ONE), "changed", "B", instant=True),
            ],
            unit="s",
            thresholds=steps(BLUE),
            text_mode=common.BigValueTextMode.VALUE_AND_NAME,
            decimals=0,
        ),
    ]


def _trend(y: int) -> list[PanelBuilder]:
    return [
        shared.remaining_over_time(ONE, At(0, y, 16, 9)),
        timeseries_panel(
            "Burn rate",
            "Words spent per hour, least-squares fit over the forecast window.",
            At(16, y, 8, 9),
            [Query(q.burn_rate(ONE), "{{target}}")],
            unit="suffix:/h",
        ),
    ]


def _forecast_and_state(y: int) -> list[PanelBuilder]:
    return [
        timeseries_panel(
            "Forecast time to zero",
            "How the forecast moved: seconds until the balance reaches zero (gaps: not draining).",
            At(0, y, 8, 8),
            [Query(q.depletion_raw(ONE), "{{target}}")],
            unit="s",
            min_value=0,
        ),
        shared.state_timeline(ONE, At(8, y, 16, 8)),
    ]


def _polls_and_conditions(y: int) -> list[PanelBuilder]:
    return [
        shared.conditions_table(ONE, At(0, y, 12, 8)),
        shared.poll_errors(ONE, At(12, y, 6, 8), endpoint="wallet"),
        shared.poll_latency(ONE, At(18, y, 6, 8), endpoint="wallet"),
    ]


def target_detail() -> dash.Dashboard:
    board = (
        dash.Dashboard("TQE monitor: target")
        .uid(UID)
        .description("One target's wallet, forecast, polls, conditions and service state.")
        .tags(["tqe-monitor"])
        .time("now-24h", "now")
        .refresh("1m")
        .timezone("browser")
        .tooltip(model.DashboardCursorSync.CROSSHAIR)
        .readonly()
        .variables(
            [
                variables.datasource(),
                variables.job(),
                variables.services(many=False),
                variables.targets(many=False),
            ]
        )
        .link(
            dash.DashboardLink("Overview")
            .type(model.DashboardLinkType.LINK)
            .url("/d/tqe-overview/tqe-monitor-overview")
            .include_vars(False)
            .keep_time(True)
        )
    )
    return stack(
        board,
        [
            Section("Now", _now, 6),
            Section("Trend", _trend, 9),
            Section("Forecast and service state", _forecast_and_state, 8),
            Section("Polls and conditions", _polls_and_conditions, 8),
        ],
    )
