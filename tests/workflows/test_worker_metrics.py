"""The worker's Temporal SDK metrics: `worker.serve` connects with a runtime that serves them in Prometheus
format on LINEUP_WORKER_METRICS_PORT, and they describe the work this worker did."""

from __future__ import annotations

import asyncio
import secrets

from prometheus_client.parser import text_string_to_metric_families

from bench.ports import free_port
from models.types import with_check_digit
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.metrics import scrape
from worker import running_worker, serve


def task_queue_samples(text: str, task_queue: str) -> dict[str, float]:
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.labels.get("task_queue") == task_queue and not sample.labels.get("le")
    }


async def test_the_worker_serves_the_sdks_metrics_on_its_port(data_dir, sqlite_url, temporal_env, sandbox_url):
    port, queue = free_port(), f"lineup-test-{secrets.token_hex(4)}"
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=queue,
        worker_metrics_port=port,
        sweep_seconds=0,
        carrier_base_url=f"{sandbox_url}/carrier",
    )
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(settings, stop))
    try:
        await scrape(port)
        async with ApiClient.running(settings, temporal=temporal_env.client) as api:
            device = body("check_device_compatibility", imei=with_check_digit("35209908123450"))
            answer = await api.call("/inventory", device)
            assert answer["msg_code"] == "RESTAPI000", answer
        text = await scrape(port)
    finally:
        stop.set()
        await worker
    assert "# TYPE temporal_workflow_completed counter" in text
    ours = task_queue_samples(text, queue)
    assert ours["temporal_workflow_completed_total"] == 1  # the one lookup workflow this worker ran
    assert ours["temporal_activity_execution_latency_count"] == 1  # and its one carrier activity
    assert ours["temporal_worker_start_total"] == 1


def test_port_zero_turns_the_endpoint_off():
    from models.observability import temporal_runtime

    assert temporal_runtime(0) is None


async def test_the_worker_keeps_as_many_workflows_cached_as_its_setting_says(data_dir, sqlite_url, temporal_env):
    """LINEUP_WORKER_CACHED_WORKFLOWS (bench T5: the SDK's 1,000 made a worker with 10,000 pending ports 309 MB)."""
    for overrides, cached in (({}, 500), ({"worker_cached_workflows": 7}, 7)):
        settings = make_settings(
            data_dir,
            sqlite_url,
            temporal_task_queue=f"lineup-test-{secrets.token_hex(4)}",
            sweep_seconds=0,
            **overrides,
        )
        async with running_worker(settings, temporal_env.client) as worker:
            assert worker.config()["max_cached_workflows"] == cached
