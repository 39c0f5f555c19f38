"""Issue 35, finding 14: no alert watched login, token, push-signature or PIN failures. The refusals each alert
reads are counted where they are decided, on `GET /metrics`: a sign-in refused at `/authenticate` or on the
console, a carrier push with a bad signature (the tokens' refusals were counted already, by reason)."""

from __future__ import annotations

import json
import time

import pytest

from api.porting import signature
from tests.support.console import sign_in
from tests.support.metrics import moved
from tests.support.metrics import scrape_api as scrape

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
SECRET = "push-secret-1"


async def test_metrics_a_sign_in_refused_is_counted_by_surface(api):
    before = await scrape(api)
    refused = (await api.post("/authenticate", {**DEMO, "password": "wrong"})).json()
    assert refused["msg"] == "Invalid credentials!!"
    assert (await api.post("/authenticate", DEMO)).json()["msg_code"] == "RESTAPI000"  # a success is not counted
    console = await sign_in(api.http, password="not-the-password")
    assert console.status_code == 401
    after = await scrape(api)
    assert moved(before, after, "lineup_login_failures_total", surface="api") == 1
    assert moved(before, after, "lineup_login_failures_total", surface="console") == 1


@pytest.mark.parametrize("settings_overrides", [{"port_push_secret": SECRET}])
async def test_metrics_a_push_with_a_bad_signature_is_counted(api):
    body = json.dumps({"vendor_id": "DEMO", "port_id": "P1", "enrollment_id": "E1", "status": "X"}).encode()
    before = await scrape(api)
    for secret, at in (("not-the-secret", int(time.time())), (SECRET, int(time.time()) - 3600)):
        headers = {"X-Carrier-Signature": signature(secret, body, at), "Content-Type": "application/json"}
        answer = await api.http.post("/carrier/port-status", content=body, headers=headers)
        assert answer.status_code == 401  # a forged signature, then a true one signed an hour ago
    signed = {"X-Carrier-Signature": signature(SECRET, body, int(time.time())), "Content-Type": "application/json"}
    assert (await api.http.post("/carrier/port-status", content=body, headers=signed)).status_code == 404
    after = await scrape(api)
    assert moved(before, after, "lineup_push_signature_failures_total") == 2  # the unknown port is not counted
