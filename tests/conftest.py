"""Fixtures shared by the whole suite."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import httpx
import pytest

if TYPE_CHECKING:
    from tqe_monitor.app.daemon import DaemonHandle
    from tqe_monitor.config import Settings


@pytest.fixture(autouse=True)
def _clean_tqe_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees TQE_MONITOR_* variables from the developer's shell or another test."""
    for name in list(os.environ):
        if name.startswith("TQE_"):
            monkeypatch.delenv(name)


WAIT_SECONDS = 20.0


async def _wait_until(
    predicate: Callable[[], Any], within: float = WAIT_SECONDS, what: str | None = None
) -> Any:
    """Call `predicate` (sync or async) until it returns something truthy; return that.

    Fails the test after `within` seconds, showing the last value the predicate returned.
    Waiting is not a timing assertion: the limit only stops a test that would hang.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        last = predicate()
        if inspect.isawaitable(last):
            last = await last
        if last:
            return last
        if loop.time() >= deadline:
            described = what or getattr(predicate, "__name__", "condition")
            raise AssertionError(f"{described}: still false after {within:g}s (last: {last!r})")
        await asyncio.sleep(0.1)


@pytest.fixture
def wait_until() -> Callable[..., Awaitable[Any]]:
    """`await wait_until(predicate, within=20, what="...")`."""
    return _wait_until


STOP_SECONDS = 20.0
DaemonStarter = Callable[["Settings"], Awaitable[tuple["DaemonHandle", httpx.AsyncClient]]]


@pytest.fixture
async def daemon_task() -> AsyncIterator[DaemonStarter]:
    """`await daemon_task(settings)` runs `run_daemon` as a task of the test's loop on a free
    loopback port and returns its handle and an HTTP client pointed at it. Every daemon is
    stopped at teardown, and a clean stop is part of what is tested: a hang fails teardown."""
    from tqe_monitor.app.daemon import run_daemon
    from tqe_monitor.config import resolve_targets

    running: list[tuple[asyncio.Event, asyncio.Task[None], httpx.AsyncClient]] = []

    async def start(settings: Settings) -> tuple[DaemonHandle, httpx.AsyncClient]:
        stop = asyncio.Event()
        started: asyncio.Future[DaemonHandle] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(
            run_daemon(
                settings,
                resolve_targets(settings),
                stop,
                listen="127.0.0.1:0",
                on_started=started.set_result,
            )
        )
        either: set[asyncio.Future[Any]] = {task, started}
        await asyncio.wait(either, timeout=WAIT_SECONDS, return_when="FIRST_COMPLETED")
        if not started.done():
            stop.set()
            if task.done():
                task.result()  # re-raises why the daemon could not start
            task.cancel()
            raise AssertionError(f"the daemon did not start within {WAIT_SECONDS:g}s")
        handle = started.result()
        http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{handle.server.port}", timeout=5)
        running.append((stop, task, http))
        return handle, http

    try:
        yield start
    finally:
        for stop, task, http in running:
            await http.aclose()
            stop.set()
            await asyncio.wait_for(task, STOP_SECONDS)
