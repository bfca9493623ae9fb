"""Fixtures shared by the whole suite."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any

import pytest


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
