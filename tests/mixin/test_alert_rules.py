"""The alert rules and the Prometheus/Grafana configs, checked with Prometheus' own tools.

`promtool test rules` runs tests/mixin/alerts_test.yml: input series and the alerts expected
at given times. Here we also check that every alert has a case that fires it and one that does
not, that every alert is documented in the runbook, and that the unit tests notice a change.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

needs_promtool = pytest.mark.skipif(
    shutil.which("promtool") is None,
    reason="needs Debian's prometheus package (promtool); .ci/run installs it",
)
SEVERITIES = {"info", "warning", "critical"}


def promtool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["promtool", *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


@needs_promtool
def test_promtool_accepts_the_rules(mixin: Any) -> None:
    result = promtool("check", "rules", mixin.alerts)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(mixin.alert_rules())} rules found" in result.stdout


@needs_promtool
def test_promtool_rule_unit_tests_pass(mixin: Any) -> None:
    result = promtool("test", "rules", mixin.alert_tests)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
@pytest.mark.parametrize(
    ("original", "changed"),
    [
        (
            "for: 5m\n        labels:\n          severity: warning",
            "for: 1m\n        labels:\n          severity: warning",
        ),
        ("group_right tqe_wallet_threshold_words", "group_right (tqe_wallet_threshold_words * 2)"),
        ("unless (tqe_api_key_rejected == 1)", "unless (tqe_api_key_rejected == 2)"),
    ],
    ids=["degraded sooner", "thresholds doubled", "rejected keys not excluded"],
)
def test_the_rule_unit_tests_notice_a_changed_rule(
    mixin: Any, tmp_path: Path, original: str, changed: str
) -> None:
    rules = mixin.alerts.read_text()
    assert original in rules
    (tmp_path / "alerts.yml").write_text(rules.replace(original, changed, 1))
    tests = mixin.alert_tests.read_text().replace(
        "../../config/prometheus/alerts.yml", "alerts.yml"
    )
    (tmp_path / "alerts_test.yml").write_text(tests)

    result = promtool("test", "rules", tmp_path / "alerts_test.yml")

    assert result.returncode == 1, result.stdout
    assert "FAILED" in result.stdout + result.stderr


def _cases_by_alert(mixin: Any) -> dict[str, list[list[Any]]]:
    document = yaml.safe_load(mixin.alert_tests.read_text())
    cases: dict[str, list[list[Any]]] = {}
    for group in document["tests"]:
        for case in group.get("alert_rule_test", []):
            cases.setdefault(case["alertname"], []).append(case.get("exp_alerts") or [])
    return cases


def test_every_alert_has_a_firing_and_a_quiet_test_case(mixin: Any, alert_rule: Any) -> None:
    cases = _cases_by_alert(mixin).get(alert_rule["alert"], [])
    assert any(expected for expected in cases), "no case where it fires"
    assert any(not expected for expected in cases), "no case where it stays quiet"


def test_every_alert_has_a_severity_and_is_documented(mixin: Any, alert_rule: Any) -> None:
    name = alert_rule["alert"]
    severity = alert_rule["labels"]["severity"]
    assert severity in SEVERITIES or severity == "{{ $labels.severity }}"
    annotations = alert_rule["annotations"]
    assert annotations["summary"].strip()
    assert annotations["description"].strip()
    assert annotations["runbook_url"] == f"docs/runbook.md#{name.lower()}"
    headings = re.findall(r"^## (\w+)$", mixin.runbook.read_text(), flags=re.MULTILINE)
    assert name in headings


def test_the_runbook_documents_no_alert_that_does_not_exist(mixin: Any) -> None:
    headings = re.findall(r"^## (\w+)$", mixin.runbook.read_text(), flags=re.MULTILINE)
    assert sorted(headings) == sorted(rule["alert"] for rule in mixin.alert_rules())


@needs_promtool
def test_the_prometheus_config_scrapes_the_daemon_and_loads_the_rules(mixin: Any) -> None:
    result = promtool("check", "config", mixin.prometheus_config)
    assert result.returncode == 0, result.stdout + result.stderr

    config = yaml.safe_load(mixin.prometheus_config.read_text())
    (job,) = [job for job in config["scrape_configs"] if job["job_name"] == "tqe-monitor"]
    assert job["static_configs"][0]["targets"] == ["127.0.0.1:9787"]
    assert config["rule_files"] == ["alerts.yml"]


def test_grafana_provisioning_points_at_prometheus_and_the_dashboards(mixin: Any) -> None:
    provisioning = mixin.grafana_provisioning
    datasources = yaml.safe_load((provisioning / "datasources" / "prometheus.yaml").read_text())
    providers = yaml.safe_load((provisioning / "dashboards" / "tqe-monitor.yaml").read_text())

    assert datasources["apiVersion"] == providers["apiVersion"] == 1
    (source,) = datasources["datasources"]
    assert source["type"] == "prometheus"
    assert source["url"].startswith("http")
    (provider,) = providers["providers"]
    assert provider["type"] == "file"
    assert Path(provider["options"]["path"]).is_absolute()
    # one file per kind: two default data sources or two providers of one name stop Grafana
    assert sorted(p.name for p in (provisioning / "datasources").iterdir()) == ["prometheus.yaml"]
    assert sorted(p.name for p in (provisioning / "dashboards").iterdir()) == ["tqe-monitor.yaml"]
