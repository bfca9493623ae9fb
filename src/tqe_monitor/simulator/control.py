"""The control API under /_sim/: lets tests and the demo change the simulated world at run time.

JSON in, JSON out. Each route reads its body with the same parsers as the scenario timeline and
applies the resulting action; a bad body gets 400 with a message naming the field.

    GET    /_sim/state              everything: states, keys and balances, faults, shape, counters
    POST   /_sim/status             {"platform": "degraded", "ai_service": "operational"}
    POST   /_sim/maintenance        {"duration": 20, "components": ["platform"]}
    POST   /_sim/keys               {"key": "k", "balance": 100, "scope": true, "revoked": false}
    POST   /_sim/keys/top_up        {"key": "k", "words": 500}
    POST   /_sim/keys/revoke        {"key": "k"}
    POST   /_sim/keys/drain         {"key": "k", "words_per_second": 50}
    POST   /_sim/faults             {"endpoint": "status", "kind": "server_error", "count": 2}
    DELETE /_sim/faults
    POST   /_sim/shape              {"shape": "envelope_camel"}

There is no authentication: the simulator is a test double and should listen on loopback.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

from tqe_monitor.simulator.actions import (
    Action,
    ClearFaults,
    parse_add_fault,
    parse_drain,
    parse_maintenance,
    parse_revoke,
    parse_set_key,
    parse_set_shape,
    parse_set_status,
    parse_top_up,
)
from tqe_monitor.simulator.vocabulary import InvalidInput

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_POST_ROUTES: dict[str, Callable[[object, str], Action]] = {
    "/_sim/status": parse_set_status,
    "/_sim/maintenance": parse_maintenance,
    "/_sim/keys": parse_set_key,
    "/_sim/keys/top_up": parse_top_up,
    "/_sim/keys/revoke": parse_revoke,
    "/_sim/keys/drain": parse_drain,
    "/_sim/faults": parse_add_fault,
    "/_sim/shape": parse_set_shape,
}


class ControlMethods:
    """The control API as Python methods, for tests, the demo and the benchmark.

    Values are given as in the JSON API (strings for states, kinds and shapes) and validated by
    the same parsers, so a mistake raises InvalidInput naming the argument.
    """

    def apply(self, action: Action) -> None:
        raise NotImplementedError

    def set_status(self, *, platform: str | None = None, ai_service: str | None = None) -> None:
        given = {"platform": platform, "ai_service": ai_service}
        self.apply(parse_set_status({k: v for k, v in given.items() if v is not None}, ""))

    def maintenance(self, duration: float, components: Sequence[str] | None = None) -> None:
        given: dict[str, object] = {"duration": duration}
        if components is not None:
            given["components"] = list(components)
        self.apply(parse_maintenance(given, ""))

    def set_key(
        self,
        key: str,
        *,
        balance: int | None = None,
        scope: bool | None = None,
        revoked: bool | None = None,
    ) -> None:
        given = {"key": key, "balance": balance, "scope": scope, "revoked": revoked}
        self.apply(parse_set_key({k: v for k, v in given.items() if v is not None}, ""))

    def top_up(self, key: str, words: int) -> None:
        self.apply(parse_top_up({"key": key, "words": words}, ""))

    def revoke(self, key: str) -> None:
        self.apply(parse_revoke({"key": key}, ""))

    def drain(self, key: str, words_per_second: float) -> None:
        self.apply(parse_drain({"key": key, "words_per_second": words_per_second}, ""))

    def add_fault(self, endpoint: str, kind: str, **options: object) -> None:
        """`options`: count, duration, delay, status_code, retry_after (as in POST /_sim/faults)."""
        self.apply(parse_add_fault({"endpoint": endpoint, "kind": kind, **options}, ""))

    def clear_faults(self) -> None:
        self.apply(ClearFaults())

    def set_shape(self, shape: str) -> None:
        self.apply(parse_set_shape({"shape": shape}, ""))


def control_routes(
    apply: Callable[[Action], None], snapshot: Callable[[], dict[str, object]]
) -> list[web.RouteDef]:
    """The /_sim/ routes, acting on the world through `apply` and reading it with `snapshot`."""

    async def state(_: web.Request) -> web.StreamResponse:
        return web.json_response(snapshot())

    async def clear_faults(_: web.Request) -> web.StreamResponse:
        apply(ClearFaults())
        return web.json_response({"ok": True})

    def post(parse: Callable[[object, str], Action]) -> Handler:
        async def handler(request: web.Request) -> web.StreamResponse:
            try:
                body = json.loads(await request.read() or b"null")
            except (ValueError, UnicodeDecodeError):
                return _bad_request("the body is not valid JSON")
            try:
                apply(parse(body, ""))
            except InvalidInput as error:
                return _bad_request(str(error))
            return web.json_response({"ok": True})

        return handler

    routes = [web.get("/_sim/state", state), web.delete("/_sim/faults", clear_faults)]
    routes += [web.post(path, post(parse)) for path, parse in _POST_ROUTES.items()]
    return routes


def _bad_request(message: str) -> web.Response:
    return web.json_response({"ok": False, "error": message}, status=400)
