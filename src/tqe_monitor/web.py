"""The daemon's HTTP endpoints: /metrics for Prometheus, probes, the state API, a landing page.

/metrics speaks the Prometheus text format, or OpenMetrics when the scraper asks for it in
`Accept`. Rendering a large registry takes real CPU time, so it runs in a worker thread and
never stalls the event loop that runs the polls (and the per-target families, most of the body,
take the fast path of `exposition`). /healthz and /readyz stay open for probes;
everything else honours basic auth when the web config sets users.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry

from tqe_monitor.exposition import render_metrics
from tqe_monitor.webconfig import BasicAuth, WebConfig

_OPEN_PATHS = frozenset({"/healthz", "/readyz"})
_LANDING = """<!doctype html>
<html><head><meta charset="utf-8"><title>tqe-monitor</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>tqe-monitor {version}</h1>
<p>Watches a Translation Quality Evaluation service.</p>
<ul>
<li><a href="metrics">/metrics</a> &mdash; Prometheus metrics</li>
<li><a href="api/state">/api/state</a> &mdash; live state as JSON</li>
<li><a href="healthz">/healthz</a> &mdash; liveness</li>
<li><a href="readyz">/readyz</a> &mdash; readiness (every target polled once)</li>
</ul></body></html>
"""


@dataclass(frozen=True)
class Probes:
    """What the endpoints report, supplied by the app: liveness, readiness and state."""

    healthy: Callable[[], bool]
    ready: Callable[[], tuple[bool, str]]
    state: Callable[[], dict[str, Any]]


class StatusServer:
    """An aiohttp server for the endpoints; `port=0` binds a free port (see `.port`)."""

    def __init__(
        self, registry: CollectorRegistry, probes: Probes, web_config: WebConfig, version: str
    ) -> None:
        self._registry = registry
        self._probes = probes
        self._web_config = web_config
        self._auth = BasicAuth(web_config.basic_auth_users)
        self._version = version
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    def build_app(self) -> web.Application:
        """The aiohttp application (separate from `start` so tests can use aiohttp's client)."""
        app = web.Application(middlewares=[self._auth_middleware])
        app.router.add_get("/", self._landing)
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/api/state", self._state)
        return app

    async def start(self, host: str, port: int) -> None:
        """Listen on host:port."""
        runner = web.AppRunner(self.build_app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(
            runner, host.strip("[]"), port, ssl_context=self._web_config.ssl_context()
        )
        await site.start()
        self._runner = runner
        server = site._server  # aiohttp exposes the bound sockets only here
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        """Close the listener and open connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _auth_middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path in _OPEN_PATHS or not self._auth.enabled:
            return await handler(request)
        header = request.headers.get("Authorization")
        if not await asyncio.to_thread(self._auth.check, header):
            return web.Response(
                status=401,
                text="Unauthorized\n",
                headers={"WWW-Authenticate": 'Basic realm="tqe-monitor"'},
            )
        return await handler(request)

    async def _landing(self, _: web.Request) -> web.Response:
        return web.Response(text=_LANDING.format(version=self._version), content_type="text/html")

    async def _metrics(self, request: web.Request) -> web.Response:
        accept = request.headers.get("Accept", "")
        body, content_type = await asyncio.to_thread(render_metrics, self._registry, accept)
        return web.Response(body=body, headers={"Content-Type": content_type})

    async def _healthz(self, _: web.Request) -> web.Response:
        healthy = self._probes.healthy()
        return web.Response(status=200 if healthy else 503, text="ok\n" if healthy else "stopped\n")

    async def _readyz(self, _: web.Request) -> web.Response:
        ready, detail = self._probes.ready()
        return web.Response(status=200 if ready else 503, text=f"{detail}\n")

    async def _state(self, _: web.Request) -> web.Response:
        return web.Response(
            text=json.dumps(self._probes.state(), indent=2, default=str),
            content_type="application/json",
        )
