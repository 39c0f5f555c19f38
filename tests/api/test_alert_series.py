"""The series issue 30's alert rules watch, on `GET /metrics`: pending ports by age, failing webhook endpoints
and live workers counted in the database at scrape time; `lineup_database_up` 0 (and a scrape that still
answers) while the database is away; answers in the outage class counted by action; the carrier's refusals;
a port's completion time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models.porting import PortIn
from models.support import WorkerHeartbeat
from models.types import utcnow
from tests.support import overview_rows as rows
from tests.support.builders import body, new_iccid
from tests.support.database_outage import UNREACHABLE_DB, database_at
from tests.support.metrics import moved, value
from tests.support.metrics import scrape_api as scrape
from tests.support.ports import FAST_POLLS, ported_line, query, wait_for_port
from tests.support.stuck_lines import PACED, stuck_on_a_sim_in_use

NO_CACHE = {"metrics_cache_seconds": 0}  # every scrape reads the database


@pytest.mark.parametrize("settings_overrides", [NO_CACHE])
async def test_pending_ports_failing_endpoints_and_live_workers_are_counted_at_scrape_time(api):
    queue = api.app.state.settings.temporal.task_queue
    empty = await scrape(api)
    assert value(empty, "lineup_workers_alive", task_queue=queue) == 0  # the own queue is always there
    assert value(empty, "lineup_webhook_endpoints_failing") == 0
    assert {band: value(empty, "lineup_ports_pending", age=band) for band in ("under_1h", "over_3d")} == {
        "under_1h": 0,
        "over_3d": 0,
    }
    assert value(empty, "lineup_database_up") == 1

    vendors = await rows.vendor_ids(api.db)
    now = utcnow()
    lines = [rows.line(rows.new_eid(), vendors[code], status="PORT_PENDING") for code in ("DEMO", "OTHER", "DEMO")]
    await rows.lines(api.db, lines)
    ages, statuses = (
        (timedelta(minutes=5), timedelta(days=4), timedelta(days=5)),
        ("SUBMITTED", "CONFIRMED", "COMPLETED"),
    )
    ports = [
        rows.port(line["enrollment_id"], status=status, carrier="VER", requested=now - age)
        for line, age, status in zip(lines, ages, statuses, strict=True)
    ]
    await rows.insert_rows(api.db, PortIn, ports)
    await rows.endpoint(api.db, vendors["OTHER"], failing_since=now - timedelta(minutes=3))
    await rows.endpoint(api.db, vendors["DEMO"], failing_since=now - timedelta(days=4), active=False)  # disabled
    beats = [
        {"identity": "1@host:q", "task_queue": queue, "seen_at": now},
        {"identity": "2@host:q", "task_queue": queue, "seen_at": now - timedelta(minutes=5)},  # stale
    ]
    await rows.insert_rows(api.db, WorkerHeartbeat, beats)

    text = await scrape(api)
    pending = {
        band: value(text, "lineup_ports_pending", age=band) for band in ("under_1h", "1h_to_24h", "1d_to_3d", "over_3d")
    }
    assert pending == {"under_1h": 1, "1h_to_24h": 0, "1d_to_3d": 0, "over_3d": 1}  # the completed one is final
    failing = {code: value(text, "lineup_webhook_endpoints_failing", vendor=code) for code in ("OTHER", "DEMO")}
    assert failing == {"OTHER": 1, "DEMO": 0}  # by vendor; DEMO's endpoint is disabled (issue 35)
    assert value(text, "lineup_workers_alive", task_queue=queue) == 1


@pytest.mark.parametrize("settings_overrides", [NO_CACHE])
async def test_a_scrape_while_the_database_is_away_answers_and_says_so(api):
    async with database_at(api, UNREACHABLE_DB):
        text = await scrape(api)
    assert value(text, "lineup_database_up") == 0
    assert "lineup_stuck_lines" not in text  # not a zero it did not count
    assert "lineup_requests_total" in text  # the process's own series are still there


async def test_an_answer_in_the_outage_class_is_counted_by_action(api):
    """No Temporal here: a device check is `The workflow engine is unavailable` (502/504 in rest mode)."""
    before = await scrape(api)
    answer = await api.call("/inventory", body("check_device_compatibility"))
    assert answer["msg_code"] == "RESTAPI110" and "unavailable" in answer["errors"][0], answer
    refused = await api.call("/plan", body("plan_list", plan_id="nope"))  # a refusal, not an outage
    assert refused["msg_code"] != "RESTAPI000"
    after = await scrape(api)
    assert moved(before, after, "lineup_outage_answers_total", action="check_device_compatibility") == 1
    assert moved(before, after, "lineup_outage_answers_total", action="plan_list") == 0


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_carrier_refusal_is_counted(stack):
    before = await scrape(stack)
    await stuck_on_a_sim_in_use(stack, new_iccid())
    assert moved(before, await scrape(stack), "lineup_carrier_refusals_total") == 1


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_completed_port_is_timed_from_its_submission(stack):
    before = await scrape(stack)
    enrollment_id, sim, number = await ported_line(stack)
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED")
    after = await scrape(stack)
    assert moved(before, after, "lineup_port_completion_seconds_count") == 1
    took = moved(before, after, "lineup_port_completion_seconds_sum")
    assert 3 <= took < 30  # the session's sandbox completes a port 4 s after its submission
