"""A carrier outage is expected and retried: each failed attempt logs one compact line (system, reason,
activity, attempt; no traceback), the SDK's own failure record is BENIGN (DEBUG, not a WARNING with a trace),
and the outage is counted in `lineup_outside_unavailable_total` (issue 19, finding 16)."""

from __future__ import annotations

import asyncio
import logging
import secrets

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bench.ports import free_port
from models.types import with_check_digit
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.metrics import scrape
from worker import serve

DEVICE = body("check_device_compatibility", imei=with_check_digit("35209908123450"))


def carrier_outages() -> float:
    return REGISTRY.get_sample_value("lineup_outside_unavailable_total", {"system": "carrier"}) or 0.0


@pytest.mark.parametrize("settings_overrides", [{"lookup_budget_seconds": 2.5}])
async def test_a_carrier_outage_logs_one_line_per_attempt_no_traceback_and_counts(stack, caplog):
    caplog.set_level(logging.INFO)
    before = carrier_outages()
    await stack.faults(fault_rate=1.0)
    try:
        answer = await stack.call("/inventory", DEVICE)
    finally:
        await stack.faults(fault_rate=0)
    assert answer["errors"] == ["The carrier is unavailable, please try again later"], answer

    attempts = [record for record in caplog.records if record.getMessage() == "outside system unavailable"]
    assert len(attempts) >= 2  # retried within the lookup's budget
    assert [record.levelname for record in attempts] == ["WARNING"] * len(attempts)
    first = attempts[0].fields
    assert (first["system"], first["reason"], first["attempt"]) == ("carrier", "HTTP 503", 1)
    assert first["activity"] and first["workflow_id"]
    traced = [record for record in caplog.records if record.exc_info and record.levelno >= logging.INFO]
    assert traced == [], [record.getMessage() for record in traced]
    assert carrier_outages() - before == len(attempts)


async def test_the_workers_metrics_endpoint_counts_outages_by_task_queue(
    data_dir, sqlite_url, temporal_env, sandbox_url
):
    """The worker's own process counts them where its metrics are scraped: LINEUP_WORKER_METRICS_PORT."""
    port, queue = free_port(), f"lineup-test-{secrets.token_hex(4)}"
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=queue,
        worker_metrics_port=port,
        sweep_seconds=0,
        lookup_budget_seconds=1.5,
        carrier_base_url=f"{sandbox_url}/carrier",
    )
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(settings, stop))
    try:
        await scrape(port)
        async with ApiClient.running(settings, temporal=temporal_env.client) as api:
            await set_faults(sandbox_url, fault_rate=1.0)
            try:
                answer = await api.call("/inventory", DEVICE)
            finally:
                await set_faults(sandbox_url, fault_rate=0)
        assert answer["msg_code"] == "RESTAPI110", answer
        text = await scrape(port)
    finally:
        stop.set()
        await worker
    counted = [
        sample
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "lineup_outside_unavailable_total" and sample.labels.get("task_queue") == queue
    ]
    assert [sample.labels["system"] for sample in counted] == ["carrier"]
    assert counted[0].value >= 2


async def set_faults(sandbox_url: str, **values: float) -> None:
    async with httpx.AsyncClient() as http:
        (await http.post(f"{sandbox_url}/sandbox/faults", json=values)).raise_for_status()


@pytest.mark.parametrize("settings_overrides", [{"webhook_max_backoff_seconds": 1.0}])
async def test_a_carrier_refusal_and_failed_webhook_deliveries_log_one_line_each_no_traceback(stack, caplog):
    """Issue 27, finding 12: expected outside failures are no defects. A line the carrier refuses (915, its SIM is
    active elsewhere) and deliveries a receiver fails each log one WARNING line with the reason; the SDK's own
    record of the failure is BENIGN (DEBUG), so no traceback anywhere."""
    from sqlmodel import select

    from models.events import WebhookDelivery
    from tests.support.builders import create, line, new_iccid
    from tests.support.lines import wait_for
    from tests.support.webhooks import receiver, register

    caplog.set_level(logging.DEBUG)
    await register(stack)
    await receiver(stack, fail=True)
    try:
        sim = new_iccid()
        first, second = await stack.new_enrollment_id(), await stack.new_enrollment_id()
        assert (await stack.call("/customer", create(first, line(first, uiccid=sim))))["msg_code"] == "RESTAPI000"
        await wait_for(stack, [first], {"ACTIVE"})
        assert (await stack.call("/customer", create(second, line(second, uiccid=sim))))["msg_code"] == "RESTAPI000"
        await wait_for(stack, [second], {"STUCK"})
        for _ in range(100):  # deliveries fail, and are retried
            async with stack.db.transaction() as session:
                if (await session.exec(select(WebhookDelivery).where(WebhookDelivery.attempts > 1))).first():
                    break
            await asyncio.sleep(0.2)
    finally:
        await receiver(stack, fail=False)
    refused = [record for record in caplog.records if record.getMessage() == "outside system refused"]
    assert refused and all(record.levelname == "WARNING" for record in refused)
    assert (refused[0].fields["code"], refused[0].fields["reason"]) == ("915", "SIM already in use")
    assert second in refused[0].fields["workflow_id"]
    failed = [record for record in caplog.records if record.getMessage() == "webhook delivery failed"]
    assert len(failed) >= 2 and all(record.levelname == "WARNING" for record in failed)
    assert failed[0].fields["reason"].startswith("HTTP 5")
    traced = [record for record in caplog.records if record.exc_info and record.levelno >= logging.INFO]
    assert traced == [], [(record.name, record.getMessage()) for record in traced]
