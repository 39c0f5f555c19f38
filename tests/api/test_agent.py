"""`/agent` update_location_coordinate: field rules, the username's vendor, the login-log OTP."""

from __future__ import annotations

import pytest
from sqlmodel import select

from models.agents import AgentLocation
from models.auth import LoginLog
from tests.support.builders import body

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}


def loc(**overrides):
    return body("update_location_coordinate", **overrides)


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("latitude", "-90", "90.0001", "Latitude must be a latitude between -90 and 90"),
        ("latitude", "45.5", "north", "Latitude must be a decimal number between -90 and 90"),
        ("longitude", "180", "-180.5", "Longitude must be a longitude between -180 and 180"),
        ("longitude", "-122.4194", "", "Please enter Longitude"),
        ("ip_address", "2001:db8::1", "300.1.1.1", "IP address must be a valid IPv4 or IPv6 address"),
        ("ip_address", "10.0.0.1", "localhost", "IP address must be a valid IPv4 or IPv6 address"),
        ("username", "demo.agent", "", "Please enter Username"),
    ],
)
async def test_update_location_coordinate_field_rule(api, field, good, bad, error):
    assert (await api.call("/agent", loc(**{field: good})))["msg_code"] == "RESTAPI000"
    refused = await api.call("/agent", loc(**{field: bad}))
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == ("RESTAPI110", "Error occurred", [error])


async def test_update_location_coordinate_missing_fields_are_multiple_errors(api):
    refused = await api.call("/agent", loc(latitude=None, longitude=None, username=None))
    assert refused["msg_code"] == "RESTAPI010" and refused["msg"] == "Multiple errors"
    assert refused["errors"] == ["Please enter Username", "Please enter Latitude", "Please enter Longitude"]


async def test_update_location_coordinate_stores_the_location(api):
    assert (await api.call("/agent", loc(latitude="33.7490", longitude="-84.3880")))["msg_code"] == "RESTAPI000"
    async with api.db.transaction() as session:
        stored = (await session.exec(select(AgentLocation))).one()
    assert (stored.latitude, stored.longitude, stored.ip_address) == ("33.7490", "-84.3880", "203.0.113.7")


@pytest.mark.parametrize("username", ["demo.support", "other.agent", "nobody.here"])
async def test_update_location_coordinate_records_only_the_agents_own_location(api, username):
    # Issue 19, finding 13: demo.agent may not say where demo.support (or anyone else) is.
    refused = await api.call("/agent", loc(agent_id="demo.agent", username=username))
    assert (refused["msg_code"], refused["errors"]) == (
        "RESTAPI110",
        ["Username must be the agent_id's own: an agent records only its own location"],
    )
    async with api.db.transaction() as session:
        assert (await session.exec(select(AgentLocation))).all() == []


async def test_update_location_coordinate_records_against_the_login_log_otp(api):
    login = (await api.post("/authenticate", DEMO)).json()
    otp = int(login["data"]["login_log_otp"])  # the sample sends a number
    envelope = (await api.post("/agent", loc(login_log_otp=otp), token=login["token"])).json()
    assert envelope["msg_code"] == "RESTAPI000"
    async with api.db.transaction() as session:
        entry = (await session.exec(select(LoginLog))).one()
    assert (entry.latitude, entry.longitude) == ("33.7490", "-84.3880")


async def test_update_location_coordinate_refuses_an_unknown_otp(api):
    refused = await api.call("/agent", loc(login_log_otp="000000"))
    assert refused["errors"] == ["Please provide valid otp"]


async def test_update_location_coordinate_refuses_another_vendors_otp(api):
    login = (
        await api.post(
            "/authenticate", {"vendor_id": "OTHER", "username": "other.api", "password": "other-pass-1", "pin": "4321"}
        )
    ).json()
    refused = await api.call("/agent", loc(login_log_otp=login["data"]["login_log_otp"]))
    assert refused["errors"] == ["Please provide valid otp"]
