"""The simulator's HTTP server: the service's /v2 endpoints plus the /_sim/ control API.

Request handling, in order (faults come first, as they would from a broken proxy or backend):
1. an active fault for the endpoint answers instead (or, for `slow`, delays the normal answer):
   server_error: 5xx JSON error; slow: wait `delay` s, then answer normally; timeout: wait
   `delay` s (300 by default) without answering; malformed: 200 with truncated JSON; not_json:
   200 with an HTML page; rate_limited: 429 with Retry-After; unknown_shape: 200 with valid JSON
   of an unrecognisable shape;
2. X-Api-Key: missing, unknown or revoked -> 401; a key without scope -> 403 on /wallet and
   /check (any valid key may read /status); JSON error bodies;
3. the endpoint itself (/check: 400 bad body, 402 balance too low, else 200 and charged).

Delays are in wall seconds and end early when the server stops, so `stop()` never waits for a
`timeout` fault. The access log is off, and handlers do constant work per request (the world is
computed lazily), so one core serves hundreds of requests per second.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from aiohttp import web

from tqe_monitor.simulator.actions import Action, FaultSpec
from tqe_monitor.simulator.checker import evaluate, parse_segment
from tqe_monitor.simulator.control import ControlMethods, control_routes
from tqe_monitor.simulator.scenario import Scenario
from tqe_monitor.simulator.shapes import (
    UNKNOWN_SHAPE_BODY,
    render_error,
    render_status,
    render_wallet,
)
from tqe_monitor.simulator.state import Access, World
from tqe_monitor.simulator.vocabulary import Endpoint, FaultKind, InvalidInput

_TRUNCATED_JSON = '{"platform": {"status": "Fully Oper'
_HTML_PAGE = "<!DOCTYPE html><html><body><h1>Service temporarily unavailable</h1></body></html>"
_ACCESS_ERRORS: dict[Access, tuple[int, str]] = {
    Access.MISSING: (401, "the X-Api-Key header is missing"),
    Access.INVALID: (401, "the API key is invalid"),
    Access.REVOKED: (401, "the API key has been revoked"),
    Access.NO_SCOPE: (403, "the API key lacks the required access scope"),
}
# Backstop for aiohttp's graceful shutdown; hung handlers are woken well before it matters.
_SHUTDOWN_GRACE = 2.0

Answer = Callable[[web.Request, str], Awaitable[web.Response]]


class Simulator(ControlMethods):
    """A running fake of the service. Scenario time starts at `start()`, scaled by `speed`."""

    def __init__(
        self,
        scenario: Scenario,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.scenario = scenario
        self.world = World(scenario)
        self._clock, self._wall_clock = clock, wall_clock
        self._started, self._wall_started = clock(), wall_clock()
        self._requests: Counter[tuple[str, int]] = Counter()
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._base = ""

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on host:port (0: any free port) and start the scenario's clock."""
        app = web.Application()
        app.add_routes(
            [
                web.get("/v2/status", self._status),
                web.get("/v2/wallet", self._wallet),
                web.post("/v2/check", self._check),
                *control_routes(self.apply, self.snapshot),
            ]
        )
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=_SHUTDOWN_GRACE)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        bound_port = runner.addresses[0][1]
        shown_host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # noqa: S104
        if ":" in shown_host:
            shown_host = f"[{shown_host}]"
        self._base = f"http://{shown_host}:{bound_port}"
        self._stopping.clear()
        self._started, self._wall_started = self._clock(), self._wall_clock()

    async def stop(self) -> None:
        """Stop serving; requests held by slow/timeout faults are released first (a `timeout`
        fault's request gets a 504), so this never waits for them."""
        self._stopping.set()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    @property
    def base_url(self) -> str:
        """The service's base URL, e.g. http://127.0.0.1:PORT/v2."""
        return f"{self._origin()}/v2"

    @property
    def control_url(self) -> str:
        """The control API's base URL, e.g. http://127.0.0.1:PORT/_sim."""
        return f"{self._origin()}/_sim"

    def _origin(self) -> str:
        if not self._base:
            raise RuntimeError("the simulator has not been started")
        return self._base

    # -- time and the world ---------------------------------------------------------------------

    def now(self) -> float:
        """Scenario seconds since start (wall seconds x speed)."""
        return (self._clock() - self._started) * self.scenario.speed

    def wall_time(self, scenario_seconds: float) -> datetime:
        """The wall-clock moment of a scenario time (for timestamps in payloads)."""
        wall = self._wall_started + scenario_seconds / self.scenario.speed
        return datetime.fromtimestamp(wall, UTC)

    def apply(self, action: Action) -> None:
        """Change the world now (raises InvalidInput, e.g. for an unknown key)."""
        self.world.apply(action, now=self.now())

    def snapshot(self) -> dict[str, object]:
        """The world as GET /_sim/state shows it, with request counters per endpoint."""
        state = self.world.snapshot(now=self.now())
        requests: dict[str, dict[str, object]] = {}
        for endpoint in (Endpoint.STATUS, Endpoint.WALLET, Endpoint.CHECK):
            by_code = {
                str(code): count
                for (name, code), count in sorted(self._requests.items())
                if name == endpoint.value
            }
            requests[endpoint.value] = {"total": sum(by_code.values()), "by_code": by_code}
        state["requests"] = requests
        return state

    def request_count(self, endpoint: Endpoint, status_code: int | None = None) -> int:
        """Requests served by an endpoint so far (all, or those answered with `status_code`)."""
        return sum(
            count
            for (name, code), count in self._requests.items()
            if name == endpoint.value and status_code in (None, code)
        )

    # -- service endpoints ----------------------------------------------------------------------

    async def _status(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(Endpoint.STATUS, request, self._answer_status)

    async def _wallet(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(Endpoint.WALLET, request, self._answer_wallet)

    async def _check(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(Endpoint.CHECK, request, self._answer_check)

    async def _serve(
        self, endpoint: Endpoint, request: web.Request, answer: Answer
    ) -> web.Response:
        response = await self._respond(endpoint, request, answer)
        self._requests[(endpoint.value, response.status)] += 1
        return response

    async def _respond(
        self, endpoint: Endpoint, request: web.Request, answer: Answer
    ) -> web.Response:
        fault = self.world.take_fault(endpoint, now=self.now())
        if fault is not None:
            faulted = await self._fault_response(fault)
            if faulted is not None:
                return faulted
        key = request.headers.get("X-Api-Key")
        needs_scope = endpoint is not Endpoint.STATUS
        access = self.world.authorize(key, now=self.now(), needs_scope=needs_scope)
        if key is None or access is not Access.GRANTED:
            status, message = _ACCESS_ERRORS.get(access, _ACCESS_ERRORS[Access.INVALID])
            return web.json_response(render_error(access.value, message), status=status)
        return await answer(request, key)

    async def _answer_status(self, _: web.Request, __: str) -> web.Response:
        now = self.now()
        status = self.world.status(now=now)
        updated = self.wall_time(self.world.status_updated_at(now=now))
        return web.json_response(render_status(self.world.shape(now=now), status, updated))

    async def _answer_wallet(self, _: web.Request, key: str) -> web.Response:
        now = self.now()
        remaining, updated_at = self.world.wallet(key, now=now)
        payload = render_wallet(self.world.shape(now=now), remaining, self.wall_time(updated_at))
        return web.json_response(payload)

    async def _answer_check(self, request: web.Request, key: str) -> web.Response:
        try:
            segment = parse_segment(json.loads(await request.read()))
        except (ValueError, UnicodeDecodeError) as error:
            message = str(error) if isinstance(error, InvalidInput) else "the body is not JSON"
            return web.json_response(render_error("invalid_request", message), status=400)
        if not self.world.charge(key, segment.word_count, now=self.now()):
            message = f"the word balance is too low for this check ({segment.word_count} words)"
            return web.json_response(render_error("insufficient_balance", message), status=402)
        return web.json_response(evaluate(segment))

    # -- faults ---------------------------------------------------------------------------------

    async def _fault_response(self, fault: FaultSpec) -> web.Response | None:
        """The response a fault sends instead of the normal one (None: answer normally)."""
        match fault.kind:
            case FaultKind.SERVER_ERROR:
                body = render_error("server_error", "simulated server error")
                return web.json_response(body, status=fault.status_code)
            case FaultKind.SLOW:
                await self._pause(fault.delay)
                return None
            case FaultKind.TIMEOUT:
                await self._pause(fault.delay)
                body = render_error("gateway_timeout", "simulated upstream timeout")
                return web.json_response(body, status=504)
            case FaultKind.MALFORMED:
                return web.Response(text=_TRUNCATED_JSON, content_type="application/json")
            case FaultKind.NOT_JSON:
                return web.Response(text=_HTML_PAGE, content_type="text/html")
            case FaultKind.RATE_LIMITED:
                body = render_error("rate_limited", "too many requests")
                headers = {"Retry-After": str(fault.retry_after)}
                return web.json_response(body, status=429, headers=headers)
            case FaultKind.UNKNOWN_SHAPE:
                return web.json_response(UNKNOWN_SHAPE_BODY)

    async def _pause(self, seconds: float) -> None:
        """Sleep `seconds` of wall time, or less if the server is stopping."""
        try:
            async with asyncio.timeout(seconds):
                await self._stopping.wait()
        except TimeoutError:
            pass


async def serve(
    scenario: Scenario,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Run a simulator until cancelled; `ready` gets the base URL once it is listening."""
    simulator = Simulator(scenario)
    await simulator.start(host, port)
    try:
        if ready is not None:
            ready(simulator.base_url)
        await asyncio.Event().wait()
    finally:
        await simulator.stop()
