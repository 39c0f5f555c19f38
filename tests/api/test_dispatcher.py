"""The checks after the token, in order: source → agent → company → agent password → role → fields."""

from __future__ import annotations

import pytest

from tests.support.builders import body


def loc(**overrides):
    return body("update_location_coordinate", **overrides)


@pytest.mark.parametrize("source", ["API", "TABLET", "WEBSITE", "ENROLLMENT_PORTAL", "Website", "enrollment_portal"])
async def test_allowed_sources_pass(api, source):
    assert (await api.call("/agent", loc(source=source)))["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("source", ["IVR", "CSR", "FAX"])
async def test_other_sources_are_not_allowed(api, source):
    envelope = await api.call("/agent", loc(source=source))
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (
        "RESTAPI103",
        "Source Not Allowed",
        ["Source Not Allowed"],
    )
    assert envelope["token"]


@pytest.mark.parametrize("source", [None, "", "  "])
async def test_blank_source_is_refused(api, source):
    envelope = await api.call("/agent", loc(source=source))
    assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI103", "Source can not be blank")


@pytest.mark.parametrize("settings_overrides", [{"extra_sources": "KIOSK, fax"}])
async def test_extra_sources_come_from_settings(api):
    assert (await api.call("/agent", loc(source="FAX")))["msg_code"] == "RESTAPI000"
    assert (await api.call("/agent", loc(source="KIOSK")))["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("agent_id", [None, "", "   "])
async def test_blank_agent_id(api, agent_id):
    envelope = await api.call("/agent", loc(agent_id=agent_id))
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (
        "RESTAPI104",
        "Agent Id should not be blank",
        ["Agent Id should not be blank"],
    )


@pytest.mark.parametrize("agent_id", ["nobody", "demo.inactive"])
async def test_unknown_or_inactive_agent_is_invalid(api, agent_id):
    envelope = await api.call("/agent", loc(agent_id=agent_id))
    assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI104", "Invalid Agent Id")


async def test_agent_of_another_vendor_is_no_agent_of_the_callers(api):
    """decisions.md "Agents per vendor": agent_id is resolved within the caller's vendor, so another vendor's
    agent is as unknown as one nobody has (RESTAPI107 would tell which names other vendors use)."""
    envelope = await api.call("/agent", loc(agent_id="other.agent"))
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (
        "RESTAPI104",
        "Invalid Agent Id",
        ["Invalid Agent Id"],
    )
    assert (await api.call("/agent", loc(agent_id="other.agent", username="other.agent"), vendor="OTHER"))[
        "msg_code"
    ] == "RESTAPI000"


@pytest.mark.parametrize("password", [None, "", "wrong"])
async def test_agent_requiring_an_api_password_refuses_a_missing_or_wrong_one(api, password):
    envelope = await api.call("/agent", loc(agent_id="demo.secure", agent_password=password))
    assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI104", "Invalid Agent ID or Password")


async def test_agent_requiring_an_api_password_passes_with_it(api):
    envelope = await api.call(
        "/agent", loc(agent_id="demo.secure", username="demo.secure", agent_password="secure-pass-1")
    )
    assert envelope["msg_code"] == "RESTAPI000"


async def test_source_is_checked_before_the_agent(api):
    envelope = await api.call("/agent", loc(source="FAX", agent_id="nobody"))
    assert envelope["msg_code"] == "RESTAPI103"


async def test_agent_is_checked_before_fields(api):
    envelope = await api.call("/agent", loc(agent_id="nobody", latitude="999"))
    assert envelope["msg_code"] == "RESTAPI104"


async def test_token_is_checked_before_the_action(api):
    envelope = (await api.post("/agent", {"action": "nope"}, token="bogus")).json()
    assert envelope["msg"] == "Invalid Token"
