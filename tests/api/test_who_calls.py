"""Who calls (issue 35, item 2; decisions.md "Who calls"): a token from an agent's own API credentials
(`lineup agent create --pin`) acts as that agent only, so a storefront agent cannot run support's `/ops` by naming
a support agent, nor a support agent record a CASH payment by naming one holding `payments`; the vendor's own API
user still acts for any of its agents. Agents holding `support` give their API password on every call: the
demo's `demo.support` gives `support-pass-1`, and signs in to the console with `agent-pass-1` as before."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from sqlmodel import col, select

from cli.accounts import SUPPORT_API_PASSWORD, AgentSpec, create_agent
from models.auth import ApiUser
from tests.support.app import ApiClient
from tests.support.builders import body
from tests.support.console import PASSWORD, sign_in

PIN = "2468"
NOT_THAT_AGENT = ("RESTAPI104", "Invalid Agent Id")
NO_PASSWORD = ("RESTAPI104", "Invalid Agent ID or Password")
NO_CARD = {
    "card_number": None, "exp_month": None, "exp_year": None, "cvv": None, "name_on_card": None,
    "address1": None, "city": None, "state": None, "zip": None, "save_card": None,
}  # fmt: skip


async def agent_of_demo(api: ApiClient, *roles: str, api_password: str | None = None, pin: str | None = None) -> str:
    """A new agent of DEMO; with a PIN, also its own API credentials (`agent create --pin`)."""
    username = f"agent.{secrets.token_hex(3)}"
    spec = AgentSpec(
        "DEMO", username, PASSWORD, pin=pin, roles=roles, api_password=api_password, no_api_password=not api_password
    )
    assert await create_agent(api.db, spec)
    return username


async def own_token(api: ApiClient, username: str) -> str:
    """A token of the agent's own API credentials, from /authenticate as the agent signs in."""
    credentials = {"vendor_id": "DEMO", "username": username, "password": PASSWORD, "pin": PIN}
    answer: dict[str, Any] = (await api.post("/authenticate", credentials)).json()
    assert answer["msg_code"] == "RESTAPI000", answer
    token: str = answer["token"]
    return token


async def answered(api: ApiClient, path: str, request: dict[str, Any], token: str) -> tuple[str, str]:
    envelope = (await api.post(path, request, token=token)).json()
    return envelope["msg_code"], envelope["msg"]


def retry_all(agent: str, **more: Any) -> dict[str, Any]:
    return body("retry_enrollment", agent_id=agent, all_stuck="Y", **more)


def cash(agent: str, **more: Any) -> dict[str, Any]:
    return body("make_payment", enrollment_id="E12345678", payment_method="CASH", agent_id=agent, **NO_CARD, **more)


async def test_a_storefront_agents_own_token_naming_a_support_agent_is_refused(api):
    # The audit's `sec.pay`: a storefront agent (payments) ran `/ops retry_enrollment all_stuck` by naming support.
    storefront = await agent_of_demo(api, "agent", "payments", pin=PIN)
    support = await agent_of_demo(api, "agent", "support")  # one without an API password, as the audit found
    token = await own_token(api, storefront)
    assert await answered(api, "/ops", retry_all(support), token) == NOT_THAT_AGENT
    # Knowing demo.support's API password does not make the storefront's token support's either.
    demo_support = retry_all("demo.support", agent_password=SUPPORT_API_PASSWORD)
    assert await answered(api, "/ops", demo_support, await api.token("DEMO", storefront)) == NOT_THAT_AGENT
    # As itself it reaches what its own roles allow, and no more.
    itself = (await api.post("/ops", retry_all(storefront), token=await api.token("DEMO", storefront))).json()
    assert (itself["msg_code"], itself["errors"]) == ("RESTAPI109", ["This operation needs the support role"])


async def test_a_support_agents_own_token_cannot_record_cash_by_naming_a_payments_agent(api):
    support = await agent_of_demo(api, "agent", "support", api_password="api-pass-7", pin=PIN)
    token = await own_token(api, support)
    assert await answered(api, "/payment", cash("demo.agent"), token) == NOT_THAT_AGENT
    own = cash(support, agent_password="api-pass-7")
    refused = (await api.post("/payment", own, token=await api.token("DEMO", support))).json()
    assert (refused["msg_code"], refused["errors"]) == (
        "RESTAPI109",
        ["Recording a CASH or OTHER_PAYMENT_OPTION payment needs the payments role"],
    )


async def test_an_agents_own_token_acts_as_that_agent_named_or_not(api):
    username = await agent_of_demo(api, "agent", pin=PIN)
    located = {"username": username}
    named = body("update_location_coordinate", agent_id=username, **located)
    assert await answered(api, "/agent", named, await own_token(api, username)) == ("RESTAPI000", "Success")
    unnamed = {key: value for key, value in named.items() if key != "agent_id"}
    assert await answered(api, "/agent", unnamed, await api.token("DEMO", username)) == ("RESTAPI000", "Success")
    async with api.db.transaction() as session:
        user = (await session.exec(select(ApiUser).where(col(ApiUser.username) == username))).one()
    assert user.agent_id is not None  # bound when `agent create --pin` made it


async def test_a_vendor_token_still_acts_for_any_of_its_agents(api):
    for agent, more in (("demo.agent", {}), ("demo.support", {"agent_password": SUPPORT_API_PASSWORD})):
        request = body("update_location_coordinate", agent_id=agent, username=agent, **more)
        assert await answered(api, "/agent", request, await api.token("DEMO")) == ("RESTAPI000", "Success")
    listed = body("list_stuck_enrollments", agent_id="demo.support", agent_password=SUPPORT_API_PASSWORD)
    assert await answered(api, "/ops", listed, await api.token("DEMO")) == ("RESTAPI000", "Success")


async def test_a_support_agent_gives_its_api_password_on_every_call(api):
    listed = body("list_stuck_enrollments", agent_id="demo.support")
    assert await answered(api, "/ops", listed, await api.token()) == NO_PASSWORD
    assert await answered(api, "/ops", {**listed, "agent_password": "agent-pass-1"}, await api.token()) == NO_PASSWORD
    assert await answered(api, "/ops", {**listed, "agent_password": SUPPORT_API_PASSWORD}, await api.token()) == (
        "RESTAPI000",
        "Success",
    )


async def test_demo_support_signs_in_to_the_console_with_its_console_password_only(api):
    transport = httpx.ASGITransport(app=api.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lineup.test") as browser:
        assert (await sign_in(browser, "demo.support", SUPPORT_API_PASSWORD)).status_code == 401
        assert (await sign_in(browser, "demo.support", PASSWORD)).status_code == 303
        assert (await browser.get("/console")).status_code == 200
