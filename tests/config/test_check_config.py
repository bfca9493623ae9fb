"""`check-config` and the loader end to end: good files pass, bad ones name the field, and no
secret is ever printed, not even inside a rejected value."""

from __future__ import annotations

from pathlib import Path

import pytest

from tqe_monitor.cli import main
from tqe_monitor.config import ConfigError, config_path, load_config, resolve_targets

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "config" / "tqe-monitor.example.yaml"
PROD_KEY = "prod-SECRET-key-0123456789"
SLACK_URL = "slack://TokenAAAA1111/TokenBBBB2222/TokenCCCC3333"
SECRETS = (PROD_KEY, "TokenAAAA1111", "TokenBBBB2222", "TokenCCCC3333")


def run_check(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check-config", "--config", str(config)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


@pytest.fixture
def env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TQE_PRODUCTION_API_KEY", PROD_KEY)
    monkeypatch.setenv("TQE_SLACK_URL", SLACK_URL)


@pytest.mark.usefixtures("env_keys")
def test_example_config_is_valid_and_printed_masked(capsys: pytest.CaptureFixture[str]) -> None:
    code, output = run_check(EXAMPLE, capsys)
    assert code == 0, output
    assert "config OK" in output
    assert "api_key: '***'" in output or "api_key: ***" in output
    assert "service: tqe.example.com" in output
    assert "status_interval: 30s" in output
    # staging reads its key from a file that only exists where the daemon runs: a warning.
    assert "warning: targets.staging.api_key_file: cannot read" in output
    assert_no_secret(output)


def test_example_config_without_env_names_each_missing_variable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, output = run_check(EXAMPLE, capsys)
    assert code == 2
    assert "targets.production.api_key: environment variable TQE_PRODUCTION_API_KEY is not set" in (
        output
    )
    assert "notifications.channels.ops.url: environment variable TQE_SLACK_URL is not set" in output


BASE = """
targets:
  production:
    base_url: "https://tqe.example.com/v2"
    api_key: "${TQE_PRODUCTION_API_KEY}"
"""

BAD_CONFIGS = [
    pytest.param(
        "targets:\n  production:\n    api_key: '${TQE_PRODUCTION_API_KEY}'\n",
        "targets.production.base_url: required",
        id="missing-base-url",
    ),
    pytest.param(
        BASE.replace("https://tqe.example.com/v2", "tqe.example.com"),
        "targets.production.base_url: must be an http:// or https:// URL",
        id="non-url-base-url",
    ),
    pytest.param(
        BASE.replace("https://tqe.example.com/v2", f"ftp://{PROD_KEY}@host/v2"),
        "targets.production.base_url: must be an http:// or https:// URL",
        id="secret-inside-rejected-url",
    ),
    pytest.param(
        BASE + "    status_interval: -5s\n",
        "targets.production.status_interval: must not be negative",
        id="negative-interval",
    ),
    pytest.param(
        "defaults:\n  wallet_interval: -1\n" + BASE,
        "defaults.wallet_interval: must not be negative",
        id="negative-default-interval",
    ),
    pytest.param(
        BASE + "    wallet_interval: 0.5s\n",
        "targets.production.wallet_interval: a poll interval must be at least",
        id="interval-too-short",
    ),
    pytest.param(
        BASE + "    wallet:\n      thresholds:\n        - {below: 10, severity: urgent}\n",
        "targets.production.wallet.thresholds[0].severity: Input should be 'info', 'warning'",
        id="unknown-severity",
    ),
    pytest.param(
        "targets:\n  production:\n    base_url: https://tqe.example.com/v2\n",
        "targets.production.api_key: required",
        id="missing-key",
    ),
    pytest.param(
        BASE + "    api_key_file: /run/secrets/x\n",
        "targets.production.api_key: set api_key or api_key_file, not both",
        id="both-keys",
    ),
    pytest.param(
        BASE.replace('"${TQE_PRODUCTION_API_KEY}"', f"[{PROD_KEY}]"),
        "targets.production.api_key: Input should be a valid string",
        id="secret-inside-wrong-type",
    ),
    pytest.param(
        BASE + "    wallet:\n      thresholds:\n        - {below_percent: 10, severity: warning}\n",
        "targets.production.wallet.capacity: required when a threshold uses below_percent",
        id="percent-without-capacity",
    ),
    pytest.param(
        BASE + "    walet: {}\n",
        "targets.production.walet: unknown setting",
        id="typo",
    ),
    pytest.param(
        "server:\n  listen: nonsense\n" + BASE, "server.listen: expected HOST:PORT", id="listen"
    ),
    pytest.param("targets: {}\n", "targets: at least one target is required", id="no-targets"),
    pytest.param(
        BASE + f"    service: [\n  {PROD_KEY}: x\n",
        "invalid YAML at line",
        id="yaml-syntax-error-quoting-a-secret",
    ),
    pytest.param(
        "notifications:\n  channels:\n    ops: {url: 42, tags: ops}\n" + BASE,
        "notifications.channels.ops.tags: Input should be a valid list",
        id="channel",
    ),
]


@pytest.mark.usefixtures("env_keys")
@pytest.mark.parametrize(("document", "expected"), BAD_CONFIGS)
def test_bad_config_exits_2_naming_the_field(
    document: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tqe-monitor.yaml"
    config.write_text(document)
    code, output = run_check(config, capsys)
    assert code == 2
    assert expected in output
    assert all(line.startswith("config error: ") for line in output.splitlines())
    assert_no_secret(output)


def test_missing_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = run_check(tmp_path / "nope.yaml", capsys)
    assert code == 2
    assert "config file not found" in output


@pytest.mark.usefixtures("env_keys")
def test_environment_overrides_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(BASE + "    wallet_interval: 5m\n")
    monkeypatch.setenv("TQE_MONITOR_DEFAULTS__STATUS_INTERVAL", "10s")
    monkeypatch.setenv("TQE_MONITOR_TARGETS__PRODUCTION__WALLET_INTERVAL", "2m")
    monkeypatch.setenv("TQE_MONITOR_SERVER__LISTEN", "0.0.0.0:9999")
    settings = load_config(config).settings
    assert settings.defaults.status_interval == 10
    assert settings.targets["production"].wallet_interval == 120
    assert settings.targets["production"].base_url == "https://tqe.example.com/v2"
    assert settings.server.listen == "0.0.0.0:9999"


def test_bad_environment_override_names_the_field_without_its_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(BASE)
    monkeypatch.setenv("TQE_PRODUCTION_API_KEY", PROD_KEY)
    monkeypatch.setenv("TQE_MONITOR_TARGETS__PRODUCTION__BASE_URL", f"nope-{PROD_KEY}")
    code, output = run_check(config, capsys)
    assert code == 2
    assert "targets.production.base_url: must be an http:// or https:// URL" in output
    assert_no_secret(output)


@pytest.mark.parametrize(
    ("cli", "env", "expected"),
    [
        ("a.yaml", "b.yaml", "a.yaml"),
        (None, "b.yaml", "b.yaml"),
        (None, None, "tqe-monitor.yaml"),
    ],
)
def test_config_path_precedence(cli: str | None, env: str | None, expected: str) -> None:
    environ = {"TQE_MONITOR_CONFIG": env} if env else {}
    assert config_path(cli, environ) == Path(expected)


@pytest.mark.usefixtures("env_keys")
def test_resolve_targets_applies_defaults_and_reads_key_files(tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("file-key-abcdef\n")
    config = tmp_path / "c.yaml"
    config.write_text(
        "defaults: {status_interval: 15s, timeout: 3s}\n"
        + BASE
        + f"  staging:\n    base_url: http://other.example:8080/v2/\n"
        f"    api_key_file: {key_file}\n    service: eu\n    wallet_interval: 2m\n"
    )
    targets = {t.name: t for t in resolve_targets(load_config(config).settings)}
    assert targets["production"].service == "tqe.example.com"
    assert targets["production"].api_key == PROD_KEY
    assert (targets["production"].status_interval, targets["production"].timeout) == (15, 3)
    assert targets["staging"].api_key == "file-key-abcdef"
    assert targets["staging"].service == "eu"
    assert targets["staging"].base_url == "http://other.example:8080/v2"
    assert targets["staging"].wallet_interval == 120
    assert PROD_KEY not in repr(targets["production"])


@pytest.mark.usefixtures("env_keys")
def test_unreadable_key_file_is_a_config_error_naming_the_field(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        BASE + f"  staging:\n    base_url: https://x.example/v2\n"
        f"    api_key_file: {tmp_path / 'absent'}\n"
    )
    with pytest.raises(ConfigError) as raised:
        resolve_targets(load_config(config).settings)
    assert raised.value.problems[0].startswith("targets.staging.api_key_file: cannot read ")
