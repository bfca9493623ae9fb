"""The daemon's run path never loads the simulator, so production cannot serve its control API."""

from __future__ import annotations

import asyncio
import sys

import pytest

SIMULATOR = "tqe_monitor.simulator"


@pytest.mark.parametrize(
    "module",
    ["tqe_monitor.app.daemon", "tqe_monitor.app", "tqe_monitor.cli"],
)
async def test_importing_the_run_path_does_not_load_the_simulator(module: str) -> None:
    # A fresh interpreter: in this one, other tests have long imported the simulator.
    check = (
        f"import sys, {module}\n"
        f"assert {module!r} in sys.modules\n"
        f"loaded = sorted(m for m in sys.modules if m.startswith({SIMULATOR!r}))\n"
        "assert not loaded, loaded\n"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        check,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)

    assert process.returncode == 0, stderr.decode()
