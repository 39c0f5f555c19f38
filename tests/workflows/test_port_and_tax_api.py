"""query_portin, update_portin and the tax status operation against a real worker and the sandbox
(ports complete 4 s after submission there; Lineup polls every half second here)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from temporalio.client import WorkflowExecutionDescription
from temporalio.common import TypedSearchAttributes

from models.payment import TaxReceipt
from tests.support.builders import body, new_iccid
from tests.support.ports import FAST_POLLS, port_number, ported_line, query, wait_for_port
from tests.support.taxes import paid_calculation, tax
from tests.support.waiting import eventually
from tests.support.worker_process import kill, own_queue, worker_process
from workflows.enrollment import LINE_STATUS, MDN


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_query_portin_follows_the_port_to_completed_and_the_line_takes_the_number(stack):
    enrollment_id, sim, number = await ported_line(stack)
    pending = await stack.call("/port", query(enrollment_id, sim, number))
    assert pending["msg"] in ("Port-in status: SUBMITTED", "Port-in status: CONFIRMED")
    done = await wait_for_port(stack, query(enrollment_id, sim, number, carrier="4"), "COMPLETED")
    assert done["msg"] == "Port-in status: COMPLETED"
    record = done["data"]["records"][0]
    assert set(record) == {
        "portin_status",
        "resolution_description",
        "carrier_response",
        "request_datetime",
        "response_datetime",
    }
    assert record["request_datetime"] and record["response_datetime"]

    async def shown() -> TypedSearchAttributes:  # the port's workflow holds a PORTIN line to its end
        described: WorkflowExecutionDescription = await stack.env.client.get_workflow_handle(
            f"port-{enrollment_id}"
        ).describe()
        return described.typed_search_attributes

    # The line takes the number in the port's last activity; the workflow then shows it in the Temporal UI.
    attributes = await eventually(shown, lambda found: found.get(LINE_STATUS) == "ACTIVE", what="the line ACTIVE")
    assert attributes.get(MDN) == number
    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["MDN"] == number and inquiry["data"]["LINE_INQ"]["STATUSCODE"] == "00"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_query_portin_must_name_one_port_order(stack):
    enrollment_id, sim, number = await ported_line(stack)
    for wrong in ({"esn": new_iccid()}, {"mdn": port_number()}, {"enroll_id": "ENOSUCHORDER"}):
        refused = await stack.call("/port", query(enrollment_id, sim, number, **wrong))
        assert refused["errors"] == ["No port-in order matches this enrollment id, ESN and MDN"], wrong
    bad = await stack.call("/port", query(enrollment_id, sim, number, carrier="XYZ"))
    assert bad["errors"] == ["Carrier must be a numeric carrier id or one of SPR, TMB, VER, ATT"]
    numeric = await stack.call("/port", query(enrollment_id, sim, number, carrier=4))
    assert numeric["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_query_portin_with_a_blank_esn_finds_the_port_by_enroll_id_and_mdn(stack):
    """decisions.md `query_portin`: mobile channels send `"esn": ""`; the order is then named by its enrollment
    id and number alone (a blank is no ESN, so an absent one too), and still by both."""
    enrollment_id, sim, number = await ported_line(stack)
    for esn in ("", "   ", None):
        found = await stack.call("/port", query(enrollment_id, sim, number, esn=esn))
        assert found["msg_code"] == "RESTAPI000" and found["msg"].startswith("Port-in status: "), (esn, found)
    for wrong in ({"mdn": port_number()}, {"enroll_id": "ENOSUCHORDER"}):
        refused = await stack.call("/port", query(enrollment_id, sim, number, esn="", **wrong))
        assert refused["errors"] == ["No port-in order matches this enrollment id, ESN and MDN"], wrong
    bad = await stack.call("/port", query(enrollment_id, sim, number, esn="123"))
    assert bad["errors"] == ["ESN must be a valid SIM, IMEI, MEID or ESN"]
    other = {"agent_id": "other.agent"}
    theirs = await stack.call("/port", {**query(enrollment_id, sim, number, esn=""), **other}, vendor="OTHER")
    assert theirs["errors"] == ["No port-in order matches this enrollment id, ESN and MDN"]  # names nothing


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_resolution_required_port_is_corrected_with_update_portin(stack):
    enrollment_id, sim, number = await ported_line(stack, port_account_number="ACC0000")
    needing = await wait_for_port(stack, query(enrollment_id, sim, number), "RESOLUTION_REQUIRED")
    assert needing["data"]["records"][0]["resolution_description"] == "Account number required or incorrect"
    assert "ACC0000" not in str(needing)
    corrected = await stack.call(
        "/port", body("update_portin", enroll_id=enrollment_id, port_account_number="ACC12345")
    )
    assert corrected["msg_code"] == "RESTAPI000", corrected
    assert corrected["data"] == {"enroll_id": enrollment_id, "portin_status": "SUBMITTED"}
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED")
    refused = await stack.call("/port", body("update_portin", enroll_id=enrollment_id, port_account_number="ACC1"))
    assert refused["errors"] == [
        "The port-in is COMPLETED; corrections are accepted only when it is RESOLUTION_REQUIRED"
    ]


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_update_portin_needs_a_correction_and_a_known_order(stack):
    empty = await stack.call("/port", body("update_portin", enroll_id="EABC"))
    assert empty["errors"] == ["Please provide at least one corrected port field"]
    unknown = await stack.call("/port", body("update_portin", enroll_id="EABC", port_zip_code="30301"))
    assert unknown["errors"] == ["No port-in order found for this enrollment id"]
    bad = await stack.call("/port", body("update_portin", enroll_id="EABC", port_zip_code="3030"))
    assert bad["errors"] == ["Port zip code must be exactly 5 digits"]


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_poll_the_carrier_does_not_answer_is_logged_and_polling_goes_on(stack, caplog):
    enrollment_id, sim, number = await ported_line(stack)

    async def failed_polls() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "status poll failed" in r.getMessage()]

    await stack.faults(fault_rate=1.0)
    try:
        with caplog.at_level(logging.WARNING, logger="temporalio.activity"):
            failed = await eventually(failed_polls, lambda found: len(found) >= 2, what="two failed polls")
    finally:
        await stack.faults(fault_rate=0)
    assert all(f"port {enrollment_id} status poll failed" in r.getMessage() for r in failed)
    assert not any(r.exc_info for r in caplog.records)  # one compact line per failed poll, no traceback
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED")


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_ineligible_number_is_rejected_at_submission(stack):
    enrollment_id, sim, number = await ported_line(stack, port_number=port_number("98"))
    rejected = await wait_for_port(stack, query(enrollment_id, sim, number), "REJECTED")
    assert "not eligible" in rejected["data"]["records"][0]["carrier_response"]


async def test_tax_sequence_temporary_final_final_temporary(stack):
    calc_id = await paid_calculation(stack)
    temporary = await stack.call("/payment", tax(calc_id, "temporary"))
    assert temporary["msg_code"] == "RESTAPI000", temporary
    assert set(temporary["data"]) == {"STATUSCODE", "DESCRIPTION", "CALCID", "REFERENCENUMBER"}
    assert temporary["data"]["CALCID"] == calc_id and temporary["data"]["STATUSCODE"] == "00"
    final = await stack.call("/payment", tax(calc_id, "final"))
    again = await stack.call("/payment", tax(calc_id, "final"))
    assert final["data"]["REFERENCENUMBER"] and again["data"] == final["data"]
    late = await stack.call("/payment", tax(calc_id, "temporary"))
    assert late["msg_code"] == "RESTAPI110"
    assert late["errors"] == [f"Tax calculation {calc_id} is already final; a temporary collection is refused"]
    history = [e async for e in stack.env.client.get_workflow_handle(f"tax-{calc_id}").fetch_history_events()]
    accepted = [e for e in history if e.HasField("workflow_execution_update_accepted_event_attributes")]
    assert len(accepted) == 2  # the refused update never reached history; the repeated final is answered


async def collect_keys(stack: Any, calc_id: str) -> list[str]:
    """The Idempotency-Keys the tax workflow's collect_tax activities were scheduled with, in order."""
    keys = []
    client = stack.env.client
    async for event in client.get_workflow_handle(f"tax-{calc_id}").fetch_history_events():
        scheduled = event.activity_task_scheduled_event_attributes
        if event.HasField("activity_task_scheduled_event_attributes") and scheduled.activity_type.name == "collect_tax":
            [argument] = await client.data_converter.decode(scheduled.input.payloads)  # payloads are encrypted
            keys.append(argument["key"])
    return keys


