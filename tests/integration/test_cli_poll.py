"""`tqe-monitor poll` end to end: a YAML file with `${VAR}` keys, the real CLI, the real simulator.

The CLI runs `asyncio.run` itself, so it runs in a worker thread while the simulator keeps
serving on the test's event loop. What is checked is what a user sees: the printed readings
(JSON parsed, or the table), the exit code (1 when any key is rejected, 0 when all is well, 2 for
an unknown `--target`), and that no API key appears in stdout or stderr even at debug level.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import structlog

from tqe_monitor.cli import main
from tqe_monitor.logging_setup import QUIET_LIBRARIES
from tqe_monitor.simulator import Shape, Simulator

SERVICE = "127.0.0.1"  # the default service name: the host of base_url
# Target -> (environment variable holding its key, name of the key in `api_keys`).
TARGETS = {
    "legacy": ("TQE_IT_LEGACY_KEY", "revoked"),  # first, so the status poll must fall back
    "production": ("TQE_IT_PRODUCTION_KEY", "good"),
    "staging": ("TQE_IT_STAGING_KEY", "other"),
}
BALANCES = {"production": 1_000_000, "staging": 2_500}
LOG_ARGS = ["--log-format", "json", "--log-level", "debug"]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


CliRunner = Callable[..., Awaitable[Run]]


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`poll` configures logging for the whole process, onto the captured streams; put the
    previous configuration back so later tests do not write to a closed capture."""
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    yield
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, quiet_level in quiet.items():
        logging.getLogger(name).setLevel(quiet_level)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> CliRunner:
    async def run(*argv: str) -> Run:
        capsys.readouterr()  # start from empty streams
        code = await asyncio.to_thread(main, list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def config_file(
    tmp_path: Path, sim: Simulator, api_keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """Three targets on the simulator, keys only in the environment; the world they will see:
    AI service degraded, known balances."""
    lines = ["defaults:", "  timeout: 5s", "targets:"]
    for name, (variable, key_name) in TARGETS.items():
        monkeypatch.setenv(variable, api_keys[key_name])
        lines += [f"  {name}:", f"    base_url: {sim.base_url}", f'    api_key: "${{{variable}}}"']
    path = tmp_path / "tqe-monitor.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sim.set_status(ai_service="degraded")
    for target, balance in BALANCES.items():
        sim.set_key(api_keys[TARGETS[target][1]], balance=balance)
    return str(path)


def by_target(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["target"]: item for item in items}


async def test_poll_json_reports_every_target_and_fails_for_the_rejected_key(
    cli: CliRunner, config_file: str, start_time: datetime
) -> None:
    run = await cli("poll", "--config", config_file, "--json")

    assert run.code == 1
    document = json.loads(run.out)
    assert document["statuses"] == [
        {
            "service": SERVICE,
            "target": "production",
            "platform": "operational",
            "ai_service": "degraded",
            "overall": "degraded",
            "rejected_targets": ["legacy"],
            "error": None,
        }
    ]
    wallets = by_target(document["wallets"])
    assert set(wallets) == set(TARGETS)
    for target, balance in BALANCES.items():
        assert wallets[target]["remaining_words"] == balance
        assert wallets[target]["updated_at"] == start_time.isoformat()
        assert wallets[target]["error"] is None
    assert "remaining_words" not in wallets["legacy"]
    assert wallets["legacy"]["error"]["reason"] == "auth"


async def test_poll_table_shows_readings_and_the_rejected_key(
    cli: CliRunner, config_file: str
) -> None:
    run = await cli("poll", "--config", config_file)

    assert run.code == 1
    rows = {tuple(line.split()[:3]): line for line in run.out.splitlines()[1:]}
    status = rows[(SERVICE, "production", "status")]
    assert "platform=operational ai_service=degraded overall=degraded" in status
    assert "(key rejected: legacy)" in status
    assert "remaining_words=1000000" in rows[(SERVICE, "production", "wallet")]
    assert "remaining_words=2500" in rows[(SERVICE, "staging", "wallet")]
    assert "FAILED auth" in rows[(SERVICE, "legacy", "wallet")]


@pytest.mark.parametrize(
    ("selected", "expected_code", "expected_status_error"),
    [
        pytest.param(["production"], 0, None, id="one-good-target"),
        pytest.param(["production", "staging"], 0, None, id="two-good-targets"),
        pytest.param(["legacy"], 1, "auth", id="only-the-rejected-target"),
        pytest.param(["legacy", "staging"], 1, None, id="rejected-and-good"),
    ],
)
async def test_poll_target_selects_what_is_polled(
    cli: CliRunner,
    config_file: str,
    selected: list[str],
    expected_code: int,
    expected_status_error: str | None,
) -> None:
    flags = [arg for name in selected for arg in ("--target", name)]

    run = await cli("poll", "--config", config_file, "--json", *flags)

    assert run.code == expected_code
    document = json.loads(run.out)
    assert set(by_target(document["wallets"])) == set(selected)
    [status] = document["statuses"]
    assert status["target"] in selected
    error = status["error"]
    assert (error and error["reason"]) == expected_status_error


async def test_poll_an_unknown_target_is_a_usage_error(cli: CliRunner, config_file: str) -> None:
    run = await cli("poll", "--config", config_file, "--target", "nope")

    assert run.code == 2
    assert "no such target: nope" in run.err
    assert run.out == ""


@pytest.mark.parametrize(
    "output", [pytest.param([], id="table"), pytest.param(["--json"], id="json")]
)
async def test_poll_never_prints_an_api_key_even_at_debug_level(
    cli: CliRunner,
    config_file: str,
    sim: Simulator,
    api_keys: dict[str, str],
    output: list[str],
) -> None:
    # A 429 that asks for no wait: one retry, logged at debug, without slowing the test down.
    sim.add_fault("wallet", "rate_limited", retry_after=0, count=1)

    run = await cli("poll", "--config", config_file, *output, *LOG_ARGS)

    assert run.code == 1
    assert "tqe_request_retry" in run.err  # debug logging really was on
    everything = run.out + run.err
    for name in ("good", "other", "revoked"):
        assert api_keys[name] not in everything


async def test_poll_reads_a_custom_shape_through_the_yaml_mapping(
    cli: CliRunner,
    tmp_path: Path,
    sim: Simulator,
    api_keys: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    start_time: datetime,
) -> None:
    """Two services on one simulator: one target maps the custom fields, the other does not."""
    monkeypatch.setenv("TQE_IT_MAPPED_KEY", api_keys["good"])
    monkeypatch.setenv("TQE_IT_UNMAPPED_KEY", api_keys["other"])
    path = tmp_path / "custom.yaml"
    path.write_text(
        f"""
targets:
  mapped:
    base_url: {sim.base_url}
    api_key: "${{TQE_IT_MAPPED_KEY}}"
    service: mapped-service
    mapping:
      status:
        platform: svc.p
        ai_service: svc.m
        states: {{blue: maintenance}}
      wallet:
        remaining_words: acct.w
        updated_at: acct.t
  unmapped:
    base_url: {sim.base_url}
    api_key: "${{TQE_IT_UNMAPPED_KEY}}"
    service: unmapped-service
""",
        encoding="utf-8",
    )
    sim.set_shape(Shape.CUSTOM)
    sim.set_status(platform="maintenance", ai_service="degraded")
    sim.set_key(api_keys["good"], balance=4_321)

    run = await cli("poll", "--config", str(path), "--json")

    assert run.code == 1  # the unmapped target cannot read its payloads
    document = json.loads(run.out)
    statuses = by_target(document["statuses"])
    wallets = by_target(document["wallets"])
    assert statuses["mapped"]["platform"] == "maintenance"
    assert statuses["mapped"]["ai_service"] == "degraded"
    assert statuses["mapped"]["error"] is None
    assert wallets["mapped"]["remaining_words"] == 4_321
    assert wallets["mapped"]["updated_at"] == start_time.isoformat()
    assert statuses["unmapped"]["error"]["reason"] == "bad_payload"
    assert wallets["unmapped"]["error"]["reason"] == "bad_payload"
