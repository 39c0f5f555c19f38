"""The operations the original's channels rely on beyond the interface's 13 (decisions.md): validate_portin,
company_carrier_list, payment_details, and eSIM lines; each against the carrier sandbox, with a bad value
and another vendor's ids."""

from __future__ import annotations

import base64

import pytest
from sqlmodel import select

from models.enrollment.lines import Line
from tests.support.builders import body, create, line, new_iccid


@pytest.mark.parametrize(
    ("number", "eligible", "carrier"),
    [("4045551230", "Y", "ATT"), ("4045551234", "Y", "TMB"), ("4045551237", "Y", "VER"), ("4045551239", "Y", "USC")],
)
async def test_validate_portin_gives_the_current_carrier(shared_stack, number, eligible, carrier):
    answer = await shared_stack.call("/port", body("validate_portin", port_number=number, zip_code="30301"))
    assert answer["msg_code"] == "RESTAPI000", answer
    data = answer["data"]
    assert (data["port_number"], data["eligible"], data["current_carrier"]) == (number, eligible, carrier)
    assert data["current_carrier_name"] and "reason" not in data


async def test_validate_portin_a_number_ending_98_is_not_portable(shared_stack):
    answer = await shared_stack.call("/port", body("validate_portin", port_number="4045551298"))
    assert (answer["data"]["eligible"], answer["data"]["reason"]) == ("N", "Number is not portable")


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        (
            {"port_number": "1045551234"},
            "Port number must be 10 digits; area code and exchange may not start with 0 or 1",
        ),
        ({"port_number": ""}, "Please enter Port number"),
        ({"port_number": "4045551234", "zip_code": "3030"}, "Zip code must be exactly 5 digits"),
    ],
)
async def test_validate_portin_field_rules(api, fields, error):
    refused = await api.call("/port", body("validate_portin", **fields))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])


async def test_company_carrier_list_gives_the_carriers_ids(shared_stack):
    answer = await shared_stack.call("/enrollment", body("company_carrier_list"))
    assert answer["msg_code"] == "RESTAPI000", answer
    carriers = {entry["carrier"]: entry for entry in answer["data"]}
    assert set(carriers) == {"ATT", "TMB", "VER", "SPR", "TMBRLY", "USC"}
    assert all(entry["carrier_id"].isdigit() and entry["carrier_name"] for entry in carriers.values())
    tmb = carriers["TMB"]["carrier_id"]
    # query_portin takes the id where it takes the abbreviation (the match is by order, not by carrier).
    refused = await shared_stack.call(
        "/port",
        body("query_portin", enroll_id="ENOSUCH", esn=new_iccid(), mdn="4045551234", carrier=int(tmb)),
    )
    assert refused["errors"] == ["No port-in order matches this enrollment id, ESN and MDN"]


async def test_payment_details_are_the_figures_make_payment_charges(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    details = await shared_stack.call("/payment", body("payment_details", plan_id="102", enrollment_id=enrollment_id))
    assert details["msg_code"] == "RESTAPI000", details
    by_zip = await shared_stack.call("/payment", body("payment_details", plan_id=102, zip_code="30301"))
    assert by_zip["data"] == details["data"]
    data = details["data"]
    assert (data["state"], data["plan"]["plan_id"], data["plan"]["plan_price"]) == ("GA", "102", "25.00")
    assert sum(float(tax["tax_amount"]) for tax in data["plan"]["tax_breakup"]) == pytest.approx(
        float(data["total_tax"])
    )
    paid = await shared_stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, plan_id="102"))
    assert paid["msg_code"] == "RESTAPI000", paid
    charged = paid["data"]
    assert (charged["amount"], charged["plan_tax"], charged["total_amount"]) == (
        data["total_actual_amount"],
        data["total_tax"],
        data["total_amount"],
    )


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"zip_code": None}, "Please enter Zip code or Enrollment Id"),
        ({"zip_code": "99999x"}, "Zip code must be exactly 5 digits"),
        ({"plan_id": "9999"}, "Plans not found"),
        ({"zip_code": "00000"}, "We do not provide services at the users Zip Code"),
    ],
)
async def test_payment_details_refusals(shared_stack, fields, error):
    refused = await shared_stack.call(
        "/payment", body("payment_details", **{"plan_id": "102", "zip_code": "30301", **fields})
    )
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])


async def test_payment_details_of_another_vendors_enrollment_is_refused(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    request = body("payment_details", plan_id="102", enrollment_id=enrollment_id, agent_id="other.agent")
    refused = await shared_stack.call("/payment", request, vendor="OTHER")
    assert refused["errors"] == [f"Invalid enrollment id {enrollment_id}. Please provide a valid enrollment ID."]


async def test_an_esim_line_gets_its_profile(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call(
        "/customer", create(enrollment_id, line(enrollment_id, is_esim="Y", phone_type="4G"))
    )
    assert created["msg_code"] == "RESTAPI000", created
    entry = created["data"][0]["data"]
    esim = entry["esim"]
    assert esim["ICCID"].startswith("89") and len(esim["ICCID"]) in (19, 20)
    assert esim["ACTIVATION_CODE"].startswith("LPA:1$")
    assert esim["QR_ACTIVATION_CODE"] == esim["ACTIVATION_CODE"]  # the QR's text; tests/api/test_esim.py reads the QR
    prefix = "data:image/png;base64,"
    assert base64.b64decode(esim["QR_CODE_IMAGE"].removeprefix(prefix)).startswith(b"\x89PNG")
    async with shared_stack.db.transaction() as session:
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
    assert stored.is_esim and stored.iccid == esim["ICCID"]
    assert esim["ACTIVATION_CODE"] not in (stored.esim_profile or "")  # sealed at rest
    inquiry = await shared_stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["LINE_INQ"]["SIM_NUMBER"] == esim["ICCID"]


async def test_an_esim_line_needs_no_sim_and_a_physical_line_still_does(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    without_sim = line(enrollment_id, phone_type="4G", activation_later="Y", password=None)
    refused = await shared_stack.call("/customer", create(enrollment_id, without_sim))
    assert refused["errors"] == ["Line 1: UICCID is required for phone type 4G"]
