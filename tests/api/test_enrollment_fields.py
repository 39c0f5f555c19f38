"""`/enrollment` check_service_availability and `/plan` plan_list: field rules, ZIPs outside the service,
unknown plans."""

from __future__ import annotations

import pytest

from tests.support.builders import body

NOT_SERVED = "We do not provide services at the users Zip Code"


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("zip_code", "30301", "3030", "Zip code must be exactly 5 digits"),
        ("zip_code", " 10001 ", "303011", "Zip code must be exactly 5 digits"),
        ("zip_code", "99501", "3030a", "Zip code must be exactly 5 digits"),
        ("zip_code", "00601", "", "Please enter Zip code"),
        ("enrollment_type", "NON_LIFELINE", "LIFELINE", "Enrollment type must be NON_LIFELINE"),
        ("is_enrollment", "Y", "N", "Is enrollment must be Y"),
    ],
)
async def test_check_service_availability_field_rule(api, field, good, bad, error):
    issued = await api.call("/enrollment", body("check_service_availability", **{field: good}))
    assert issued["msg_code"] == "RESTAPI000", issued
    refused_with(await api.call("/enrollment", body("check_service_availability", **{field: bad})), error)


async def test_check_service_availability_issues_a_new_id_for_the_zip(api):
    first = await api.call("/enrollment", body("check_service_availability", zip_code="30301"))
    second = await api.call("/enrollment", body("check_service_availability", zip_code="30301", enrollment_type=None))
    assert first["data"]["enrollment_id"] != second["data"]["enrollment_id"]
    assert first["data"]["enrollment_id"].isalnum() and len(first["data"]["enrollment_id"]) >= 16
    assert {key: first["data"][key] for key in ("zip_code", "state", "carriers")} == {
        "zip_code": "30301",
        "state": "GA",
        "carriers": ["TMB", "ATT", "VER"],
    }


@pytest.mark.parametrize("zip_code", ["00501", "09012", "96201"])
async def test_check_service_availability_zip_outside_the_service(api, zip_code):
    refused_with(await api.call("/enrollment", body("check_service_availability", zip_code=zip_code)), NOT_SERVED)


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("plan_id", "102", "abc", "Plan Id must be numeric"),
        ("plan_id", 103, "1" * 10, "Plan Id must be at most 9 digits"),
        ("zip_code", "30301", "3030", "Zip code must be exactly 5 digits"),
    ],
)
async def test_plan_list_field_rule(api, field, good, bad, error):
    listed = await api.call("/plan", body("plan_list", **{field: good}))
    assert listed["msg_code"] == "RESTAPI000", listed
    refused_with(await api.call("/plan", body("plan_list", **{field: bad})), error)


async def test_plan_list_one_plan_by_id(api):
    listed = await api.call("/plan", body("plan_list", plan_id="102"))
    assert listed["data"] == [
        {
            "plan_id": "102",
            "plan_code": "TMB-EVERYDAY-5G",
            "plan_name": "Everyday 5GB",
            "plan_description": "Unlimited talk & text, 5 GB high-speed data",
            "plan_price": "25.00",
            "display_price": "$25.00",
            "total_plan_price": "25.00",
            "carrier": "TMB",
            "talk": 0,
            "text": 0,
            "data": 5120,
            "minute_unlimited": "Y",
            "text_unlimited": "Y",
            "data_unlimited": "N",
            "is_unlimited_plan": "N",
            "is_familyplan": "N",
            "is_prepaid_postpaid": "PREPAID",
            "plan_expiry_days": 30,
            "plan_expiry_type": "DAYS",
            # An array of strings, one feature each (decisions.md, "Availability and plans").
            "display_features_description": ["Unlimited talk & text", "5 GB high-speed data"],
            "plan_discount_details": [],
            "autopay_discount": "0.00",
        }
    ]


async def test_plan_list_every_plans_features_are_an_array_of_strings(api):
    listed = await api.call("/plan", body("plan_list"))
    for plan in listed["data"]:
        features = plan["display_features_description"]
        assert isinstance(features, list) and features, plan
        assert all(isinstance(feature, str) and feature and "," not in feature for feature in features), plan
    unlimited = {plan["plan_id"]: plan["is_unlimited_plan"] for plan in listed["data"]}
    assert (unlimited["103"], unlimited["102"]) == ("Y", "N")  # unlimited data, and 5 GB


async def test_plan_list_unknown_plan_is_plans_not_found(api):
    refused_with(await api.call("/plan", body("plan_list", plan_id="999")), "Plans not found")


async def test_plan_list_zip_filter_lists_the_plans_sold_there(api):
    listed = await api.call("/plan", body("plan_list", zip_code="30301"))
    everything = await api.call("/plan", body("plan_list"))
    assert listed["msg_code"] == "RESTAPI000" and len(listed["data"]) >= 3
    assert listed["data"] == everything["data"]  # every covered ZIP sells every plan


@pytest.mark.parametrize("zip_code", ["00501", "09012"])
async def test_plan_list_zip_outside_the_service(api, zip_code):
    refused_with(await api.call("/plan", body("plan_list", zip_code=zip_code)), NOT_SERVED)
