"""Against a real Prometheus (Debian's server): it scrapes a real stack, the API over a socket (uvicorn, its
/metrics behind LINEUP_METRICS_TOKEN) and the worker's SDK metrics endpoint, evaluates the shipped rules, and
a carrier outage driven through the sandbox raises LineupCarrierUnavailable, pending then firing, as
Prometheus's own HTTP API tells; the SLO recording rules give values.

The rules are the shipped file with two things shortened for a test's minute, and only these: the outage
alert's `for` (5m → 3s) and the SLO group's evaluation interval (30s → 1s). `promtool test rules`
(test_prometheus_rules.py) covers the shipped file exactly."""

from __future__ import annotations

import asyncio
import math
import secrets
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import yaml

from bench.ports import free_ports
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body, create, line
from tests.support.metrics import scrape
from tests.support.prometheus import PROMETHEUS, RULES, needed
from tests.support.temporal import serving
from worker import serve

TOKEN = "scrape-secret"
ALERT = "LineupCarrierUnavailable"


def rules_for_a_test(directory: Path) -> Path:
    """The shipped rules, the outage alert's `for` and the SLO group's interval shortened (nothing else)."""
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        if group["name"] == "lineup-slo":
            group["interval"] = "1s"
        for rule in group["rules"]:
            if rule.get("alert") == ALERT:
                rule["for"] = "3s"
    path = directory / "rules.yml"
    path.write_text(yaml.safe_dump(rules))
    return path


def config(directory: Path, rules: Path, api_port: int, worker_port: int) -> Path:
    document = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"},
        "rule_files": [str(rules)],
        "scrape_configs": [
            {
                "job_name": "lineup-api",
                "authorization": {"credentials": TOKEN},
                "static_configs": [{"targets": [f"127.0.0.1:{api_port}"]}],
            },
            {"job_name": "lineup-worker", "static_configs": [{"targets": [f"127.0.0.1:{worker_port}"]}]},
        ],
    }
    path = directory / "prometheus.yml"
    path.write_text(yaml.safe_dump(document))
    return path


@contextmanager
def prometheus(directory: Path, configuration: Path, port: int) -> Iterator[str]:
    """Debian's Prometheus on 127.0.0.1:`port`, its data in `directory`; stopped (then killed) at the end."""
    log = (directory / "prometheus.log").open("w")
    process = subprocess.Popen(
        [
            needed(PROMETHEUS),
            f"--config.file={configuration}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


async def until(check: Any, what: str, within: float = 60.0) -> Any:
    deadline = time.monotonic() + within
    while True:
        try:
            found = await check()
        except httpx.TransportError:  # Prometheus still starting
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"Prometheus never showed {what}"
        await asyncio.sleep(0.5)


async def api_v1(http: httpx.AsyncClient, base: str, path: str, **params: str) -> Any:
    answer = (await http.get(f"{base}/api/v1/{path}", params=params)).raise_for_status().json()
    assert answer["status"] == "success", answer
    return answer["data"]


@pytest.fixture
async def live(data_dir, sqlite_url, temporal_env, sandbox_url, tmp_path) -> AsyncIterator[dict[str, Any]]:
    """The API on a socket, a worker with its SDK metrics endpoint, and Prometheus scraping both."""
    needed(PROMETHEUS)
    api_port, worker_port, prometheus_port = free_ports(3)
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=f"lineup-test-{secrets.token_hex(4)}",
        carrier_base_url=f"{sandbox_url}/carrier",
        nlad_base_url=f"{sandbox_url}/nlad",
        payments_base_url=f"{sandbox_url}/payments",
        worker_metrics_port=worker_port,
        metrics_token=TOKEN,
        metrics_cache_seconds=0,
        sweep_seconds=0,
        carrier_max_attempts=3,
        sync_wait_seconds=1,
        stuck_retry_minutes=600,
    )
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(settings, stop))
    try:
        await scrape(worker_port)
        async with ApiClient.running(settings, temporal=temporal_env.client) as api:
            uvicorn_config = uvicorn.Config(
                api.app, host="127.0.0.1", port=api_port, lifespan="off", log_level="warning"
            )
            async with serving(uvicorn_config):
                rules = rules_for_a_test(tmp_path)
                with prometheus(tmp_path, config(tmp_path, rules, api_port, worker_port), prometheus_port) as base:
                    yield {"api": api, "prometheus": base, "sandbox": sandbox_url}
    finally:
        stop.set()
        await worker


