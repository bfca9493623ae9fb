"""Template variables shared by the dashboards: data source, job, service, target.

The data source is a variable (type `prometheus`), never a UID, so the JSON imports into any
Grafana. Service and target lists come from the daemon's own series, so a new target in the
config shows up without editing a dashboard.
"""

from __future__ import annotations

from dash_widgets import DATASOURCE
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.models import dashboard as model

ALL = model.VariableOption(text="All", value="$__all")


def datasource() -> dash.DatasourceVariable:
    return (
        dash.DatasourceVariable("datasource")
        .label("Data source")
        .type("prometheus")
        .current(model.VariableOption(text="default", value="default"))
    )


def _query(name: str, label: str, query: str) -> dash.QueryVariable:
    return (
        dash.QueryVariable(name)
        .label(label)
        .datasource(DATASOURCE)
        .query(query)
        .definition(query)
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
    )


def job() -> dash.QueryVariable:
    """The Prometheus job(s) scraping tqe-monitor; used by the exporter-health panels."""
    return _query("job", "Job", "label_values(tqe_monitor_build_info, job)").current(
        model.VariableOption(text="tqe-monitor", value="tqe-monitor")
    )


def services(*, many: bool) -> dash.QueryVariable:
    variable = _query("service", "Service", "label_values(tqe_targets, service)")
    if many:
        variable = variable.multi(True).include_all(True).all_value(".*").current(ALL)
    return variable


def targets(*, many: bool) -> dash.QueryVariable:
    matcher = 'service=~"$service"' if many else 'service="$service"'
    variable = _query(
        "target", "Target", f"label_values(tqe_wallet_remaining_words{{{matcher}}}, target)"
    )
    if many:
        variable = variable.multi(True).include_all(True).all_value(".*").current(ALL)
    return variable
