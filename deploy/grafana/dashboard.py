"""Lineup's Grafana dashboard, generated from this code by grafanalib: `python deploy/grafana/dashboard.py`
writes lineup-dashboard.json beside it (tests/deploy/test_grafana_dashboard.py checks the committed file is
what this code generates, and that every query names a series Lineup or the worker's SDK exports).

Every query reads the series themselves (not the recording rules), so the dashboard works before the rules are
loaded; the database gauges are the same in every API process, hence max()."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from grafanalib.core import Dashboard, GridPos, RowPanel, Stat, Target, Template, Templating, TimeSeries

HERE = Path(__file__).parent
OUTPUT = HERE / "lineup-dashboard.json"
CREATE = 'action="create_customer_prepaid_multiline"'
DATASOURCE = "${datasource}"


def series(title: str, exprs: dict[str, str], *, x: int, y: int, w: int = 8, unit: str = "short") -> TimeSeries:
    """A time series panel; `exprs` maps each legend to its query."""
    targets = [
        Target(expr=expr, legendFormat=legend, refId=chr(ord("A") + n))
        for n, (legend, expr) in enumerate(exprs.items())
    ]
    return TimeSeries(
        title=title, dataSource=DATASOURCE, targets=targets, unit=unit, gridPos=GridPos(h=8, w=w, x=x, y=y)
    )


def stat(title: str, expr: str, *, x: int, y: int, unit: str = "short", decimals: int = 0) -> Stat:
    target = Target(expr=expr, refId="A")
    return Stat(
        title=title,
        dataSource=DATASOURCE,
        targets=[target],
        format=unit,
        decimals=decimals,
        gridPos=GridPos(h=4, w=6, x=x, y=y),
    )


def row(title: str, y: int) -> RowPanel:
    return RowPanel(title=title, gridPos=GridPos(h=1, w=24, x=0, y=y))


def slo_panels() -> list[object]:
    without_outage = (
        f"1 - (sum(rate(lineup_outage_answers_total{{{CREATE}}}[1h])) or vector(0))"
        f" / sum(rate(lineup_requests_total{{{CREATE}}}[1h]))"
    )
    p99 = f"histogram_quantile(0.99, sum by (le) (rate(lineup_request_seconds_bucket{{{CREATE}}}[5m])))"
    ports = "sum by (le) (rate(lineup_port_completion_seconds_bucket[1d]))"
    return [
        row("Service level objectives", 0),
        stat(
            "Creates answered without an outage error (1 h; goal 99.9 %)",
            without_outage,
            x=0,
            y=1,
            unit="percentunit",
            decimals=3,
        ),
        stat("Create p99 (5 min; goal < 5 s)", p99, x=6, y=1, unit="s", decimals=2),
        stat(
            "Ports completed: p95 over a day (goal < 24 h)", f"histogram_quantile(0.95, {ports})", x=12, y=1, unit="s"
        ),
        stat("Lines stuck now", "max(lineup_stuck_lines)", x=18, y=1),
        series("Create latency", {"p50": p99.replace("0.99", "0.5"), "p99": p99}, x=0, y=5, w=12, unit="s"),
        series(
            "Port completion time",
            {"p50": f"histogram_quantile(0.5, {ports})", "p95": f"histogram_quantile(0.95, {ports})"},
            x=12,
            y=5,
            w=12,
            unit="s",
        ),
    ]


def line_panels() -> list[object]:
    return [
        row("Lines and the carrier", 13),
        series("Lines by status", {"{{status}}": "max by (status) (lineup_lines)"}, x=0, y=14),
        series("Enrollments accepted /s", {"accepted": "sum(rate(lineup_enrollments_started_total[5m]))"}, x=8, y=14),
        series(
            "Carrier trouble /s",
            {
                "unavailable ({{system}})": "sum by (system) (rate(lineup_outside_unavailable_total[5m]))",
                "refused": "sum(rate(lineup_carrier_refusals_total[5m]))",
            },
            x=16,
            y=14,
        ),
        series("Ports pending by age", {"{{age}}": "max by (age) (lineup_ports_pending)"}, x=0, y=22),
        series(
            "Webhook endpoints failing", {"{{vendor}}": "max by (vendor) (lineup_webhook_endpoints_failing)"}, x=8, y=22
        ),
        series("Mail queued", {"queued": "max(lineup_mail_queued)"}, x=16, y=22),
    ]


def process_panels() -> list[object]:
    return [
        row("API and workers", 30),
        series(
            "Answers /s by msg_code", {"{{msg_code}}": "sum by (msg_code) (rate(lineup_requests_total[5m]))"}, x=0, y=31
        ),
        series(
            "Outage answers /s by action",
            {"{{action}}": "sum by (action) (rate(lineup_outage_answers_total[5m]))"},
            x=8,
            y=31,
        ),
        series(
            "Token refusals /s", {"{{reason}}": "sum by (reason) (rate(lineup_token_failures_total[5m]))"}, x=16, y=31
        ),
        series("Database readable", {"{{instance}}": "lineup_database_up"}, x=0, y=39),
        series(
            "Workers alive (heartbeat)", {"{{task_queue}}": "max by (task_queue) (lineup_workers_alive)"}, x=8, y=39
        ),
        series(
            "Worker pollers and free slots",
            {
                "pollers {{poller_type}}": "sum by (poller_type) (temporal_num_pollers)",
                "free slots {{worker_type}}": "sum by (worker_type) (temporal_worker_task_slots_available)",
            },
            x=16,
            y=39,
        ),
    ]


def guard_panels() -> list[object]:
    return [
        row("Webhooks on time, and what guessers leave behind", 47),
        series(
            "Oldest webhook event waiting for its first attempt (alert: > 60 s for 5 min)",
            {"oldest": "max(lineup_webhook_oldest_undelivered_seconds)"},
            x=0,
            y=48,
            unit="s",
        ),
        series(
            "Refused sign-ins, pushes and port-out checks /s",
            {
                "sign-ins ({{surface}})": "sum by (surface) (rate(lineup_login_failures_total[5m]))",
                "push signatures": "sum(rate(lineup_push_signature_failures_total[5m]))",
                "port-out account/PIN": "sum(rate(lineup_port_out_check_failures_total[5m]))",
            },
            x=8,
            y=48,
        ),
    ]


def dashboard() -> Dashboard:
    source = Template(name="datasource", label="Prometheus", query="prometheus", type="datasource")
    return Dashboard(
        title="Lineup",
        uid="lineup-operations",
        description="Lineup at a glance: SLOs, lines, the carrier, ports, webhooks, mail, API and workers",
        tags=["lineup"],
        timezone="utc",
        refresh="30s",
        templating=Templating(list=[source]),
        panels=[*slo_panels(), *line_panels(), *process_panels(), *guard_panels()],
    ).auto_panel_ids()


class _Encoder(json.JSONEncoder):
    """grafanalib's objects as their JSON (each has to_json_data())."""

    def default(self, o: object) -> object:
        to_json = getattr(o, "to_json_data", None)
        return to_json() if to_json is not None else super().default(o)


def rendered() -> str:
    return json.dumps(dashboard().to_json_data(), cls=_Encoder, sort_keys=True, indent=2) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(rendered())
    sys.stdout.write(f"wrote {OUTPUT}\n")