async def faults(sandbox: str, rate: float) -> None:
    async with httpx.AsyncClient() as http:
        (await http.post(f"{sandbox}/sandbox/faults", json={"fault_rate": rate})).raise_for_status()


async def enroll_three_lines(api: ApiClient) -> dict[str, Any]:
    ids = []
    for _ in range(3):
        issued = await api.call("/enrollment", body("check_service_availability"))
        ids.append(issued["data"]["enrollment_id"])
    return await api.call("/customer", create(ids[0], *(line(eid) for eid in ids)))


async def test_a_carrier_outage_raises_the_alert_pending_then_firing_and_the_slos_have_values(live):
    api, base, sandbox = live["api"], live["prometheus"], live["sandbox"]
    async with httpx.AsyncClient(timeout=5) as http:

        async def both_up() -> bool:
            targets = (await api_v1(http, base, "targets"))["activeTargets"]
            return sorted((t["labels"]["job"], t["health"]) for t in targets) == [
                ("lineup-api", "up"),
                ("lineup-worker", "up"),
            ]

        await until(both_up, "both targets up (the API's /metrics with its token, the worker's SDK endpoint)")
        assert not [a for a in (await api_v1(http, base, "alerts"))["alerts"] if a["labels"]["alertname"] == ALERT]
        healthy = await enroll_three_lines(api)  # the create's series exist before they move again
        assert healthy["msg_code"] == "RESTAPI000", healthy
        answered = time.time()

        async def scraped_since() -> bool:  # both targets scraped once as they are now
            result = (await api_v1(http, base, "query", query="min(timestamp(up))"))["result"]
            return bool(result) and float(result[0]["value"][1]) > answered

        await until(scraped_since, "a scrape of both targets after the healthy creates")

        await faults(sandbox, 1.0)
        try:
            created = await enroll_three_lines(api)
            assert created["msg_code"] == "RESTAPI000", created  # answered; the lines wait in STUCK
            seen: list[str] = []

            async def state_of_alert() -> bool:
                alerts = (await api_v1(http, base, "alerts"))["alerts"]
                states = [a["state"] for a in alerts if a["labels"]["alertname"] == ALERT]
                if states and (not seen or seen[-1] != states[0]):
                    seen.append(states[0])
                return "firing" in states

            await until(state_of_alert, f"{ALERT} firing", within=90)
            assert seen[0] == "pending" and seen[-1] == "firing", seen
        finally:
            await faults(sandbox, 0)

        async def recorded(name: str) -> float | None:
            result = (await api_v1(http, base, "query", query=name))["result"]
            value = float(result[0]["value"][1]) if result else None
            return None if value is None or math.isnan(value) else value  # NaN: no create counted yet

        ratio = await until(lambda: recorded("lineup:create_answered_without_outage:ratio_rate5m"), "the SLO ratio")
        assert ratio == 1.0  # the carrier's outage is the lines' to wait out, not an outage answer
        p99 = await until(lambda: recorded("lineup:create_latency_seconds:p99_5m"), "the create p99")
        assert 0 < p99 <= 30
        workers = (await api_v1(http, base, "query", query="lineup_workers_alive"))["result"]
        assert [float(sample["value"][1]) for sample in workers] == [1.0]
        polling = 'sum by (task_queue) (temporal_num_pollers{poller_type="workflow_task"})'  # LineupWorkerAbsent's
        assert float((await api_v1(http, base, "query", query=polling))["result"][0]["value"][1]) > 0
