"""Draws a dashboard's panels as a static HTML page, from its JSON and its queries' results.

A stand-in for Grafana when making the documentation's picture: panels sit at their gridPos
(24 columns, 30 px rows with 8 px gaps, as Grafana lays them out), stats apply the panel's value
mappings, thresholds and per-query colours, time series and state timelines are inline SVG.
Only what the tqe-monitor dashboards use is drawn; it is not a general Grafana renderer.
"""

from __future__ import annotations

import html
import math
from datetime import datetime
from typing import Any

from preview_values import (
    colour,
    display_name,
    fixed_colours,
    format_value,
    mapped,
    series_colour,
)

ROW_PX, GAP_PX, PAD_PX, HEADER_PX = 30, 8, 16, 71
PALETTE = ["#73BF69", "#F2CC0C", "#8AB8FF", "#FF780A", "#F2495C", "#5794F2", "#B877D9", "#FADE2A"]
STYLE = """
body{margin:0;background:#111217;color:#ccccdc;
font-family:'DejaVu Sans',Inter,Helvetica,sans-serif}
.head{height:70px;padding:0 16px;display:flex;align-items:center;gap:22px;
border-bottom:1px solid #2c3235}
.head h1{font-size:22px;font-weight:500;margin:0;color:#fff}.var{font-size:14px;background:#181b1f;
border:1px solid #2c3235;padding:6px 10px;border-radius:3px}.var b{color:#8e8e9e;font-weight:400}
.panel{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:3px;
overflow:hidden}
.title{height:28px;line-height:28px;padding:0 10px;font-size:15px;font-weight:500;color:#e0e0ec;
white-space:nowrap;overflow:hidden}.body{position:absolute;left:6px;right:6px;top:30px;bottom:6px}
.row{position:absolute;font-size:17px;font-weight:600;color:#fff}.nodata{display:flex;height:100%;
align-items:center;justify-content:center;color:#8e8e9e;font-size:16px}
.tiles{display:grid;gap:4px;height:100%}.tile{border-radius:3px;display:flex;flex-direction:column;
align-items:center;justify-content:center;color:#fff;overflow:hidden;text-align:center}
table{width:100%;border-collapse:collapse;font-size:15px}td,th{padding:7px 8px;text-align:left;
border-bottom:1px solid #2c3235}th{color:#8e8e9e;font-weight:500}
"""


def page_height(dashboard: dict[str, Any]) -> int:
    bottom = max(int(p["gridPos"]["y"] + p["gridPos"]["h"]) for p in dashboard["panels"])
    return HEADER_PX + PAD_PX + bottom * (ROW_PX + GAP_PX)


def render_page(
    dashboard: dict[str, Any], data: dict[str, Any], start: float, end: float, width: int
) -> str:
    column = (width - 2 * PAD_PX + GAP_PX) / 24
    boxes = []
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        left = PAD_PX + grid["x"] * column
        top = PAD_PX + grid["y"] * (ROW_PX + GAP_PX)
        w, h = grid["w"] * column - GAP_PX, grid["h"] * (ROW_PX + GAP_PX) - GAP_PX
        box = f"left:{left:.0f}px;top:{top:.0f}px;width:{w:.0f}px;height:{h:.0f}px"
        if panel["type"] == "row":
            boxes.append(f'<div class="row" style="{box}">{html.escape(panel["title"])}</div>')
            continue
        body = _panel_body(
            panel, data.get(str(panel["id"]), []), start=start, end=end, w=w - 12, h=h - 36
        )
        boxes.append(
            f'<div class="panel" style="{box}"><div class="title">'
            f'{html.escape(panel["title"])}</div><div class="body">{body}</div></div>'
        )
    minutes = max(1, round((end - start) / 60))
    variables = "".join(
        f'<span class="var"><b>{name}</b> {value}</span>'
        for name, value in (
            ("Data source", "Prometheus"),
            ("Job", "tqe-monitor"),
            ("Service", "All"),
            ("Target", "All"),
            ("Time", f"last {minutes} min (demo) · {datetime.fromtimestamp(end):%H:%M:%S}"),
        )
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>"
        f'<div class="head"><h1>{html.escape(dashboard["title"])}</h1>{variables}</div>'
        f'<div style="position:relative">{"".join(boxes)}</div></body></html>'
    )


