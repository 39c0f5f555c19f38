"""Hardening of the boundary (issue 12, findings 1 and 3): every list bounded before its items are checked,
at most 50 problems in one answer, every string bounded by where it is kept, and text that is not Unicode
(lone surrogates) refused with a field error, never a 500."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.support.builders import body, create, line

SURROGATE = "\\udc80"  # as JSON carries it: a lone low surrogate, valid JSON, not Unicode


async def post_raw(api: Any, path: str, text: str, *, token: str | None = None) -> dict[str, Any]:
    headers = {"content-type": "application/json", **({"token": token} if token else {})}
    answer: dict[str, Any] = (await api.http.post(path, content=text.encode(), headers=headers)).json()
    return answer


async def test_a_hundred_thousand_lines_are_one_cheap_refusal(api):
    request = create("EPARENT", *([{}] * 100_000))
    started = time.monotonic()
    refused = await api.call("/customer", request)
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Lines must hold at most 100 lines"])
    assert (await api.http.get("/healthz")).status_code == 200
    assert time.monotonic() - started < 10  # (26 s before; the assertion above is what proves the bound)


async def test_the_deployments_line_limit_is_checked_before_any_line_is_stored(api):
    refused = await api.call("/customer", create("EPARENT", *(line(f"E{i}") for i in range(11))))
    assert refused["errors"] == ["Lines must hold at most 10 lines"]


async def test_one_answer_names_at_most_50_problems(api):
    bad = [line(f"E{i}", email="x", service_zip="1", plan_id="x") for i in range(30)]
    refused = await api.call("/customer", create("EPARENT", *bad))
    assert refused["msg_code"] == "RESTAPI010"
    assert len(refused["errors"]) == 51 and refused["errors"][-1] == "… and 40 more problems"


@pytest.mark.parametrize(
    ("path", "action", "field", "limit"),
    [
        ("/payment", "make_payment", "coupon_code", 64),
        ("/payment", "update_tax_calculation_status_plum", "calc_id", 32),
        ("/agent", "update_location_coordinate", "username", 100),
        ("/cards", "saved_card_list", "username", 254),
        ("/plan", "plan_list", "sub_source", 64),
    ],
)
async def test_strings_are_bounded_by_where_they_are_kept(api, path, action, field, limit):
    extra = {"calc_id": "TX1", "iccid": "890126096321234567", "status": "final"} if "tax" in action else {}
    refused = await api.call(path, body(action, **{**extra, field: "a" * (limit + 1)}))
    label = (
        " ".join(word.capitalize() for word in field.split("_"))
        if field.endswith("_id")
        else field.replace("_", " ").capitalize()
    )
    assert refused["errors"] == [f"{label} must be at most {limit} characters"]


async def test_a_line_field_longer_than_its_column_is_a_field_error(api):
    refused = await api.call("/customer", create("EPARENT", line("EPARENT", model_id="m" * 65, device_id="d" * 65)))
    assert refused["errors"] == [
        "Line 1: Model Id must be at most 64 characters",
        "Line 1: Device Id must be at most 64 characters",
    ]


NOT_TEXT = "must be valid text (it holds characters that are not Unicode)"


@pytest.mark.parametrize(
    ("field", "label"), [("vendor_id", "Vendor Id"), ("username", "Username"), ("password", "Password"), ("pin", "Pin")]
)
async def test_authenticate_refuses_text_that_is_not_unicode(api, field, label):
    credentials = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
    text = json.dumps(credentials).replace(f'"{credentials[field]}"', f'"a{SURROGATE}"')
    answer = await post_raw(api, "/authenticate", text)
    assert (answer["msg_code"], answer["msg"], answer["errors"]) == (
        "RESTAPI001",
        "Invalid credentials!!",
        [f"{label} {NOT_TEXT}"],
    )


async def test_an_agent_id_that_is_not_unicode_names_no_agent(api):
    text = json.dumps(body("plan_list")).replace('"demo.agent"', f'"demo{SURROGATE}"')
    answer = await post_raw(api, "/plan", text, token=await api.token())
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI104", "Invalid Agent Id")


async def test_an_agent_password_that_is_not_unicode_is_a_wrong_one(api):
    text = json.dumps(body("plan_list", agent_id="demo.secure", agent_password="PLACEHOLDER"))
    answer = await post_raw(api, "/plan", text.replace('"PLACEHOLDER"', f'"x{SURROGATE}"'), token=await api.token())
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI104", "Invalid Agent ID or Password")


@pytest.mark.parametrize(
    ("path", "sent", "field", "message"),
    [
        ("/cards", body("saved_card_list", password="PLACEHOLDER"), "password", f"Password {NOT_TEXT}"),
        (
            "/payment",
            body("make_payment", enrollment_id="E1", coupon_code="PLACEHOLDER"),
            "coupon_code",
            f"Coupon code {NOT_TEXT}",
        ),
        ("/customer", create("E1", line("E1", model_id="PLACEHOLDER")), "model_id", f"Line 1: Model Id {NOT_TEXT}"),
        ("/customer", create("E1", line("E1", device_id="PLACEHOLDER")), "device_id", f"Line 1: Device Id {NOT_TEXT}"),
        ("/mail", body("send", receiver_name=["PLACEHOLDER"]), "receiver_name", f"Receiver name {NOT_TEXT}"),
    ],
)
async def test_a_field_that_is_not_unicode_is_a_field_error(api, path, sent, field, message):
    text = json.dumps(sent).replace('"PLACEHOLDER"', f'"x{SURROGATE}"')
    answer = await post_raw(api, path, text, token=await api.token())
    assert (answer["msg_code"], answer["errors"]) == ("RESTAPI110", [message])


# Issue 19, finding 1: a large body on /auth is read past the general limit only for a token that works, and
# taken only by the action declared for it; every object of a body has a bounded number of members.
JSON_TYPE = {"content-type": "application/json"}


async def test_a_large_auth_body_with_a_bad_token_is_refused_before_it_is_read(api):
    limit = api.app.state.settings.api.max_body_bytes
    pulled = 0

    async def chunks():
        nonlocal pulled
        for _ in range(2 * limit // 65536):  # 2 MiB of what is not even JSON
            pulled += 65536
            yield b"x" * 65536

    answer = (await api.post("/auth", content=chunks(), headers=JSON_TYPE, token="bad")).json()
    assert (answer["msg_code"], answer["msg"], answer["token"]) == ("RESTAPI001", "Invalid Token", "")
    assert pulled <= limit + 2 * 65536  # read no further than the general limit (and what was in flight)


async def test_a_declared_large_auth_body_with_a_bad_token_is_refused_unread(api):
    limit = api.app.state.settings.api.max_body_bytes
    keys = ",".join(f'"k{i}":0' for i in range(limit // 8))  # the shape of the audit's body: many members
    unfinished = ("{" + keys).encode()  # not even JSON: read and parsed, it would be refused as such
    answer = (await api.post("/auth", content=unfinished, headers=JSON_TYPE, token="bad")).json()
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI001", "Invalid Token")


async def test_a_large_body_is_taken_only_by_agent_change_password(api):
    limit = api.app.state.settings.api.max_body_bytes
    small = await api.call("/auth", body("logout", source=None, pad="x" * 1000))
    assert small["msg_code"] == "RESTAPI000"
    large = await api.call("/auth", body("logout", source=None, pad="x" * (limit + 1)))
    assert (large["msg_code"], large["errors"]) == ("RESTAPI110", [f"Request body exceeds the limit of {limit} bytes"])
    assert large["token"]  # past the token check: the session goes on


@pytest.mark.parametrize(("members", "refused"), [(1000, False), (1001, True)])
async def test_an_object_has_at_most_1000_members(api, members, refused):
    extra = {f"x{i}": 0 for i in range(members - len(body("plan_list")))}
    answer = await api.call("/plan", body("plan_list", **extra))
    if refused:
        assert answer["errors"] == ["A JSON object of the body has more than 1000 members"]
    else:
        assert answer["msg_code"] == "RESTAPI000", answer


async def test_nested_objects_are_capped_too(api):
    answer = await api.call("/plan", body("plan_list", sub_source={f"x{i}": 0 for i in range(1001)}))
    assert answer["errors"] == ["A JSON object of the body has more than 1000 members"]
