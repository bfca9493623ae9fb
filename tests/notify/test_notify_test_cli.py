"""`tqe-monitor notify-test`: one test message per channel through real Apprise, and exit codes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from tqe_monitor.cli import main

EXIT_OK, EXIT_FAILURE, EXIT_CONFIG = 0, 1, 2
TOKEN = "tok-6c1d0e9a77b4"


def write_config(tmp_path: Path, channels: dict[str, str]) -> Path:
    document: dict[str, Any] = {
        "storage": {"path": str(tmp_path / "store.db")},
        "targets": {
            "production": {"base_url": "http://127.0.0.1:9/v2", "api_key": "key-never-used-123"}
        },
        "notifications": {"channels": {name: {"url": url} for name, url in channels.items()}},
    }
    path = tmp_path / "tqe-monitor.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.fixture
def receiver(json_receiver: Any) -> Any:
    """/good/... accepts, /bad/... answers 500."""
    json_receiver.answer = lambda path: 500 if path.startswith("/bad") else 200
    return json_receiver


async def notify_test(
    capsys: pytest.CaptureFixture[str], config: Path, *args: str
) -> tuple[int, str, str]:
    """Run the command's main in a thread: it runs its own event loop, and the receiver
    answers on this one."""
    capsys.readouterr()
    code = await asyncio.to_thread(
        main, ["notify-test", "--config", str(config), "--log-format", "json", *args]
    )
    out, err = capsys.readouterr()
    return code, out, err


async def test_each_channels_outcome_is_printed_and_one_failure_exits_1(
    tmp_path: Path, receiver: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path, {"good": receiver.url(f"good/{TOKEN}"), "bad": receiver.url(f"bad/{TOKEN}")}
    )
    code, out, err = await notify_test(capsys, config)
    assert code == EXIT_FAILURE
    assert sorted(out.splitlines()) == [
        "bad   FAILED: 1 of 1 endpoint(s) did not accept it",
        "good  ok",
    ]
    assert receiver.statuses(f"good/{TOKEN}") == [200]
    assert receiver.statuses(f"bad/{TOKEN}") == [500]
    [message] = receiver.accepted()
    assert message.title == "tqe-monitor test notification"
    assert message.notify_type == "info"
    assert TOKEN not in out + err


async def test_only_the_chosen_channel_is_tested(
    tmp_path: Path, receiver: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, {"good": receiver.url("good"), "bad": receiver.url("bad")})
    code, out, _ = await notify_test(capsys, config, "--channel", "good")
    assert code == EXIT_OK
    assert out.splitlines() == ["good  ok"]
    assert receiver.statuses() == [200]


@pytest.mark.parametrize(
    ("channels", "args", "error"),
    [
        pytest.param(
            {"good": "GOOD"},
            ("--channel", "nope"),
            "config error: --channel: no such channel: nope",
            id="unknown-channel",
        ),
        pytest.param({}, (), "no notification channels configured", id="no-channels"),
    ],
)
async def test_nothing_to_test_is_a_usage_error(
    tmp_path: Path,
    receiver: Any,
    capsys: pytest.CaptureFixture[str],
    channels: dict[str, str],
    args: tuple[str, ...],
    error: str,
) -> None:
    urls = {name: receiver.url("good") for name in channels}
    code, out, err = await notify_test(capsys, write_config(tmp_path, urls), *args)
    assert code == EXIT_CONFIG
    assert out == ""
    assert error in err
    assert receiver.requests == []
