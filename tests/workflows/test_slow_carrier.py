"""A carrier slower than the create's wait (issue 28, item 1): the channel hears "activation in progress" within
the wait, with the customer record and no number yet, and the line activates later in its own workflow with the
same key — one line at the carrier."""

from __future__ import annotations

import time

import pytest

from models.enrollment.actions import IN_PROGRESS
from tests.support.builders import create, line
from tests.support.lines import sandbox_lines, wait_for

SYNC_WAIT = 1


@pytest.mark.parametrize("settings_overrides", [{"sync_wait_seconds": SYNC_WAIT}])
async def test_a_carrier_slower_than_the_wait_is_answered_in_progress_and_the_line_activates_later(stack):
    enrollment_id = await stack.new_enrollment_id()
    await stack.faults(latency_ms=2500)  # every carrier call takes longer than the create waits
    try:
        began = time.monotonic()
        created = await stack.call("/customer", create(enrollment_id, line(enrollment_id)))
        waited = time.monotonic() - began
    finally:
        await stack.faults(latency_ms=0)
    assert created["msg_code"] == "RESTAPI000", created
    [entry] = created["data"]
    assert entry["msg"] == IN_PROGRESS and entry["data"]["customer_id"] and not entry["data"].get("mdn"), entry
    assert waited < SYNC_WAIT + 3  # answered within the wait (and the lookups' margin), not after the carrier
    assert await wait_for(stack, [enrollment_id], {"ACTIVE"}) == {enrollment_id: "ACTIVE"}
    assert len(await sandbox_lines(stack, enrollment_id)) == 1  # the late answer and the retry made one line
