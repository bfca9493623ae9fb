"""Notifications end to end: the daemon against the simulator, delivering through REAL Apprise
to a loopback JSON webhook and a loopback SMTP server.

What these prove: an outage reaches both channels as raised, reminder(s) and resolved, each
exactly once; a receiver that fails for a minute gets the message once it recovers, once; a
`kill -9` with deliveries pending loses and repeats nothing; 200 targets failing together are one
message per channel; and no secret (API key, channel token, SMTP password) leaks anywhere.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import socket
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml
from apprise.plugins.email.base import NotifyEmail
from prometheus_client import CollectorRegistry

from tqe_monitor.config import Settings
from tqe_monitor.notify import AppriseChannel, Dispatcher, NotificationMetrics, Planner, Router
from tqe_monitor.store import SqliteStore
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, Severity, Transition

pytestmark = pytest.mark.filterwarnings("ignore:Session.login_data")  # aiosmtpd's own warning

SERVICE = "tqe-e2e"
ACCOUNTS = {
    "production": "e2e-notify-secret-production-58c1f0a2",
    "staging": "e2e-notify-secret-staging-d93b6e47",
}
EXIT_SECONDS = 15.0


def daemon_settings(
    base_url: str, storage: Path, channels: dict[str, str], **notifications: Any
) -> Settings:
    return Settings(
        server={"listen": "127.0.0.1:0"},
        storage={"path": storage},
        defaults={"status_interval": 1, "wallet_interval": 5, "timeout": 1, "retries": 0},
        targets={
            name: {"base_url": base_url, "api_key": key, "service": SERVICE}
            for name, key in ACCOUNTS.items()
        },
        notifications={
            "channels": {name: {"url": url} for name, url in channels.items()},
            **notifications,
        },
    )


def kinds(messages: list[Any]) -> list[str]:
    return [message.kind for message in messages]


# -- an outage, through both channels ----------------------------------------------------------


@pytest.mark.slow
async def test_an_outage_reaches_webhook_and_mail_as_raised_reminder_resolved_once_each(
    start_simulator: Any,
    start_daemon: Any,
    json_receiver: Any,
    smtp_receiver: Any,
    wait_until: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Apprise spaces the sends of one email service >= 5.5 s apart (politeness towards real
    # mail servers); a loopback server needs none, and three mails would cost 11 s of waiting.
    monkeypatch.setattr(NotifyEmail, "request_rate_per_sec", 0)
    simulator = await start_simulator(dict.fromkeys(ACCOUNTS.values(), 500000))
    settings = daemon_settings(
        simulator.base_url,
        tmp_path / "store.db",
        {"hook": json_receiver.url(), "mail": smtp_receiver.url()},
        group_wait="1s",
        repeat_interval="2s",
        retry_initial="0.5s",
    )
    daemon = await start_daemon(settings)

    def received(kind: str) -> bool:
        return all(
            kind in kinds(messages)
            for messages in (json_receiver.accepted(), smtp_receiver.messages)
        )

    simulator.set_status(ai_service="degraded")
    await wait_until(lambda: received("raised"), what="both channels got the raise")
    await wait_until(lambda: received("reminder"), what="both channels got a reminder")
    simulator.set_status(ai_service="operational")
    await wait_until(lambda: received("resolved"), what="both channels got the resolve")
    # A few more dispatcher ticks: a duplicate or a late reminder would show up now.
    await asyncio.sleep(1.5)

    by_channel = {"hook": json_receiver.accepted(), "mail": smtp_receiver.messages}
    for channel, messages in by_channel.items():
        sequence = kinds(messages)
        assert sequence[0] == "raised", (channel, sequence)
        assert sequence[-1] == "resolved", (channel, sequence)
        counts = Counter(sequence)
        assert counts["raised"] == 1, (channel, sequence)
        assert counts["resolved"] == 1, (channel, sequence)
        assert counts["reminder"] >= 1, (channel, sequence)
        assert set(counts) == {"raised", "reminder", "resolved"}, (channel, sequence)
        refs = [message.ref for message in messages]
        assert len(set(refs)) == len(refs), (channel, refs)
        for message in messages:
            assert len(message.lines) == 1
            assert "AI service degraded" in message.lines[0]
    assert by_channel["hook"][0].title == f"[WARNING] {SERVICE}: AI service degraded"
    assert by_channel["hook"][0].notify_type == "warning"
    assert by_channel["hook"][-1].notify_type == "success"
    # Both channels got the same messages: identical content is one notification, one ref.
    assert sorted(m.ref for m in by_channel["hook"]) == sorted(m.ref for m in by_channel["mail"])
    assert set(smtp_receiver.logins) == {"ok"}
    metrics = await daemon.metrics_text()
    for channel in ("hook", "mail"):
        sent = f'tqe_notifications_total{{channel="{channel}",outcome="sent"}} '
        assert f"{sent}{float(len(by_channel[channel]))}" in metrics


# -- a receiver that fails for a minute (fake clock, real Apprise) ---------------------------


async def test_a_receiver_failing_for_a_minute_gets_the_message_once_it_recovers(
    json_receiver: Any, tmp_path: Path
) -> None:
    start = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    now = [start]

    def elapsed() -> float:
        return (now[0] - start).total_seconds()

    json_receiver.answer = lambda _path: 500 if elapsed() <= 60 else 200
    store = SqliteStore(tmp_path / "store.db")
    key = ConditionKey(ConditionKind.COMPONENT_DEGRADED, SERVICE, "", "ai_service")
    store.commit(transitions=[Transition(key, Severity.WARNING, True, start, start)])
    registry = CollectorRegistry()
    ids = itertools.count(1)
    dispatcher = Dispatcher(
        store,
        Planner(
            Router({"hook": frozenset()}, [], repeat_interval=86400, send_resolved=True),
            group_wait=1,
            new_id=lambda: f"ref{next(ids)}",
        ),
        {"hook": AppriseChannel("hook", frozenset(), url=json_receiver.url())},
        NotificationMetrics(registry, ["hook"]),
        clock=lambda: now[0],
        max_delivery_age=3600,
        retry_initial=5,
        retry_max=20,
    )
    try:
        while elapsed() < 150:
            now[0] += timedelta(seconds=5)
            await dispatcher.tick()
    finally:
        store.close()

    # planned at 5 s; retries after 5, 10, 20, 20 s: 10, 20, 40, 60 fail; 80 is accepted
    assert json_receiver.statuses() == [500, 500, 500, 500, 500, 200]
    [message] = json_receiver.accepted()
    assert message.ref == "ref1"
    assert len({r.raw for r in json_receiver.requests}) == 1  # every attempt is the same message

    def outcome(name: str) -> float | None:
        labels = {"channel": "hook", "outcome": name}
        return registry.get_sample_value("tqe_notifications_total", labels)

    assert (outcome("failed"), outcome("retried"), outcome("sent")) == (5, 5, 1)
    assert registry.get_sample_value("tqe_notification_queue_depth") == 0


# -- kill -9 with deliveries pending (the real CLI process) ----------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def write_config(
    path: Path, base_url: str, storage: Path, channels: dict[str, str], **notifications: Any
) -> int:
    """A config as an operator writes it: keys from the environment ($E2E_<TARGET>_KEY).
    Returns the daemon's HTTP port."""
    port = free_port()
    document = {
        "server": {"listen": f"127.0.0.1:{port}"},
        "storage": {"path": str(storage)},
        "defaults": {"status_interval": "1s", "wallet_interval": "5s", "timeout": "1s"},
        "targets": {
            name: {
                "base_url": base_url,
                "service": SERVICE,
                "api_key": f"${{E2E_{name.upper()}_KEY}}",
            }
            for name in ACCOUNTS
        },
        "notifications": {
            "channels": {name: {"url": url} for name, url in channels.items()},
            **notifications,
        },
    }
    path.write_text(yaml.safe_dump(document))
    return port


