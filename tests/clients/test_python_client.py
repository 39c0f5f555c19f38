"""The Python client (issue 29) against a running Lineup: the guide's enrollment with no token in sight, one client
shared by 20 callers at once, a token spent elsewhere healed, a create whose answer was lost repeated into one
customer, webhooks verified, and the failures a channel meets: a wrong password, a refused field, a server that
never answers, an answer that is not the envelope; no secret in any error or log line."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from lineup_client import AuthenticationError, LineupError, TimedOut, UnexpectedAnswer, verify_webhook
from lineup_client.actions import LineRequest
from sqlmodel import delete, func, select

from models.auth import ApiToken
from models.enrollment.lines import Line
from tests.support.builders import line
from tests.support.channel_clients import DEMO_URL, GUIDE, README, Wire, async_client, example, sync_client
from tests.support.cutting_proxy import CuttingProxy
from tests.support.webhooks import received, register

SECRETS = ("demo-pass-1", "4111111111111111", "line-pass-1")  # the guide's password, card and line password


def run_example(url: str, page: Path = GUIDE) -> tuple[dict[str, Any], str]:
    """A page's Python example as it is written, pointed at `url`; its variables and what it printed."""
    space: dict[str, Any] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example("python", page).replace(DEMO_URL, url), space)
    return space, printed.getvalue()


async def test_the_guides_enrollment_runs_as_written_with_no_token_handling(lineup_url, stack, caplog):
    caplog.set_level(logging.DEBUG)
    space, printed = await asyncio.to_thread(run_example, lineup_url + "/")  # a trailing slash changes nothing
    created = space["line"]
    assert created["msg_code"] == "RESTAPI000", created
    assert created["data"]["invoice_number"] == space["paid"]["invoice_number"]
    assert {plan["plan_id"] for plan in space["plans"]} >= {"102"}
    assert printed.startswith(f"{created['data']['customer_id']} {created['data']['mdn']}\n")
    assert space["lineup"].login_log_otp  # the session's OTP, for check_signature
    assert not [text for text in SECRETS if text in caplog.text]


async def test_the_readmes_session_with_a_client_runs_as_written(lineup_url):
    space, _ = await asyncio.to_thread(run_example, lineup_url, README)
    assert space["entry"]["data"]["mdn"] == space["inquiry"]["MDN"]


async def test_twenty_concurrent_calls_share_one_async_client(lineup_url, caplog):
    caplog.set_level(logging.DEBUG)  # httpx's and httpcore's lines too
    wire = Wire()
    async with async_client(lineup_url, wire) as lineup:
        slots = await asyncio.gather(*(lineup.check_service_availability(zip_code="30301") for _ in range(20)))
        assert len({slot["enrollment_id"] for slot in slots}) == 20
        assert 1 <= wire.logins <= 8  # a chain per caller in flight, at most max_sessions
        again = await asyncio.gather(*(lineup.plan_list() for _ in range(20)))
    assert all(plans == again[0] for plans in again)
    assert wire.logins <= 8  # the second round reused the chains
    assert wire.tokens and not [token for token in wire.tokens if token in caplog.text]


async def test_twenty_concurrent_calls_share_one_sync_client_across_threads(lineup_url):
    wire = Wire()

    def twenty() -> list[str]:
        with sync_client(lineup_url, wire, max_sessions=4) as lineup, ThreadPoolExecutor(20) as pool:
            calls = [pool.submit(lineup.check_service_availability, zip_code="30301") for _ in range(20)]
            return [call.result()["enrollment_id"] for call in calls]

    assert len(set(await asyncio.to_thread(twenty))) == 20
    assert 1 <= wire.logins <= 4


async def test_a_token_spent_elsewhere_is_healed_by_authenticating_once_more(lineup_url):
    wire = Wire()
    async with async_client(lineup_url, wire) as lineup:
        await lineup.plan_list()
        async with httpx.AsyncClient() as other:  # another process got hold of the chain's next token
            body = {"action": "plan_list", "source": "API", "agent_id": "demo.agent"}
            spent = await other.post(f"{lineup_url}/plan", json=body, headers={"token": wire.tokens[-1]})
        assert spent.json()["msg_code"] == "RESTAPI000"
        assert await lineup.plan_list()
    assert wire.logins == 2
    assert wire.paths == ["/authenticate", "/plan", "/plan", "/authenticate", "/plan"]


