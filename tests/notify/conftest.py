"""Notification test fixtures: loopback receivers (a JSON webhook and an SMTP server), the
simulator, and the daemon run in-process, so real Apprise deliveries can be observed.

Everything listens on 127.0.0.1 in the test's event loop. Apprise sends from worker threads, so
a receiver on the loop answers it while the daemon (also on the loop) waits. Waiting is done by
polling with generous timeouts; how long delivery takes is never asserted.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Protocol

import httpx
import pytest
import structlog
from aiohttp import web
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tqe_monitor.app.daemon import DaemonHandle
from tqe_monitor.config import Settings
from tqe_monitor.simulator import Simulator, parse_scenario

REF = re.compile(r"ref: (\S+)\s*$")
SMTP_USER, SMTP_PASSWORD = "alerts", "SECRETPASS-9f2c7e"


@dataclass(frozen=True)
class Message:
    """One notification as a receiver got it."""

    title: str
    body: str
    notify_type: str = ""

    @property
    def ref(self) -> str:
        found = REF.search(self.body)
        assert found, f"no ref at the end of {self.body!r}"
        return found.group(1)

    @property
    def lines(self) -> list[str]:
        """The condition lines (the body up to the dashboard link / ref)."""
        return self.body.split("\n\n")[0].splitlines()

    @property
    def kind(self) -> str:
        """raised | reminder | resolved | mixed, from the condition lines."""
        kinds = set()
        for line in self.lines:
            if line.startswith("RAISED"):
                kinds.add("raised")
            elif line.startswith("STILL ACTIVE"):
                kinds.add("reminder")
            elif line.startswith("RESOLVED"):
                kinds.add("resolved")
        return kinds.pop() if len(kinds) == 1 else "mixed"


@dataclass(frozen=True)
class WebhookRequest:
    path: str
    status: int
    payload: dict[str, Any]
    raw: str


@dataclass
class JsonReceiver:
    """A JSON webhook (what Apprise's json:// posts to). `answer(path)` picks the status."""

    answer: Callable[[str], int] = lambda _path: 200
    requests: list[WebhookRequest] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "hook") -> str:
        return f"json://127.0.0.1:{self.port}/{path}"

    def accepted(self, path: str | None = None) -> list[Message]:
        return [
            Message(r.payload["title"], r.payload["message"], r.payload.get("type", ""))
            for r in self.requests
            if r.status < 300 and (path is None or r.path == f"/{path}")
        ]

    def statuses(self, path: str | None = None) -> list[int]:
        return [r.status for r in self.requests if path is None or r.path == f"/{path}"]

    async def handle(self, request: web.Request) -> web.Response:
        raw = await request.text()
        status = self.answer(request.path)
        self.requests.append(WebhookRequest(request.path, status, await request.json(), raw))
        return web.json_response({"ok": status < 300}, status=status)


@dataclass
class SmtpReceiver:
    """An SMTP server that requires AUTH (over plain TCP: it is loopback) and keeps each mail."""

    messages: list[Message] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    port: int = 0

    def url(self, password: str = SMTP_PASSWORD) -> str:
        # mailto:// (not mailtos://) is plain SMTP without TLS, as a local relay speaks it.
        return (
            f"mailto://{SMTP_USER}:{password}@127.0.0.1:{self.port}"
            "?from=tqe@example.com&to=ops@example.com"
        )

    def authenticate(
        self, _server: SMTP, _session: Session, _envelope: Envelope, _mechanism: str, data: Any
    ) -> AuthResult:
        ok = (
            isinstance(data, LoginPassword)
            and data.login == SMTP_USER.encode()
            and data.password == SMTP_PASSWORD.encode()
        )
        self.logins.append("ok" if ok else "refused")
        return AuthResult(success=ok)

    async def handle_DATA(self, _server: SMTP, _session: Session, envelope: Envelope) -> str:
        content = envelope.content
        text = content.decode() if isinstance(content, bytes) else str(content)
        self.raw.append(text)
        parsed = email.message_from_string(text, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        plain = parsed.get_body(preferencelist=("plain",))
        assert plain is not None
        body = plain.get_content()
        self.messages.append(Message(str(parsed["subject"]), body.replace("\r\n", "\n").rstrip()))
        return "250 OK"


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Commands run in-process configure structlog and the root logger for the whole process
    (to the streams of that moment); put both back so no test writes to a closed capture."""
    config = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    structlog.reset_defaults()
    yield
    structlog.configure(**config)
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
async def json_receiver() -> AsyncIterator[JsonReceiver]:
    receiver = JsonReceiver()
    app = web.Application()
    app.router.add_post("/{path:.*}", receiver.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    receiver.port = runner.addresses[0][1]
    try:
        yield receiver
    finally:
        await runner.cleanup()


@pytest.fixture
async def smtp_receiver() -> AsyncIterator[SmtpReceiver]:
    receiver = SmtpReceiver()
    server = await asyncio.get_running_loop().create_server(
        lambda: SMTP(
            receiver,
            hostname="127.0.0.1",
            authenticator=receiver.authenticate,
            auth_require_tls=False,
        ),
        "127.0.0.1",
        0,
    )
    receiver.port = server.sockets[0].getsockname()[1]
    try:
        yield receiver
    finally:
        server.close()
        await server.wait_closed()


class StartSimulator(Protocol):
    async def __call__(self, keys: dict[str, int]) -> Simulator: ...


@pytest.fixture
async def start_simulator() -> AsyncIterator[StartSimulator]:
    """Start the fake TQE service with these API keys (key -> balance), everything operational."""
    running: list[Simulator] = []

    async def start(keys: dict[str, int]) -> Simulator:
        scenario = parse_scenario({"keys": {key: {"balance": n} for key, n in keys.items()}})
        simulator = Simulator(scenario)
        await simulator.start("127.0.0.1", 0)
        running.append(simulator)
        return simulator

    try:
        yield start
    finally:
        for simulator in running:
            await simulator.stop()


@dataclass
class RunningDaemon:
    handle: DaemonHandle
    http: httpx.AsyncClient

    async def metrics_text(self) -> str:
        response = await self.http.get("/metrics")
        response.raise_for_status()
        return response.text

    async def ready(self) -> bool:
        return (await self.http.get("/readyz")).status_code == 200


class StartDaemon(Protocol):
    async def __call__(self, settings: Settings) -> RunningDaemon: ...


@pytest.fixture
def start_daemon(daemon_task: Any) -> StartDaemon:
    """Run a daemon with these settings (see `daemon_task`); every one stops at teardown."""

    async def start(settings: Settings) -> RunningDaemon:
        handle, http = await daemon_task(settings)
        return RunningDaemon(handle, http)

    return start
