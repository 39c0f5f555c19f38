"""EnrollmentActivities.activate_all_and_record, an order's first try of all its lines' activations, on both
engines (its two statements are built for any number of lines): two transactions whatever the number of lines, a
retry that repeats nothing, each line's outcome its own."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from models.enrollment.lines import CarrierCall, FirstTries, LineStatus
from tests.support.app import make_settings
from tests.support.builders import new_iccid
from tests.support.lines import activated_once, event_types, stored_line
from tests.support.received import carrier_down, carrier_lines, received, with_customer
from tests.support.statements import counted


@pytest.fixture
def settings(data_dir: Any, db_url: str, settings_overrides: dict[str, Any]) -> Any:
    """SQLite, then PostgreSQL."""
    return make_settings(data_dir, db_url, **settings_overrides)


async def test_an_orders_first_try_activates_ten_lines_in_two_transactions_and_a_retry_repeats_nothing(
    api, activities, sandbox_url
):
    ids = await received(api, *({} for _ in range(10)))
    tries = FirstTries([CarrierCall(eid, "DEMO", f"line-{eid}:activate:0") for eid in ids])
    with counted() as seen:
        outcomes = await ActivityEnvironment().run(activities.activate_all_and_record, tries)
    assert [outcome.enrollment_id for outcome in outcomes] == ids
    assert all(outcome.activated and outcome.refused is None for outcome in outcomes)
    # Two writes whatever the number of lines: all ACTIVATING, then all recorded with their events (intake's hash
    # of the lines' password, written after its answer, may land here: left out).
    mine = seen.without("SET password_hash")
    assert mine.transactions == 2, mine.texts
    assert sum(text.startswith("UPDATE line") for text in mine.texts) == 2, mine.texts
    again = await ActivityEnvironment().run(activities.activate_all_and_record, tries)  # its answer was lost
    assert again == outcomes
    for eid, outcome in zip(ids, outcomes, strict=True):
        await activated_once(api, sandbox_url, eid, outcome.activated)


async def test_a_refused_line_of_an_orders_first_try_fails_none_of_the_others(api, activities):
    sim = new_iccid()
    holder = await with_customer(api, phone_type="4G", uiccid=sim)
    await ActivityEnvironment().run(activities.activate_and_record, CarrierCall(holder, "DEMO", f"{holder}:0"))
    refused, fine = await received(api, {"phone_type": "4G", "uiccid": sim}, {})
    tries = FirstTries([CarrierCall(eid, "DEMO", f"{eid}:0") for eid in (refused, fine)])
    first, second = await ActivityEnvironment().run(activities.activate_all_and_record, tries)
    assert (first.activated, first.refused) == (None, "915 SIM already in use")
    assert second.activated is not None and second.refused is None
    assert (await event_types(api, refused))[-1] == "line.carrier_refused"
    assert (await stored_line(api, refused)).status == LineStatus.ACTIVATING  # its order makes it STUCK
    assert (await stored_line(api, fine)).status == LineStatus.ACTIVE


async def test_a_carrier_outage_leaves_every_line_of_a_first_try_to_be_tried_again(api, activities, sandbox_url):
    ids = await received(api, {}, {})
    tries = FirstTries([CarrierCall(eid, "DEMO", f"{eid}:0") for eid in ids])
    async with carrier_down(sandbox_url):
        outcomes = await ActivityEnvironment().run(activities.activate_all_and_record, tries)
    assert [(outcome.activated, outcome.refused) for outcome in outcomes] == [(None, None)] * 2
    assert [await carrier_lines(sandbox_url, eid) for eid in ids] == [[], []]
