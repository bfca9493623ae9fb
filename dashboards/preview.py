"""Renders docs/dashboards-overview.png: the overview's real layout, filled with demo data.

    .venv/bin/python dashboards/preview.py [--at 66] [--out docs/dashboards-overview.png]

Runs the built-in demo story (the simulator and the daemon, as `tqe-monitor demo` does) and a
real Prometheus scraping it every second with the committed rules; at `--at` seconds into the
story it sends every query of dashboards/tqe-overview.json as Grafana would, draws each panel at
its grid position (preview_render.py) and screenshots the page with headless Chromium.

A tool for the documentation, not part of the test suite: it needs Debian's `prometheus` and
`chromium` packages. Grafana itself is not involved, so the picture shows the layout, the
queries' real results, the value mappings and the colours, drawn simply.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml
from preview_render import page_height, render_page

from tqe_monitor.app.daemon import DaemonHandle, run_daemon
from tqe_monitor.app.demo import demo_settings
from tqe_monitor.config import resolve_targets
from tqe_monitor.simulator import Simulator, builtin_scenario

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WIDTH = 1920
VARIABLES = {"service": ".*", "target": ".*", "job": "tqe-monitor", "__interval": "2s"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def substitute(expr: str, elapsed: float) -> str:
    values = VARIABLES | {"__range": f"{int(elapsed)}s", "__rate_interval": "8s"}
    for name in sorted(values, key=len, reverse=True):
        expr = expr.replace(f"${{{name}}}", values[name]).replace(f"${name}", values[name])
    return expr


async def query_panels(
    http: httpx.AsyncClient, dashboard: dict[str, Any], start: float, end: float
) -> dict[str, Any]:
    """Panel id -> [{ref, instant, result}] for every panel, as Grafana would query them."""
    data: dict[str, Any] = {}
    for panel in dashboard["panels"]:
        answers = []
        for target in panel.get("targets", []):
            expr = substitute(target["expr"], end - start)
            if target["instant"]:
                params: dict[str, Any] = {"query": expr, "time": end}
                response = await http.get("/api/v1/query", params=params)
            else:
                params = {"query": expr, "start": start, "end": end, "step": 1}
                response = await http.get("/api/v1/query_range", params=params)
            body = response.json()
            if body["status"] != "success":
                raise RuntimeError(f"{panel['title']}: {body}")
            answers.append({"ref": target["refId"], "result": body["data"]["result"]})
        data[str(panel["id"])] = answers
    return data


async def collect(at: float, scratch: Path) -> tuple[dict[str, Any], float, float]:
    """Play the demo for `at` seconds with Prometheus watching; return the panels' data."""
    dashboard = json.loads((HERE / "tqe-overview.json").read_text())
    simulator = Simulator(builtin_scenario("demo"))
    await simulator.start("127.0.0.1", 0)
    start = time.time()
    stop = asyncio.Event()
    started: asyncio.Future[DaemonHandle] = asyncio.get_running_loop().create_future()
    settings = demo_settings(simulator.base_url, "127.0.0.1:0", scratch / "demo.db")
    daemon = asyncio.create_task(
        run_daemon(settings, resolve_targets(settings), stop, on_started=started.set_result)
    )
    handle = await asyncio.wait_for(started, 30)
    config = yaml.safe_load((REPO / "config/prometheus/prometheus.yml").read_text())
    config["global"] |= {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["rule_files"] = [str(REPO / "config/prometheus/alerts.yml")]
    config["scrape_configs"][0]["static_configs"] = [
        {"targets": [f"127.0.0.1:{handle.server.port}"]}
    ]
    (scratch / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    prometheus = await asyncio.create_subprocess_exec(
        "prometheus",
        f"--config.file={scratch / 'prometheus.yml'}",
        f"--storage.tsdb.path={scratch / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{port}",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            await asyncio.sleep(max(0.0, start + at - time.time()))
            end = time.time()
            data = await query_panels(http, dashboard, start, end)
    finally:
        prometheus.send_signal(signal.SIGTERM)
        await prometheus.wait()
        stop.set()
        await daemon
        await simulator.stop()
    return data, start, end


def screenshot(html: Path, png: Path, height: int) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs chromium: apt-get install chromium")
    subprocess.run(  # noqa: S603 (a fixed program and our own arguments)
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={WIDTH},{height}",
            f"--screenshot={png}",
            html.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", type=float, default=66.0, help="seconds into the demo story")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "dashboards-overview.png")
    parser.add_argument("--keep-html", type=Path, help="also write the page here")
    args = parser.parse_args(argv)
    dashboard = json.loads((HERE / "tqe-overview.json").read_text())
    with tempfile.TemporaryDirectory(prefix="tqe-preview-") as directory:
        scratch = Path(directory)
        data, start, end = asyncio.run(collect(args.at, scratch))
        page = scratch / "overview.html"
        page.write_text(render_page(dashboard, data, start, end, WIDTH))
        if args.keep_html:
            args.keep_html.write_text(page.read_text())
        screenshot(page, args.out, page_height(dashboard))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
