"""The demo's story shows up in the metrics: every kind of event, fast-forwarded.

`make demo` runs this scenario at real speed (about two minutes); here the simulator runs it
four times faster so the test stays short, with the daemon configured exactly as the demo.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tqe_monitor.app.daemon import DaemonHandle, run_daemon
from tqe_monitor.app.demo import demo_settings
from tqe_monitor.config import resolve_targets
from tqe_monitor.simulator import Simulator, builtin_scenario

SPEED = 4.0
EXPECTED = {
    "ai_service:degraded",
    "ai_service:operational",
    "platform:maintenance",
    "ai_service:maintenance",
    "overall:maintenance",
    "production:breached:warning",
    "production:breached:critical",
    "staging:key_rejected",
}
STORY_SECONDS = 120 / SPEED + 20  # the whole timeline, plus slack for a slow machine


def seen_now(text: str) -> set[str]:
    """Which demo events the metrics show at this moment."""
    events: set[str] = set()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels, value = sample.labels, sample.value
            if sample.name == "tqe_service_state" and value == 1:
                events.add(f"{labels['component']}:{labels['tqe_service_state']}")
            elif sample.name == "tqe_wallet_threshold_breached" and value == 1:
                events.add(f"{labels['target']}:breached:{labels['severity']}")
            elif sample.name == "tqe_api_key_rejected" and value == 1:
                events.add(f"{labels['target']}:key_rejected")
            elif sample.name == "tqe_wallet_remaining_words" and labels["target"] == "production":
                events.add(f"production:words:{int(value)}")
    return events


@pytest.mark.slow
async def test_every_demo_event_appears_in_the_metrics(tmp_path: Path) -> None:
    scenario = dataclasses.replace(builtin_scenario("demo"), speed=SPEED)
    simulator = Simulator(scenario)
    await simulator.start()
    settings = demo_settings(simulator.base_url, "127.0.0.1:0", tmp_path / "demo.db")
    stop = asyncio.Event()
    started: asyncio.Future[DaemonHandle] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        run_daemon(settings, resolve_targets(settings), stop, on_started=started.set_result)
    )
    seen: set[str] = set()
    balances: list[int] = []
    try:
        handle = await asyncio.wait_for(started, 10)
        deadline = time.monotonic() + STORY_SECONDS
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{handle.server.port}") as http:
            while time.monotonic() < deadline:
                for event in seen_now((await http.get("/metrics")).text):
                    if event.startswith("production:words:"):
                        balances.append(int(event.rsplit(":", 1)[1]))
                    else:
                        seen.add(event)
                rises = any(b > a for a, b in itertools.pairwise(balances))
                if seen >= EXPECTED and rises:
                    break  # the whole story has been seen
                await asyncio.sleep(0.5)
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
        await simulator.stop()

    assert sorted(EXPECTED - seen) == []
    drops = [b for a, b in itertools.pairwise(balances) if b < a]
    top_ups = [b for a, b in itertools.pairwise(balances) if b > a]
    assert drops, "the production wallet never drained"
    assert top_ups, "the production wallet was never topped up"