async def test_each_collection_has_its_own_idempotency_key(stack):
    calc_id = await paid_calculation(stack)
    for status in ("temporary", "temporary", "final"):
        assert (await stack.call("/payment", tax(calc_id, status)))["msg_code"] == "RESTAPI000"
    keys = await collect_keys(stack, calc_id)
    assert len(keys) == len(set(keys)) == 3 and all(k.startswith(f"tax-{calc_id}-") for k in keys)


@pytest.mark.parametrize("settings_overrides", [{"tax_idle_days": 2 / 86400}])
async def test_a_tax_workflow_left_idle_ends_and_the_next_update_starts_it_again(stack):
    calc_id = await paid_calculation(stack)
    temporary = await stack.call("/payment", tax(calc_id, "temporary"))
    assert temporary["msg_code"] == "RESTAPI000", temporary
    handle = stack.env.client.get_workflow_handle(f"tax-{calc_id}", result_type=TaxReceipt)
    ended = await asyncio.wait_for(handle.result(), timeout=15)  # two idle seconds, then it ends
    assert ended.status == "COLLECTED_TEMPORARY"
    final = await stack.call("/payment", tax(calc_id, "final"))
    assert final["msg_code"] == "RESTAPI000", final
    assert final["data"]["REFERENCENUMBER"] != temporary["data"]["REFERENCENUMBER"]
    restarted = await stack.env.client.get_workflow_handle(f"tax-{calc_id}", result_type=TaxReceipt).result()
    assert restarted.status == "COLLECTED_FINAL"
    assert (await stack.call("/payment", tax(calc_id, "final")))["data"] == final["data"]


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"status": "done"}, "Status must be temporary or final"),
        ({"iccid": "12345"}, "ICCID must be 18 to 22 digits"),
        ({"calc_id": "TXNOSUCH"}, "Calculation not found"),
    ],
)
async def test_tax_status_rules(stack, overrides, error):
    calc_id = await paid_calculation(stack)
    refused = await stack.call("/payment", tax(calc_id, "temporary", **overrides))
    assert refused["errors"] == [error]
    assert (await stack.call("/payment", tax(calc_id, "temporary")))["msg_code"] == "RESTAPI000"


async def test_tax_calculation_of_another_vendor_is_not_found(stack):
    calc_id = await paid_calculation(stack)
    other = await stack.call("/payment", tax(calc_id, "final", agent_id="other.agent"), vendor="OTHER")
    assert other["errors"] == ["Calculation not found"]


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_worker_restart_in_the_middle_of_a_port_and_a_tax_collection(stack):
    own_queue(stack, "restart")
    with worker_process(stack) as first:
        calc_id = await paid_calculation(stack)
        assert (await stack.call("/payment", tax(calc_id, "temporary")))["msg_code"] == "RESTAPI000"
        enrollment_id, sim, number = await ported_line(stack)
        kill(first)  # returns once the process is gone: the next one starts as a restart would
        with worker_process(stack):
            await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED", within=60)
            final = await stack.call("/payment", tax(calc_id, "final"))
            assert final["msg_code"] == "RESTAPI000", final