def _panel_body(
    panel: dict[str, Any],
    answers: list[dict[str, Any]],
    *,
    start: float,
    end: float,
    w: float,
    h: float,
) -> str:
    series = [(a["ref"], s) for a in answers for s in a["result"]]
    if not series:
        no_value = panel["fieldConfig"]["defaults"].get("noValue", "No data")
        if panel["type"] == "stat" and no_value != "No data":
            return _tiles(panel, [(no_value, "", "#73BF69")], w, h)
        return f'<div class="nodata">{html.escape(no_value)}</div>'
    kind = panel["type"]
    if kind == "stat":
        return _stat(panel, series, w, h)
    if kind == "table":
        return _table(panel, series)
    if kind == "state-timeline":
        return _timeline(panel, series, start=start, end=end, w=w, h=h)
    return _timeseries(panel, series, start=start, end=end, w=w, h=h)


def _last(sample_set: dict[str, Any]) -> float:
    if "value" in sample_set:
        return float(sample_set["value"][1])
    return float(sample_set["values"][-1][1])


def _stat(panel: dict[str, Any], series: list[tuple[str, Any]], w: float, h: float) -> str:
    tiles = []
    show_name = panel["options"]["textMode"] in {"value_and_name", "name"}
    only_name = panel["options"]["textMode"] == "name"
    for ref, found in series:
        value = _last(found)
        name = display_name(panel, ref, found["metric"])
        text, tint = mapped(panel, value)
        text = text or format_value(panel, value)
        tint = tint or fixed_colours(panel).get(ref) or colour(panel, name, value)
        tiles.append(
            (name if only_name else text, name if show_name and not only_name else "", tint)
        )
    return _tiles(panel, tiles, w, h)


def _tiles(panel: dict[str, Any], tiles: list[tuple[str, str, str]], w: float, h: float) -> str:
    count = len(tiles)
    columns = max(1, min(count, round(math.sqrt(count * w / max(h, 1)))))
    rows = math.ceil(count / columns)
    tile_w, tile_h = w / columns, h / rows
    cells = []
    for text, name, tint in tiles:
        # DejaVu Sans Bold is about 0.68 em wide per character
        size = min(tile_h * (0.42 if name else 0.55), tile_w * 0.88 / (max(len(text), 3) * 0.68))
        name_size = max(12, min(tile_h * 0.14, tile_w * 0.9 / (max(len(name), 1) * 0.6)))
        label = f'<div style="font-size:{name_size:.0f}px">{html.escape(name)}</div>'
        cells.append(
            f'<div class="tile" style="background:{tint}">{label if name else ""}'
            f'<div style="font-size:{size:.0f}px;font-weight:600">{html.escape(text)}</div></div>'
        )
    grid = f"grid-template-columns:repeat({columns},1fr);grid-template-rows:repeat({rows},1fr)"
    return f'<div class="tiles" style="{grid}">{"".join(cells)}</div>'


def _table(panel: dict[str, Any], series: list[tuple[str, Any]]) -> str:
    hidden = panel["transformations"][0]["options"]["excludeByName"]
    columns = sorted({k for _, s in series for k in s["metric"] if k not in hidden})
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = []
    for _, found in sorted(series, key=lambda item: sorted(item[1]["metric"].items())):
        cells = []
        for column in columns:
            value = found["metric"].get(column, "")
            text, tint = mapped(panel, value, field=column)
            style = f' style="background:{tint};color:#fff"' if tint else ""
            cells.append(f"<td{style}>{html.escape(text or value)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _timeline(
    panel: dict[str, Any],
    series: list[tuple[str, Any]],
    *,
    start: float,
    end: float,
    w: float,
    h: float,
) -> str:
    label_w, band = 230.0, min(46.0, (h - 20) / max(len(series), 1))
    scale = (w - label_w) / max(end - start, 1)

    def x(at: float) -> float:
        return label_w + (at - start) * scale

    shapes = []
    for index, (ref, found) in enumerate(series):
        y = index * band
        name = html.escape(display_name(panel, ref, found["metric"]))
        shapes.append(
            f'<text x="4" y="{y + band * 0.62:.0f}" fill="#ccccdc" font-size="15">{name}</text>'
        )
        runs: list[list[float]] = []
        for at, raw in found["values"]:
            if runs and runs[-1][2] == float(raw) and at - runs[-1][1] <= 5:
                runs[-1][1] = at
            else:
                runs.append([at, at, float(raw)])
        for first, last, value in runs:
            text, tint = mapped(panel, value)
            x0, x1 = label_w + (first - start) * scale, label_w + (last + 1 - start) * scale
            shapes.append(
                f'<rect x="{x0:.1f}" y="{y + 2:.1f}" width="{max(x1 - x0, 1):.1f}" '
                f'height="{band - 4:.1f}" fill="{tint or "#8e8e9e"}" rx="2"/>'
            )
            if x1 - x0 > 9 * len(text):
                shapes.append(
                    f'<text x="{(x0 + x1) / 2:.0f}" y="{y + band * 0.62:.0f}" fill="#fff" '
                    f'font-size="14" text-anchor="middle">{html.escape(text)}</text>'
                )
    ticks = _time_ticks(start, end, x, len(series) * band + 16)
    return f'<svg width="{w:.0f}" height="{h:.0f}">{"".join(shapes)}{ticks}</svg>'