async def test_a_token_the_server_no_longer_knows_is_healed_by_authenticating_once_more(lineup_url, stack):
    wire = Wire()
    async with async_client(lineup_url, wire) as lineup:
        await lineup.plan_list()
        async with stack.db.transaction() as session:  # as after a restore: every token the client holds unknown
            await session.execute(delete(ApiToken))
        assert await lineup.plan_list()
    assert wire.logins == 2
    assert wire.paths == ["/authenticate", "/plan", "/plan", "/authenticate", "/plan"]


@pytest.mark.parametrize("settings_overrides", [{"token_ttl_seconds": 2}])
async def test_an_expired_token_is_healed_and_the_older_idle_ones_dropped(lineup_url):
    wire = Wire()
    async with async_client(lineup_url, wire) as lineup:
        await asyncio.gather(*(lineup.plan_list() for _ in range(3)))  # three chains, idle from now on
        await asyncio.sleep(2.2)
        assert await lineup.plan_list()  # the newest idle token expired: so did the others
        assert await lineup.plan_list()
    assert wire.logins == 4
    assert wire.paths[-4:] == ["/plan", "/authenticate", "/plan", "/plan"]


async def test_a_create_whose_answer_was_lost_is_repeated_and_makes_one_customer(lineup_url, stack, caplog):
    async with CuttingProxy.running(lineup_url, b"create_customer_prepaid_multiline") as proxy:
        wire = Wire()
        async with async_client(proxy.url, wire) as lineup:
            parent = (await lineup.check_service_availability(zip_code="30301"))["enrollment_id"]
            [created] = await lineup.create_customer_prepaid_multiline(
                parent_enrollment_id=parent, lines=[cast(LineRequest, line(parent))]
            )
    assert (proxy.seen, proxy.cut) == (2, 1)  # carried out, its answer lost, sent again
    assert created["msg_code"] == "RESTAPI000" and created["data"]["enrollment_id"] == parent
    assert wire.transaction_ids[-1] == wire.transaction_ids[-2]  # the repeat was the same request
    async with stack.db.transaction() as session:
        assert (await session.exec(select(func.count()).select_from(Line))).one() == 1
    assert "/customer create_customer_prepaid_multiline: connection failed" in caplog.text


async def test_a_webhook_delivery_is_verified_and_a_tampered_one_refused(lineup_url, stack):
    endpoint = await register(stack, events="line.received")
    async with async_client(lineup_url) as lineup:
        parent = (await lineup.check_service_availability(zip_code="30301"))["enrollment_id"]
        await lineup.create_customer_prepaid_multiline(
            parent_enrollment_id=parent, lines=[cast(LineRequest, line(parent))]
        )
    deadline = time.monotonic() + 60
    while not (deliveries := await received(stack, {parent})):
        assert time.monotonic() < deadline, "no delivery"
        await asyncio.sleep(0.3)
    body, header = deliveries[0]["body"], deliveries[0]["headers"]["lineup-signature"]
    assert verify_webhook(endpoint.secret, header, body.encode())
    assert verify_webhook(endpoint.secret, header, body)  # the text of the body, as some frameworks give it
    assert not verify_webhook(endpoint.secret, header, body.replace("line.received", "line.activated"))
    assert not verify_webhook("whsec_other", header, body)
    assert not verify_webhook(endpoint.secret, header, body, tolerance=-1)  # too old


async def test_a_wrong_password_is_one_clear_error_and_no_loop(lineup_url, caplog):
    caplog.set_level(logging.DEBUG)
    wire = Wire()
    async with async_client(lineup_url, wire, password="not-the-password-9") as lineup:
        with pytest.raises(AuthenticationError) as refused:
            await lineup.plan_list()
    assert (refused.value.msg_code, refused.value.msg) == ("RESTAPI001", "Invalid credentials!!")
    assert wire.paths == ["/authenticate"]
    assert "not-the-password-9" not in str(refused.value) + repr(refused.value) + caplog.text
    assert "not-the-password-9" not in repr(lineup.__dict__)


