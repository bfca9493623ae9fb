"""A real simulator on 127.0.0.1 (any free port) for the integration tests, and its API keys.

The keys look like real ones and are unusual enough that finding one in an output can only mean
a leak. Balances start at 0 and both components operational: each test sets the values it
asserts on, so the expectation is visible in the test itself.

The simulator's scenario clock is frozen at 0, so every timestamp it serves is `START` (faults'
`timeout`/`slow` delays are wall seconds and do not depend on it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from tqe_monitor.simulator import Simulator, parse_scenario

# Wall-clock time of the simulator's start: payload timestamps are predictable.
START = datetime(2026, 11, 21, 4, 35, 0, tzinfo=UTC)

API_KEYS = {
    "good": "tqe-it-GOOD-3f9c2a7b1e5d4c6f",
    "other": "tqe-it-OTHER-8b2d6e0a4c9f1a3e",
    "revoked": "tqe-it-REVOKED-1c7e5a9d3b2f8e4a",
    "unscoped": "tqe-it-UNSCOPED-6a4f2c8e0d1b9c7a",
}
UNKNOWN_KEY = "tqe-it-UNKNOWN-9e3b7d1f5a2c6e8b"


@pytest.fixture
def api_keys() -> dict[str, str]:
    """Name -> key: good and other (in scope), revoked, unscoped (403 on /wallet); plus
    "unknown", a well-formed key the simulator has never heard of."""
    return {**API_KEYS, "unknown": UNKNOWN_KEY}


@pytest.fixture
def start_time() -> datetime:
    """The simulator's wall-clock start: the wallets' last-update time until a balance changes."""
    return START


@pytest.fixture
async def sim() -> AsyncIterator[Simulator]:
    keys = {
        API_KEYS["good"]: {},
        API_KEYS["other"]: {},
        API_KEYS["revoked"]: {"revoked": True},
        API_KEYS["unscoped"]: {"scope": False},
    }
    simulator = Simulator(
        parse_scenario({"keys": keys}), clock=lambda: 0.0, wall_clock=START.timestamp
    )
    await simulator.start()
    try:
        yield simulator
    finally:
        await simulator.stop()
