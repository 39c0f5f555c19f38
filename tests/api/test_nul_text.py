"""Issue 35, finding 4: a NUL character (`\\u0000`), which PostgreSQL's text cannot hold (SQLite stores it), in
`vendor_id` or `username` at /authenticate or in `agent_id` of any action was an HTTP 500 and a traceback on
PostgreSQL. Every string of every body (nested lists and objects, their keys, the console's forms) is now refused
as it is validated, by the field's name and before any lookup, on both engines."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from api.catalog import CATALOG
from api.edge import label
from api.porting import signature
from models.types import MEMBER_NAME, NUL_TEXT, plain_text
from tests.support.app import make_settings
from tests.support.builders import body, create, imei, line
from tests.support.console import csrf_of
from tests.support.console import sign_in as console_sign_in

NUL = "\u0000"
DISPATCHERS = ("source", "agent_id", "agent_password")  # read by the dispatcher: tested on their own above
PUSH_SECRET = "push-secret-1"
JSON = "application/json"
CREDENTIALS = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}


@pytest.fixture
def settings(data_dir: Path, db_url: str) -> Any:
    """The API on SQLite and on PostgreSQL (db_url's two engines): only PostgreSQL ever refused a NUL itself."""
    return make_settings(data_dir, db_url, port_push_secret=PUSH_SECRET)


@pytest.mark.parametrize(("field", "named"), [("vendor_id", "Vendor Id"), ("username", "Username"), ("pin", "Pin")])
async def test_authenticate_refuses_a_nul_by_the_fields_name(api, field, named):
    answer = await api.http.post("/authenticate", json={**CREDENTIALS, field: f"DE{NUL}MO"})
    assert answer.status_code < 500, answer.text
    assert (answer.json()["msg_code"], answer.json()["msg"], answer.json()["errors"]) == (
        "RESTAPI001",
        "Invalid credentials!!",
        [f"{named} {NUL_TEXT}"],
    )


async def test_an_agent_id_with_a_nul_names_no_agent(api):
    answer = await api.post("/plan", body("plan_list", agent_id=f"demo.agent{NUL}"), token=await api.token())
    assert answer.status_code < 500, answer.text
    assert (answer.json()["msg_code"], answer.json()["msg"]) == ("RESTAPI104", "Invalid Agent Id")


async def test_an_agent_password_with_a_nul_is_a_wrong_one(api):
    sent = body("plan_list", agent_id="demo.secure", agent_password=f"secure-pass-1{NUL}")
    answer = await api.post("/plan", sent, token=await api.token())
    assert (answer.json()["msg_code"], answer.json()["msg"]) == ("RESTAPI104", "Invalid Agent ID or Password")


@pytest.mark.parametrize(
    ("path", "sent", "message"),
    [
        ("/plan", body("plan_list", sub_source=f"web{NUL}"), f"Sub source {NUL_TEXT}"),
        ("/customer", create("E1", line("E1", model_id=f"m{NUL}")), f"Line 1: Model Id {NUL_TEXT}"),
        ("/mail", body("send", receiver_name=["Pat", f"P{NUL}"]), f"Receiver name {NUL_TEXT}"),
        # A member the model does not even read, a key, a key inside a list's object: all of the body is text.
        ("/plan", body("plan_list", note={"deep": [f"x{NUL}"]}), f"Deep {NUL_TEXT}"),
        ("/plan", {**body("plan_list"), f"k{NUL}": "v"}, f"{label(MEMBER_NAME)} {NUL_TEXT}"),
        ("/customer", create("E1", {**line("E1"), f"k{NUL}": 1}), f"Line 1: {label(MEMBER_NAME)} {NUL_TEXT}"),
    ],
)
async def test_a_nul_anywhere_in_a_body_is_the_error_of_its_place(api, path, sent, message):
    answer = await api.post(path, sent, token=await api.token())
    assert answer.status_code < 500, answer.text
    assert (answer.json()["msg_code"], answer.json()["errors"]) == ("RESTAPI110", [message])


async def test_a_nul_in_an_escaped_body_is_the_same_refusal(api):
    """As channels send it: the JSON escape, never a raw byte (which is not JSON)."""
    text = json.dumps(body("plan_list", sub_source="webNUL")).replace("NUL", "\\u0000")
    headers = {"content-type": JSON, "token": await api.token()}
    answer = (await api.http.post("/plan", content=text.encode(), headers=headers)).json()
    assert answer["errors"] == [f"Sub source {NUL_TEXT}"]


async def test_every_field_of_every_action_refuses_a_nul(api):
    """Each action once, with a NUL in every field its request declares: the answer is the envelope and names each
    field (an action whose role demo.agent lacks is refused before its body is read, with no lookup of it)."""
    unnamed: dict[str, list[str]] = {}
    for declared in CATALOG.actions:
        fields = [name for name in declared.request.model_fields if name not in DISPATCHERS]
        sent = {"action": declared.name, "source": "API", "agent_id": "demo.agent", **dict.fromkeys(fields, f"x{NUL}")}
        response = await api.post(f"/{declared.groups[0]}", sent, token=await api.token())
        assert response.status_code < 500, (declared.name, response.text)
        answer = response.json()
        assert answer["msg_code"] != "RESTAPI000", (declared.name, answer)
        if declared.role is None:
            expected = {f"{label(name)} {NUL_TEXT}" for name in fields}
            unnamed[declared.name] = sorted(expected - set(answer.get("errors") or []))
    assert {name: missed for name, missed in unnamed.items() if missed} == {}


async def test_a_nul_in_the_consoles_sign_in_is_a_field_error(api):
    page = await api.http.get("/console/login")
    form = {"csrf": csrf_of(page.text), "username": f"demo.support{NUL}", "password": "agent-pass-1"}
    refused = await api.http.post("/console/login", data=form)
    assert refused.status_code == 400 and f"username: {NUL_TEXT}" in refused.text


async def test_a_path_with_a_nul_is_answered_and_audited(api, caplog):
    answer = await api.http.post("/plan%00", json=body("plan_list"))
    assert (answer.status_code, answer.json()["msg_code"]) == (200, "RESTAPI105")  # legacy status mode
    assert "audit write failed" not in caplog.text


async def test_a_signed_carrier_push_with_a_nul_is_an_invalid_push(api):
    sent = json.dumps({"vendor_id": "DEMO", "port_id": "P1", "enrollment_id": f"E1{NUL}", "status": "X"}).encode()
    headers = {"X-Carrier-Signature": signature(PUSH_SECRET, sent, int(time.time())), "content-type": JSON}
    answer = await api.http.post("/carrier/port-status", content=sent, headers=headers)
    assert (answer.status_code, answer.json()["msg"]) == (400, "Invalid port status push")


async def test_a_nul_in_a_console_path_names_no_line_and_no_endpoint(api):
    assert (await console_sign_in(api.http)).status_code == 303
    csrf = csrf_of((await api.http.get("/console/webhooks")).text)
    sim = await api.http.post("/console/lines/E1%00/sim", data={"csrf": csrf, "esn": imei("0")})
    assert (sim.status_code, "No enrollment of yours has that id." in sim.text) == (404, True), sim.text
    endpoint = await api.http.post("/console/webhooks/whe_1%00/disable", data={"csrf": csrf})
    assert (endpoint.status_code, "No such endpoint" in endpoint.text) == (400, True), endpoint.text


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        (b'{"agent_id": "demo.agent", "username": "Ana Mar\xc3\xada"}', True),  # UTF-8 text, no escape: not walked
        (b'{"agent_id": "demo.\\u0000agent"}', False),  # an escaped NUL
        (b'{"agent_id": "demo.\\u00e9"}', False),  # any escape takes the walk
        (b'{"agent_id": "demo.\xed\xb2\x80"}', False),  # a lone surrogate sent raw (json decodes it as it is)
    ],
)
def test_only_a_body_that_cannot_hold_a_nul_or_a_surrogate_skips_the_text_walk(raw, plain):
    """Issue 36: the dispatcher skips models.types' walk of every string for a body whose bytes rule both out."""
    assert plain_text(raw) is plain


async def test_a_lone_surrogate_sent_raw_is_still_the_fields_error(api):
    """The surrogate's UTF-8 form sent as bytes (no `\\u` escape): the walk runs, and the field names it."""
    token = await api.token()
    raw = json.dumps(body("update_location_coordinate", username="X")).encode().replace(b'"X"', b'"\xed\xb2\x80"')
    answer = (await api.http.post("/agent", content=raw, headers={"token": token, "content-type": JSON})).json()
    assert answer["msg_code"] == "RESTAPI110", answer
    assert any("Username" in error for error in answer["errors"]), answer