def environment(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TQE_")}
    keys = {f"E2E_{name.upper()}_KEY": key for name, key in ACCOUNTS.items()}
    return base | keys | extra


@dataclass
class MonitorProcess:
    """`python -m tqe_monitor ...` with its output collected line by line as it arrives."""

    process: asyncio.subprocess.Process
    stderr_lines: list[str] = field(default_factory=list)
    stdout_lines: list[str] = field(default_factory=list)
    readers: list[asyncio.Task[None]] = field(default_factory=list)

    def events(self, name: str) -> list[dict[str, Any]]:
        found = []
        for line in self.stderr_lines:
            if f'"{name}"' in line:
                entry = json.loads(line)
                if entry.get("event") == name:
                    found.append(entry)
        return found

    @property
    def output(self) -> str:
        return "\n".join(self.stdout_lines + self.stderr_lines)

    async def finish(self) -> None:
        await asyncio.gather(*self.readers)


async def spawn(config: Path, env: dict[str, str]) -> MonitorProcess:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tqe_monitor",
        "run",
        "--config",
        str(config),
        "--log-format",
        "json",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    monitor = MonitorProcess(process)

    async def collect(stream: asyncio.StreamReader | None, into: list[str]) -> None:
        assert stream is not None
        while line := await stream.readline():
            into.append(line.decode().rstrip("\n"))

    monitor.readers = [
        asyncio.create_task(collect(process.stdout, monitor.stdout_lines)),
        asyncio.create_task(collect(process.stderr, monitor.stderr_lines)),
    ]
    return monitor


@pytest.fixture
async def processes() -> Any:
    """Every spawned process is killed at teardown if the test left it running."""
    started: list[MonitorProcess] = []
    yield started
    for monitor in started:
        if monitor.process.returncode is None:
            monitor.process.kill()
            await monitor.process.wait()
        await monitor.finish()


async def stop(monitor: MonitorProcess, signum: int = signal.SIGTERM) -> int:
    monitor.process.send_signal(signum)
    code = await asyncio.wait_for(monitor.process.wait(), EXIT_SECONDS)
    await monitor.finish()
    return code


@pytest.mark.slow
async def test_kill_9_with_pending_deliveries_loses_and_repeats_nothing(
    start_simulator: Any, json_receiver: Any, wait_until: Any, processes: Any, tmp_path: Path
) -> None:
    simulator = await start_simulator(dict.fromkeys(ACCOUNTS.values(), 500000))
    json_receiver.answer = lambda _path: 500
    config = tmp_path / "tqe-monitor.yaml"
    write_config(
        config,
        simulator.base_url,
        tmp_path / "store.db",
        {"hook": json_receiver.url()},
        group_wait="1s",
        retry_initial="0.5s",
        retry_max="1s",
    )
    first = await spawn(config, environment())
    processes.append(first)
    await wait_until(lambda: first.events("started"), what="the first daemon started")
    simulator.set_status(ai_service="degraded")
    await wait_until(
        lambda: len(first.events("notification_failed")) >= 2, what="deliveries failing"
    )
    assert await stop(first, signal.SIGKILL) == -signal.SIGKILL
    planned_before = {e["ref"] for e in first.events("notification_planned")}
    assert planned_before
    assert json_receiver.accepted() == []

    json_receiver.answer = lambda _path: 200
    second = await spawn(config, environment())
    processes.append(second)

    def planned() -> set[str]:
        return planned_before | {e["ref"] for e in second.events("notification_planned")}

    def delivered() -> set[str]:
        return {m.ref for m in json_receiver.accepted()}

    await wait_until(lambda: planned() <= delivered(), what="every planned ref delivered")
    await asyncio.sleep(2)  # a few more ticks: a repeat would arrive now
    assert await stop(second) == 0

    refs = Counter(m.ref for m in json_receiver.accepted())
    assert set(refs) == planned()
    assert all(count == 1 for count in refs.values()), refs
    # The restart remembered the raise: it was not planned, nor sent, a second time.
    [raised] = [m for m in json_receiver.accepted() if m.kind == "raised"]
    assert raised.lines[0].startswith("RAISED [warning] AI service degraded")
    assert raised.ref in planned_before


# -- 200 targets of one service fail together ---------------------------------------------------


@pytest.mark.slow
async def test_200_targets_failing_together_are_one_message_per_channel(
    start_simulator: Any,
    start_daemon: Any,
    json_receiver: Any,
    smtp_receiver: Any,
    wait_until: Any,
    tmp_path: Path,
) -> None:
    keys = {f"target-{i:03d}": f"fleet-key-{i:03d}-7d1e4b" for i in range(200)}
    simulator = await start_simulator(dict.fromkeys(keys.values(), 500_000))
    settings = Settings(
        server={"listen": "127.0.0.1:0"},
        storage={"path": tmp_path / "store.db"},
        defaults={"status_interval": 10, "wallet_interval": 1, "timeout": 2, "retries": 0},
        targets={
            name: {
                "base_url": simulator.base_url,
                "api_key": key,
                "service": "fleet",
                "wallet": {"stale_after": "1h"},
            }
            for name, key in keys.items()
        },
        notifications={
            "channels": {
                "hook": {"url": json_receiver.url()},
                "mail": {"url": smtp_receiver.url()},
            },
            "group_wait": "3s",  # every target's next wallet poll is within 1 s
            "retry_initial": "0.5s",
        },
    )
    daemon = await start_daemon(settings)
    await wait_until(daemon.ready, what="every target polled once")
    for key in keys.values():
        simulator.revoke(key)

    def both_received() -> bool:
        return bool(json_receiver.accepted() and smtp_receiver.messages)

    await wait_until(both_received, what="both channels got a message")
    await asyncio.sleep(2)  # a straggler would be a second message by now

    expected = sorted(f"{name}: API key rejected" for name in keys)
    for messages in (json_receiver.accepted(), smtp_receiver.messages):
        [message] = messages
        assert message.title == "[CRITICAL] fleet: 200 raised"
        # The body lists the first 100 (services cap message sizes) and counts the rest.
        listed = [line for line in message.lines if line.startswith("RAISED")]
        mentioned = sorted(
            line.removeprefix("RAISED [critical] ").split(" (since")[0] for line in listed
        )
        assert len(mentioned) == 100
        assert set(mentioned) <= set(expected)
        assert "... and 100 more (see /api/state or history)" in message.lines
    assert json_receiver.accepted()[0].notify_type == "failure"
    assert json_receiver.accepted()[0].ref == smtp_receiver.messages[0].ref


# -- secrets ----------------------------------------------------------------------------------


@pytest.mark.slow
async def test_no_secret_appears_in_messages_logs_metrics_or_notify_test_output(
    start_simulator: Any,
    json_receiver: Any,
    smtp_receiver: Any,
    wait_until: Any,
    processes: Any,
    tmp_path: Path,
) -> None:
    hook_token, failing_token = "hooktoken-4be19c02d7", "failtoken-a07c3e58f1"
    json_receiver.answer = lambda path: 500 if path.startswith("/fail") else 200
    simulator = await start_simulator(dict.fromkeys(ACCOUNTS.values(), 500000))
    config = tmp_path / "tqe-monitor.yaml"
    port = write_config(
        config,
        simulator.base_url,
        tmp_path / "store.db",
        {
            "hook": "${HOOK_URL}",  # from the environment, as an operator would
            "mail": smtp_receiver.url(),
            "failing": json_receiver.url(f"fail/{failing_token}"),
        },
        group_wait="1s",
        retry_initial="0.5s",
        retry_max="1s",
        max_delivery_age="60s",
    )
    env = environment(HOOK_URL=json_receiver.url(f"hook/{hook_token}"))
    daemon = await spawn(config, env)
    processes.append(daemon)
    await wait_until(lambda: daemon.events("started"), what="the daemon started")

    simulator.set_status(ai_service="degraded")
    simulator.revoke(ACCOUNTS["production"])

    def got(kind: str) -> bool:
        return all(
            kind in kinds(messages)
            for messages in (json_receiver.accepted(f"hook/{hook_token}"), smtp_receiver.messages)
        )

    await wait_until(lambda: got("raised"), what="both channels got the raise")
    await wait_until(
        lambda: daemon.events("notification_failed"), what="the failing channel failed"
    )
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
        metrics = (await http.get("/metrics")).text
        state = (await http.get("/api/state")).text
    assert "tqe_notifications_total" in metrics

    notify_test = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tqe_monitor",
        "notify-test",
        "--config",
        str(config),
        "--log-format",
        "json",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(notify_test.communicate(), EXIT_SECONDS)
    notify_test_output = out.decode() + err.decode()
    assert notify_test.returncode == 1  # the failing channel failed
    assert "failing  FAILED" in notify_test_output
    assert "hook     ok" in notify_test_output
    assert await stop(daemon) == 0

    smtp_password = urlsplit(smtp_receiver.url()).password
    assert smtp_password
    secrets = {*ACCOUNTS.values(), hook_token, failing_token, smtp_password}
    payloads = [r.raw for r in json_receiver.requests]  # the URL path is the token's place
    places = {
        "webhook payloads": "\n".join(payloads),
        "mails": "\n".join(smtp_receiver.raw),
        "daemon logs": daemon.output,
        "/metrics": metrics,
        "/api/state": state,
        "notify-test output": notify_test_output,
    }
    # The places really hold what is checked: messages, failures and sends were logged.
    assert daemon.events("notification_sent")
    assert any("API key rejected" in p for p in payloads)
    assert smtp_receiver.raw
    for where, text in places.items():
        for secret in secrets:
            assert secret not in text, f"a secret leaked into {where}"