def _timeseries(
    panel: dict[str, Any],
    series: list[tuple[str, Any]],
    *,
    start: float,
    end: float,
    w: float,
    h: float,
) -> str:
    legend_h, axis_w, top = 22.0 * math.ceil(len(series) / 3), 62.0, 10.0
    plot_h = max(h - legend_h - 26 - top, 20)
    bars = panel["fieldConfig"]["defaults"]["custom"].get("drawStyle") == "bars"
    values = [
        [(float(at), float(v)) for at, v in found["values"] if math.isfinite(float(v))]
        for _, found in series
    ]
    if bars:  # stacked: each series sits on the ones before it
        base: dict[float, float] = {}
        stacked = []
        for points in values:
            stacked.append([(at, base.get(at, 0.0), base.get(at, 0.0) + v) for at, v in points])
            for at, v in points:
                base[at] = base.get(at, 0.0) + v
        heights = list(base.values())
    else:
        heights = [v for points in values for _, v in points]
    low, high = min([0.0, *heights]), max([1e-9, *heights]) * 1.1

    def x(at: float) -> float:
        return axis_w + (at - start) / max(end - start, 1) * (w - axis_w)

    def y(v: float) -> float:
        return top + plot_h - (v - low) / (high - low) * plot_h

    dashed = _dashed_refs(panel)
    shapes, legend = [], []
    for index, (ref, found) in enumerate(series):
        name = display_name(panel, ref, found["metric"])
        tint = series_colour(panel, ref, name) or PALETTE[index % len(PALETTE)]
        if bars:
            shapes += [
                f'<rect x="{x(at) - 2:.1f}" y="{y(v1):.1f}" width="4" '
                f'height="{y(v0) - y(v1):.1f}" fill="{tint}"/>'
                for at, v0, v1 in stacked[index]
                if v1 > v0
            ]
        else:
            path = " ".join(f"{x(at):.1f},{y(v):.1f}" for at, v in values[index])
            style = (
                ' stroke-dasharray="8 6" stroke-width="1.5"'
                if ref in dashed
                else (' stroke-width="2.5"')
            )
            shapes.append(f'<polyline points="{path}" fill="none" stroke="{tint}"{style}/>')
        legend.append(
            f'<span style="margin-right:14px"><span style="color:{tint}">━</span> '
            f"{html.escape(name)}</span>"
        )
    ticks = "".join(
        f'<text x="{axis_w - 6}" y="{y(v) + 5:.0f}" fill="#8e8e9e" font-size="12" '
        f'text-anchor="end">{html.escape(format_value(panel, v))}</text>'
        f'<line x1="{axis_w}" x2="{w}" y1="{y(v):.0f}" y2="{y(v):.0f}" stroke="#2c3235"/>'
        for v in (low, (low + high) / 2, high)
    ) + _time_ticks(start, end, x, top + plot_h + 16)
    return (
        f'<svg width="{w:.0f}" height="{plot_h + top + 20:.0f}">{ticks}{"".join(shapes)}</svg>'
        f'<div style="font-size:13px;line-height:22px">{"".join(legend)}</div>'
    )


def _time_ticks(start: float, end: float, x: Any, baseline: float) -> str:
    """Clock times under a time axis: start, middle and end."""
    return "".join(
        f'<text x="{x(at):.0f}" y="{baseline:.0f}" fill="#8e8e9e" font-size="12" '
        f'text-anchor="{anchor}">{datetime.fromtimestamp(at):%H:%M:%S}</text>'
        for at, anchor in ((start, "start"), ((start + end) / 2, "middle"), (end, "end"))
    )


def _dashed_refs(panel: dict[str, Any]) -> set[str]:
    return {
        override["matcher"]["options"]
        for override in panel["fieldConfig"]["overrides"]
        if any(p["id"] == "custom.lineStyle" for p in override["properties"])
    }
