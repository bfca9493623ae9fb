"""Panel building blocks on top of grafana-foundation-sdk, styled once for a wall screen.

Every panel and query points at the `$datasource` variable (never a datasource UID), every
panel gets an explicit grid position (the layout is designed, not flowed), and the colours are
Grafana's named palette so light and dark themes both read well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from grafana_foundation_sdk.builders import common as common_builders
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import prometheus, stat, statetimeline, table, timeseries
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model
from grafana_foundation_sdk.models.prometheus import PromQueryFormat

PanelBuilder = stat.Panel | timeseries.Panel | statetimeline.Panel | table.Panel
DATASOURCE = common.DataSourceRef(type_val="prometheus", uid="${datasource}")
GREEN, BLUE, YELLOW, ORANGE, RED = "green", "blue", "yellow", "orange", "red"
DARK_RED, GREY, PURPLE = "dark-red", "text", "purple"


@dataclass(frozen=True)
class At:
    """A panel's place on Grafana's 24-column grid (one height unit is about 30 px)."""

    x: int
    y: int
    w: int
    h: int

    def grid(self) -> model.GridPos:
        return model.GridPos(h=self.h, w=self.w, x=self.x, y=self.y)


@dataclass(frozen=True)
class Query:
    """One PromQL target of a panel. `instant` queries show only the current value."""

    expr: str
    legend: str = ""
    ref: str = "A"
    instant: bool = False
    table: bool = False

    def build(self) -> prometheus.Dataquery:
        query = (
            prometheus.Dataquery()
            .datasource(DATASOURCE)
            .ref_id(self.ref)
            .expr(self.expr)
            .legend_format(self.legend or "__auto")
        )
        if self.table:
            query = query.format(PromQueryFormat.TABLE)
        return query.instant() if self.instant else query.range()


def value_text(mapping: Mapping[str, tuple[str, str]]) -> list[model.ValueMapping]:
    """Exact values shown as words in a colour: {"0": ("OPERATIONAL", "green"), ...}."""
    options = {
        value: model.ValueMappingResult(text=text, color=color, index=index)
        for index, (value, (text, color)) in enumerate(mapping.items())
    }
    return [model.ValueMap(options=options)]


def steps(base: str, *more: tuple[float, str]) -> dash.ThresholdsConfig:
    """Absolute thresholds: `base` below the first step, then each (value, colour)."""
    return (
        dash.ThresholdsConfig()
        .mode(model.ThresholdsMode.ABSOLUTE)
        .steps(
            [model.Threshold(value=None, color=base)]
            + [model.Threshold(value=value, color=color) for value, color in more]
        )
    )


def fixed_colour(colour: str) -> list[model.DynamicConfigValue]:
    return [model.DynamicConfigValue(id_val="color", value={"mode": "fixed", "fixedColor": colour})]


def link(title: str, url: str) -> dash.DashboardLink:
    return dash.DashboardLink(title).url(url)


def row(title: str, y: int) -> dash.Row:
    return dash.Row(title).grid_pos(model.GridPos(h=1, w=24, x=0, y=y)).collapsed(False)


@dataclass(frozen=True)
class Section:
    """A titled band of panels: `panels(y)` places them from row `y`, `height` rows tall."""

    title: str
    panels: Callable[[int], list[PanelBuilder]]
    height: int


def stack(board: dash.Dashboard, sections: Sequence[Section]) -> dash.Dashboard:
    """Lay the sections out top to bottom, each under an (open) row header."""
    y, panel_id = 0, 0
    for section in sections:
        panel_id += 1
        board = board.with_row(row(section.title, y).id(panel_id))
        for panel in section.panels(y + 1):
            panel_id += 1
            board = board.with_panel(panel.id(panel_id))
        y += 1 + section.height
    return board


def stat_panel(
    title: str,
    description: str,
    at: At,
    queries: Sequence[Query],
    *,
    unit: str = "short",
    mappings: list[model.ValueMapping] | None = None,
    thresholds: dash.ThresholdsConfig | None = None,
    by_query_colour: Mapping[str, str] | None = None,
    text_mode: common.BigValueTextMode = common.BigValueTextMode.VALUE_AND_NAME,
    no_value: str = "No data",
    links: Sequence[dash.DashboardLink] = (),
    decimals: int | None = None,
) -> stat.Panel:
    """A big number (or word) per series, on a coloured background: readable across a room."""
    panel = (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .grid_pos(at.grid())
        .targets([query.build() for query in queries])
        .unit(unit)
        .color_mode(common.BigValueColorMode.BACKGROUND)
        .graph_mode(common.BigValueGraphMode.NONE)
        .text_mode(text_mode)
        .justify_mode(common.BigValueJustifyMode.CENTER)
        .orientation(common.VizOrientation.AUTO)
        .reduce_options(
            common_builders.ReduceDataOptions().calcs(["lastNotNull"]).values(False).fields("")
        )
        .thresholds(thresholds or steps(GREEN))
        .no_value(no_value)
    )
    if mappings:
        panel = panel.mappings(mappings)
    if decimals is not None:
        panel = panel.decimals(decimals)
    for ref, colour in (by_query_colour or {}).items():
        panel = panel.override_by_query(ref, fixed_colour(colour))
    if links:
        panel = panel.data_links(list(links))
    return panel


def timeseries_panel(
    title: str,
    description: str,
    at: At,
    queries: Sequence[Query],
    *,
    unit: str = "short",
    bars: bool = False,
    dashed_refs: Sequence[str] = (),
    min_value: float | None = None,
) -> timeseries.Panel:
    """Lines over time with a legend table under them (bars for counts)."""
    draw = common.GraphDrawStyle.BARS if bars else common.GraphDrawStyle.LINE
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .grid_pos(at.grid())
        .targets([query.build() for query in queries])
        .unit(unit)
        .draw_style(draw)
        .line_width(2)
        .fill_opacity(60 if bars else 10)
        .show_points(common.VisibilityMode.NEVER)
        .span_nulls(False)
        .legend(
            common_builders.VizLegendOptions()
            .display_mode(common.LegendDisplayMode.LIST)
            .placement(common.LegendPlacement.BOTTOM)
            .show_legend(True)
        )
        .tooltip(
            common_builders.VizTooltipOptions()
            .mode(common.TooltipDisplayMode.MULTI)
            .sort(common.SortOrder.DESCENDING)
        )
        .thresholds(steps(GREEN))
    )
    if bars:
        panel = panel.stacking(common_builders.StackingConfig().mode(common.StackingMode.NORMAL))
    if min_value is not None:
        panel = panel.min(min_value)
    for ref in dashed_refs:
        panel = panel.override_by_query(
            ref,
            [
                model.DynamicConfigValue(
                    id_val="custom.lineStyle", value={"fill": "dash", "dash": [10, 10]}
                ),
                model.DynamicConfigValue(id_val="custom.fillOpacity", value=0),
                model.DynamicConfigValue(id_val="custom.lineWidth", value=1),
            ],
        )
    return panel


def state_timeline_panel(
    title: str,
    description: str,
    at: At,
    queries: Sequence[Query],
    mappings: list[model.ValueMapping],
) -> statetimeline.Panel:
    """One coloured band per series: what state each component was in, and when."""
    return (
        statetimeline.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .grid_pos(at.grid())
        .targets([query.build() for query in queries])
        .mappings(mappings)
        .thresholds(steps(GREY))
        .color_scheme(dash.FieldColor().mode(model.FieldColorModeId.THRESHOLDS))
        .show_value(common.VisibilityMode.AUTO)
        .merge_values(True)
        .row_height(0.85)
        .fill_opacity(85)
        .line_width(0)
        .align_value(common.TimelineValueAlignment.CENTER)
        .legend(common_builders.VizLegendOptions().show_legend(False))
    )


def table_panel(
    title: str,
    description: str,
    at: At,
    queries: Sequence[Query],
    *,
    hide: Sequence[str],
    colour_column: str,
    colours: Mapping[str, tuple[str, str]],
) -> table.Panel:
    """Current series as rows (labels as columns), one column coloured by its value."""
    organize = model.DataTransformerConfig(
        id_val="organize",
        options={"excludeByName": dict.fromkeys(hide, True), "renameByName": {}},
    )
    return (
        table.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .grid_pos(at.grid())
        .targets([query.build() for query in queries])
        .transformations([organize])
        .cell_height(common.TableCellHeight.LG)
        .show_header(True)
        .no_value("None active")
        .override_by_name(
            colour_column,
            [
                model.DynamicConfigValue(
                    id_val="custom.cellOptions", value={"type": "color-background"}
                ),
                model.DynamicConfigValue(id_val="mappings", value=value_text(colours)),
            ],
        )
    )
