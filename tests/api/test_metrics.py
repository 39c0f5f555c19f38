"""`GET /metrics`: Lineup's own series move by exactly one per call, the database gauges are counted at scrape
time, and several processes add up in prometheus_client's multiprocess mode."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update
from sqlmodel import col

import models.support
from bench.ports import free_port
from models import auth
from models.auth import ApiToken
from models.types import utcnow
from tests.support.builders import body, create, line

ROOT = Path(__file__).resolve().parents[2]


async def scrape(client) -> str:
    response = await client.http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    text: str = response.text
    return text


def value(text: str, name: str, **labels: str) -> float:
    """The sample `name` with exactly `labels`; 0 when the series does not exist yet."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0


def moved(before: str, after: str, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


async def test_an_answered_call_counts_once_by_action_and_msg_code(api):
    before = await scrape(api)
    answer = await api.call("/plan", body("plan_list"))
    assert answer["msg_code"] == "RESTAPI000"
    after = await scrape(api)
    assert moved(before, after, "lineup_requests_total", action="plan_list", msg_code="RESTAPI000") == 1
    assert moved(before, after, "lineup_request_seconds_count", action="plan_list") == 1
    assert moved(before, after, "lineup_request_seconds_sum", action="plan_list") > 0


async def test_a_refusal_before_the_action_resolved_counts_under_unknown_and_probes_do_not_count(api):
    before = await scrape(api)
    answer = await api.call("/plan", body("no_such_action"))
    assert answer["msg_code"] == "RESTAPI106"
    assert (await api.http.get("/healthz")).status_code == 200
    after = await scrape(api)
    assert moved(before, after, "lineup_requests_total", action="unknown", msg_code="RESTAPI106") == 1
    total_before = sum(
        s.value for f in text_string_to_metric_families(before) for s in f.samples if s.name == "lineup_requests_total"
    )
    total_after = sum(
        s.value for f in text_string_to_metric_families(after) for s in f.samples if s.name == "lineup_requests_total"
    )
    assert total_after - total_before == 1  # neither /healthz nor the scrapes themselves


async def expire(api, token: str) -> None:
    async with api.db.transaction() as session:
        stale = utcnow() - timedelta(seconds=1)
        await session.execute(
            update(ApiToken).where(col(ApiToken.token_hash) == auth.digest(token)).values(expires_at=stale)
        )


async def test_token_failures_count_once_each_by_reason(api):
    used, expired = await api.token(), await api.token()
    assert (await api.post("/plan", body("plan_list"), token=used)).json()["msg_code"] == "RESTAPI000"
    await expire(api, expired)
    before = await scrape(api)
    answers = [
        (await api.post("/plan", body("plan_list"))).json(),
        (await api.post("/plan", body("plan_list"), token="not-a-token-we-issued")).json(),
        (await api.post("/plan", body("plan_list"), token=used)).json(),
        (await api.post("/plan", body("plan_list"), token=expired)).json(),
    ]
    assert [a["msg"] for a in answers] == ["Invalid Token", "Invalid Token", "Token already used", "Token expire"]
    after = await scrape(api)
    reasons = ("missing", "unknown", "used", "expired")
    assert [moved(before, after, "lineup_token_failures_total", reason=r) for r in reasons] == [1, 1, 1, 1]
    assert moved(before, after, "lineup_requests_total", action="unknown", msg_code="RESTAPI001") == 4


async def test_metrics_is_plain_text_without_a_token_or_the_envelope(api):
    text = await scrape(api)
    assert not text.startswith("{")
    assert "# TYPE lineup_requests_total counter" in text
    assert "# TYPE lineup_request_seconds histogram" in text
    assert "# TYPE lineup_lines gauge" in text
    assert value(text, "lineup_stuck_lines") == 0
    assert value(text, "lineup_mail_queued") == 0
    assert value(text, "lineup_lines", status="ACTIVE") == 0  # every status is listed, zero included
    assert value(text, "lineup_lines", status="STUCK") == 0
    assert 'lineup_lines{status="WAITING_ACTIVATION"} 0.0' in text


@pytest.mark.parametrize("settings_overrides", [{"base_path": "/lineup"}])
async def test_metrics_lives_under_the_base_path(api):
    assert (await api.http.get("/lineup/metrics")).status_code == 200
    assert (await api.http.get("/metrics")).json()["msg"] == "Invalid Access!!"


@pytest.mark.parametrize("settings_overrides", [{"metrics_cache_seconds": 0}])  # each scrape counts anew
async def test_an_activation_shows_in_lines_by_status_and_a_new_enrollment_counts_once(stack):
    before = await scrape(stack)
    parent = await stack.new_enrollment_id()
    request = create(parent, line(parent))
    created = await stack.call("/customer", request)
    assert created["msg_code"] == "RESTAPI000", created
    assert (await stack.call("/customer", request))["msg_code"] == "RESTAPI000"  # a repeat starts nothing
    after = await scrape(stack)
    assert (value(before, "lineup_lines", status="ACTIVE"), value(after, "lineup_lines", status="ACTIVE")) == (0, 1)
    assert 'lineup_lines{status="ACTIVE"} 1.0' in after
    assert moved(before, after, "lineup_enrollments_started_total") == 1


# Issue 19, finding 12: /metrics behind a bearer token (a setting), or in production on its own loopback port
# only; the database half of a scrape reused for a few seconds.
KEY = base64.urlsafe_b64encode(bytes(32)).decode()


@pytest.mark.parametrize("settings_overrides", [{"metrics_token": "scrape-secret-1"}])
async def test_with_a_metrics_token_a_scrape_needs_it(api):
    assert (await api.http.get("/metrics")).status_code == 401
    assert (await api.http.get("/metrics", headers={"authorization": "Bearer wrong"})).status_code == 401
    scraped = await api.http.get("/metrics", headers={"authorization": "Bearer scrape-secret-1"})
    assert scraped.status_code == 200 and "lineup_lines" in scraped.text


async def loopback_scrape(port: int, path: str = "/metrics") -> tuple[str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    answer = (await reader.read()).decode()
    writer.close()
    head, _, text = answer.partition("\r\n\r\n")
    return head.split("\r\n")[0], text


METRICS_PORT = free_port()


@pytest.mark.parametrize(
    "settings_overrides", [{"profile": "production", "encryption_key": KEY, "metrics_port": METRICS_PORT}]
)
async def test_in_production_metrics_is_served_on_its_own_loopback_port_only(api):
    assert (await api.http.get("/metrics")).status_code == 404
    status, text = await loopback_scrape(METRICS_PORT)
    assert status == "HTTP/1.0 200 OK" and 'lineup_lines{status="ACTIVE"}' in text
    assert (await loopback_scrape(METRICS_PORT, "/healthz"))[0] == "HTTP/1.0 404 Not Found"


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per database snapshot a scrape read."""
    read: list[int] = []
    taken = models.support.snapshot

    async def counted(db, *more):
        read.append(1)
        return await taken(db, *more)

    monkeypatch.setattr(models.support, "snapshot", counted)
    return read


async def test_scrapes_within_the_cache_share_one_database_snapshot(api, queries):
    await asyncio.gather(*(scrape(api) for _ in range(20)))
    await scrape(api)
    assert len(queries) == 1


@pytest.mark.parametrize("settings_overrides", [{"metrics_cache_seconds": 0}])
async def test_without_the_cache_each_scrape_reads_the_database(api, queries):
    for _ in range(3):
        await scrape(api)
    assert len(queries) == 3


COUNT_ONE = """
from models import observability as metrics
metrics.request_answered("plan_list", "RESTAPI000", 0.01)
metrics.token_refused("used")
"""
SCRAPE = """
import sys
from models import observability as metrics
sys.stdout.write(metrics.exposition(metrics.Snapshot(lines={"ACTIVE": 3}, stuck_lines=1, mail_queued=2)).decode())
"""


def python(code: str, directory: Path) -> str:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_multiprocess_mode_adds_up_what_each_api_process_counted(tmp_path):
    """Two processes count (as uvicorn --workers would run them), a third answers the scrape with both."""
    python(COUNT_ONE, tmp_path)
    python(COUNT_ONE, tmp_path)
    text = python(SCRAPE, tmp_path)
    assert value(text, "lineup_requests_total", action="plan_list", msg_code="RESTAPI000") == 2
    assert value(text, "lineup_request_seconds_count", action="plan_list") == 2
    assert value(text, "lineup_token_failures_total", reason="used") == 2
    assert value(text, "lineup_lines", status="ACTIVE") == 3
    assert (value(text, "lineup_stuck_lines"), value(text, "lineup_mail_queued")) == (1, 2)
