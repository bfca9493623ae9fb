"""A simulator on 127.0.0.1 (any free port) with a hand-driven clock, and clients for it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import httpx
import pytest

from tqe_monitor.simulator import Scenario, Simulator, parse_scenario

# Wall-clock time of the simulator's start, so payload timestamps are predictable.
START = datetime(2026, 11, 21, 4, 35, 0, tzinfo=UTC)

KEYS = {
    "good-key": {"balance": 100},
    "poor-key": {"balance": 3},
    "revoked-key": {"balance": 100, "revoked": True},
    "unscoped-key": {"balance": 100, "scope": False},
}


class FakeClock:
    """A monotonic clock that only moves when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def advance_clock(clock: FakeClock) -> Callable[[float], None]:
    """Move the simulator's clock forward by some seconds (no sleeping)."""
    return clock.advance


@pytest.fixture
def scenario() -> Scenario:
    """Override in a test module (or parametrize indirectly) for another starting world."""
    return parse_scenario({"keys": KEYS})


@pytest.fixture
async def sim(scenario: Scenario, clock: FakeClock) -> AsyncIterator[Simulator]:
    simulator = Simulator(scenario, clock=clock, wall_clock=START.timestamp)
    await simulator.start()
    try:
        yield simulator
    finally:
        await simulator.stop()


@pytest.fixture
async def service(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    """A client for the /v2 endpoints, sending the good key unless a test says otherwise."""
    headers = {"X-Api-Key": "good-key"}
    async with httpx.AsyncClient(base_url=sim.base_url, headers=headers, timeout=5) as client:
        yield client


@pytest.fixture
async def control(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=sim.control_url, timeout=5) as client:
        yield client
