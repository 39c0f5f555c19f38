"""Support sees every line waiting for it, the STUCK ones and those intake left RECEIVED while the workflow
engine was away, and resumes them one at a time or in bulk (by error, by age), only its own vendor's."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from typer.testing import CliRunner

from api import support as ops
from cli.main import app as cli
from models.settings import get_settings
from models.support import NEVER_STARTED, claim_retries
from tests.support.app import reconfigure
from tests.support.builders import body, new_iccid
from tests.support.keys import TEST_ENCRYPTION_KEY
from tests.support.left_behind import NOW, created_while_temporal_was_away, sweep_now
from tests.support.lines import SUPPORT, lines_by_status, wait_for
from tests.support.stuck_lines import PACED, SIM_IN_USE, stuck_in_an_outage, stuck_on_a_sim_in_use


async def listed(stack) -> dict[str, tuple[str, str]]:
    answer = await stack.call("/ops", body("list_stuck_enrollments", **SUPPORT))
    assert answer["msg_code"] == "RESTAPI000", answer
    return {entry["enrollment_id"]: (entry["status"], entry["last_error"]) for entry in answer["data"]}


async def retry(stack, **fields: Any) -> dict[str, Any]:
    answer: dict[str, Any] = await stack.call("/ops", body("retry_enrollment", **SUPPORT, **fields))
    assert answer["msg_code"] == "RESTAPI000", answer
    return answer["data"]  # type: ignore[no-any-return]


async def test_lines_left_received_are_listed_once_past_the_grace_and_a_retry_starts_their_order(stack):
    parent, second = await created_while_temporal_was_away(stack)
    reconfigure(stack.app, sweep_grace_seconds=3600)
    assert parent not in await listed(stack)  # within the grace its own request may still be starting it
    reconfigure(stack.app, sweep_grace_seconds=0)
    assert await listed(stack) == {parent: ("RECEIVED", NEVER_STARTED), second: ("RECEIVED", NEVER_STARTED)}

    assert await retry(stack, enrollment_id=second) == {"enrollment_id": second, "status": "STARTED"}
    assert set((await wait_for(stack, [parent, second], {"ACTIVE"})).values()) == {"ACTIVE"}  # the whole order
    assert await listed(stack) == {}
    again = await stack.call("/ops", body("retry_enrollment", enrollment_id=second, **SUPPORT))
    assert again["errors"] == [f"Enrollment {second} is not stuck (status ACTIVE)"]


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_bulk_retry_by_error_and_by_age_resumes_only_the_vendors_matching_lines(stack, monkeypatch):
    sim = new_iccid()
    on_sim = await stuck_on_a_sim_in_use(stack, sim)
    other_vendors = await stuck_on_a_sim_in_use(stack, new_iccid(), vendor="OTHER")
    in_outage = await stuck_in_an_outage(stack)
    waiting = await listed(stack)
    assert waiting.keys() == {on_sim, *in_outage} and waiting[on_sim] == ("STUCK", SIM_IN_USE)

    assert await retry(stack, all_stuck="Y", stuck_minutes=60) == {"retried": [], "remaining": 0}  # none that old
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})  # support freed the SIM
    assert await retry(stack, all_stuck="Y", error_contains="sim ALREADY") == {"retried": [on_sim], "remaining": 0}
    await wait_for(stack, [on_sim], {"ACTIVE"})

    monkeypatch.setattr(ops, "MOST_RETRIED", 1)  # one line a call: the answer says how many are left
    first = await retry(stack, all_stuck="Y")
    assert first["remaining"] == 1 and len(first["retried"]) == 1
    await wait_for(stack, first["retried"], {"ACTIVATING", "ACTIVE"})  # it has taken the retry: no longer waiting
    second = await retry(stack, all_stuck="Y")
    assert second["remaining"] == 0 and {*first["retried"], *second["retried"]} == set(in_outage)
    await wait_for(stack, in_outage, {"ACTIVE"})
    assert await retry(stack, all_stuck="Y") == {"retried": [], "remaining": 0}
    assert (await lines_by_status(stack, [other_vendors]))[other_vendors] == "STUCK"  # OTHER's support retries it


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_retry_whose_signal_never_left_is_stuck_again_after_the_grace_and_retried(stack):
    sim = new_iccid()
    stuck = await stuck_on_a_sim_in_use(stack, sim)
    async with stack.db.transaction() as session:  # the API's RETRYING write, then it died before the signal
        assert await claim_retries(session, [stuck]) == {stuck}
    await sweep_now(stack, replace(NOW, grace_seconds=3600))  # within the grace the signal may be on its way
    assert (await lines_by_status(stack, [stuck]))[stuck] == "RETRYING"
    refused = await stack.call("/ops", body("retry_enrollment", enrollment_id=stuck, **SUPPORT))
    assert refused["errors"] == [f"Enrollment {stuck} is already being retried"]

    await sweep_now(stack)  # past the grace: nothing will move it, so it waits for support again
    assert await listed(stack) == {stuck: ("STUCK", SIM_IN_USE)}
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})
    assert await retry(stack, enrollment_id=stuck) == {"enrollment_id": stuck, "status": "RETRYING"}
    await wait_for(stack, [stuck], {"ACTIVE"})


async def lineup(*args: str) -> Any:
    """`lineup ARGS` in a thread of its own (the command runs its own event loop)."""
    get_settings.cache_clear()
    try:
        return await asyncio.to_thread(CliRunner().invoke, cli, list(args))
    finally:
        get_settings.cache_clear()


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_lineup_ops_lists_and_retries_the_waiting_lines_of_every_vendor(stack, monkeypatch):
    never_started = await created_while_temporal_was_away(stack)
    sim = new_iccid()
    on_sim = await stuck_on_a_sim_in_use(stack, sim, vendor="OTHER")
    settings = stack.app.state.settings
    for name, value in {
        "DATABASE_URL": settings.db_url,
        "DATA_DIR": str(settings.data_dir),
        "SWEEP_GRACE_SECONDS": "0",
        "TEMPORAL_ADDRESS": settings.temporal.address,
        "TEMPORAL_TASK_QUEUE": settings.temporal.task_queue,
        "ENCRYPTION_KEY": TEST_ENCRYPTION_KEY,  # the key of the stack's payloads, as every process shares it
    }.items():
        monkeypatch.setenv(f"LINEUP_{name}", value)

    listing = await lineup("ops", "stuck")
    rows = [row.split("\t") for row in listing.output.splitlines()]
    assert {row[0]: row[3] for row in rows} == {**dict.fromkeys(never_started, NEVER_STARTED), on_sim: SIM_IN_USE}

    assert (await lineup("ops", "retry")).exit_code == 2  # a line, or --all
    assert (await lineup("ops", "retry", "--all", "--older-than", "60")).output == "0 lines retried\n"
    started = await lineup("ops", "retry", "--all", "--error", "NEVER started")
    *retried, summary = started.output.splitlines()
    assert (sorted(retried), summary) == (sorted(f"retried {line_id}" for line_id in never_started), "2 lines retried")
    await wait_for(stack, never_started, {"ACTIVE"})

    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})
    assert (await lineup("ops", "retry", on_sim)).output == f"retried {on_sim}\n"
    await wait_for(stack, [on_sim], {"ACTIVE"})
    refused = await lineup("ops", "retry", on_sim)
    assert (refused.exit_code, refused.output) == (1, f"Enrollment {on_sim} is not stuck (status ACTIVE)\n")