async def test_a_refused_field_raises_lineups_own_errors(lineup_url, stack):
    raw = await stack.call(
        "/enrollment",
        {"action": "check_service_availability", "source": "API", "agent_id": "demo.agent", "zip_code": "ABCDE"},
    )
    async with async_client(lineup_url) as lineup:
        with pytest.raises(LineupError) as refused:
            await lineup.check_service_availability(zip_code="ABCDE")
    assert (refused.value.msg_code, refused.value.errors) == (raw["msg_code"], raw["errors"])
    assert refused.value.errors == ["Zip code must be exactly 5 digits"]  # as docs/clients.md shows it
    assert refused.value.errors and str(refused.value).startswith(f"{raw['msg_code']} {raw['msg']}: ")


async def test_a_server_that_never_answers_times_out_within_the_limit():
    listener = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0)  # takes, never answers
    url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    started = time.monotonic()
    async with listener, async_client(url, timeout=0.3) as lineup:
        with pytest.raises(TimedOut, match=r"/plan plan_list: no answer in time, 3 repeats spent"):
            await lineup.plan_list()
    assert time.monotonic() - started < 3  # 4 attempts of 0.3 s and the waits between them


@pytest.mark.parametrize(("status", "sent"), [(200, 1), (502, 4)])
async def test_an_answer_that_is_not_the_envelope_is_quoted(status, sent):
    """A proxy's page: raised at once, quoting its start; a gateway's 502 first repeated as "come back later"."""
    page = b"<html>\n<head><title>Bad Gateway</title></head>\n<body>" + b"nginx " * 100 + b"</body></html>"
    calls: list[str] = []

    def proxy(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.url.path == "/authenticate":
            return httpx.Response(200, json={"msg_code": "RESTAPI000", "msg": "ok", "token": "t1"})
        return httpx.Response(status, content=page)

    async with async_client("http://lineup.test", transport=httpx.MockTransport(proxy)) as lineup:
        with pytest.raises(UnexpectedAnswer) as raised:
            await lineup.plan_list()
    assert str(raised.value).startswith(f"HTTP {status} is not Lineup's envelope: '<html> <head><title>Bad Gateway")
    assert len(raised.value.start) == 200
    assert calls.count("/plan") == sent


OUTAGES: dict[str, tuple[int, dict[str, Any]]] = {
    "legacy": (200, {"msg_code": "RESTAPI110", "msg": "Error occurred", "token": "t2",
                     "errors": ["The carrier is unavailable, please try again later"]}),
    "rest": (503, {"msg_code": "RESTAPI110", "msg": "Error occurred",  # the database down: no next token
                   "errors": ["The database is unavailable, please try again later"]}),
}  # fmt: skip


@pytest.mark.parametrize("mode", sorted(OUTAGES))
async def test_try_again_later_is_repeated_with_the_same_transaction_id(mode):
    status, outage = OUTAGES[mode]
    success: dict[str, Any] = {"msg_code": "RESTAPI000", "msg": "Success", "token": "t3", "data": {}}
    answers = iter([(status, outage), (200, success)])
    sent: list[dict[str, Any]] = []
    logins = iter(["t1", "t1b"])

    def lineup_side(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/authenticate":
            return httpx.Response(200, json={"msg_code": "RESTAPI000", "msg": "ok", "token": next(logins)})
        sent.append({"token": request.headers["token"], **json.loads(request.content)})
        status, answer = next(answers)
        return httpx.Response(status, json=answer)

    async with async_client("http://lineup.test", transport=httpx.MockTransport(lineup_side)) as lineup:
        assert await lineup.call("/inventory", "check_device_compatibility", imei="1") == {}
    # The outage answer's token carries the chain on; without one, the repeat opens a session of its own.
    assert [body["token"] for body in sent] == ["t1", "t2" if mode == "legacy" else "t1b"]
    assert sent[0]["external_transaction_id"] == sent[1]["external_transaction_id"]
    assert sent[0]["external_transaction_id"].isalnum() and len(sent[0]["external_transaction_id"]) <= 64
