"""The shipped alert and recording rules (deploy/prometheus): valid for Prometheus (`promtool check rules`) and
behaving as their unit tests say (`promtool test rules`: each alert pending then firing on the series that
should raise it, quiet on healthy ones; each SLO recording rule's value). The rules are tested exactly as shipped."""

from __future__ import annotations

import subprocess

import yaml

from tests.support.prometheus import PROMTOOL, RULE_TESTS, RULES, needed

ALERTS = {
    "LineupStuckLinesHigh",
    "LineupCarrierUnavailable",
    "LineupCarrierRefusalsHigh",
    "LineupPortsPastWindow",
    "LineupWebhookEndpointFailing",
    "LineupWebhooksLate",
    "LineupWorkerAbsent",
    "LineupApiOutageAnswers",
    "LineupDatabaseUnavailable",
    # Issue 35: failures a guesser leaves behind.
    "LineupLoginFailuresHigh",
    "LineupTokenFailuresHigh",
    "LineupPushSignatureFailures",
    "LineupPortOutCheckFailures",
}


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([needed(PROMTOOL), *args], capture_output=True, text=True, timeout=60, cwd=RULES.parent)


def test_promtool_finds_the_rules_valid():
    checked = promtool("check", "rules", RULES.name)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 19 rules found" in checked.stdout


def test_promtool_unit_tests_of_every_rule_pass():
    tested = promtool("test", "rules", RULE_TESTS.name)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def test_every_alert_has_a_unit_test_and_a_runbook_line_in_the_docs():
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    alerts = {rule["alert"] for rule in rules if "alert" in rule}
    assert alerts == ALERTS
    tested = {
        case["alertname"]
        for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]
        for case in test.get("alert_rule_test", [])
    }
    assert tested == alerts
    recorded = {rule["record"] for rule in rules if "record" in rule}
    exercised = {
        case["expr"]
        for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]
        for case in test.get("promql_expr_test", [])
    }
    assert exercised == recorded - {"lineup:create_requests:rate5m", "lineup:create_outage_answers:rate5m"}
    operations = (RULES.parents[2] / "docs" / "operations.md").read_text()
    assert all(f"`{alert}`" in operations for alert in alerts)
    assert all(rule["annotations"]["runbook"] for rule in rules if "alert" in rule)
