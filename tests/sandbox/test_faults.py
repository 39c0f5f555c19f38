"""Fault injection: a run-time fault rate answers 503 before any work; latency delays every call."""

import time

import httpx
import pytest

from sandbox.app import create_app
from sandbox.config import SandboxConfig
from tests.support.sandbox_bodies import activation, charge, etc_check, key

pytestmark = pytest.mark.asyncio

DOWN = {"STATUSCODE": "503", "DESCRIPTION": "Service unavailable"}


async def test_fault_rate_one_then_zero(client: httpx.AsyncClient) -> None:
    assert (await client.post("/sandbox/faults", json={"fault_rate": 1.0})).json() == {
        "fault_rate": 1.0,
        "latency_ms": 0,
        "scope": [],
    }
    headers = key()
    refused = await client.post("/carrier/activations", json=activation(), headers=headers)
    assert (refused.status_code, refused.json()) == (503, DOWN)
    nlad = await client.post("/nlad/etc-check", json=etc_check())
    assert nlad.status_code == 503
    # Payments are outside the fault rate.
    assert (await client.post("/payments/charges", json=charge(), headers=key())).status_code == 200
    await client.post("/sandbox/faults", json={"fault_rate": 0})
    # The 503 was answered before any work, so the same key now activates.
    accepted = await client.post("/carrier/activations", json=activation(), headers=headers)
    assert accepted.json()["STATUSCODE"] == "00"
    assert (await client.get("/sandbox/faults")).json() == {"fault_rate": 0.0, "latency_ms": 0, "scope": []}


async def test_fault_rate_from_config() -> None:
    app = create_app(SandboxConfig(db_path=":memory:", fault_rate=1.0))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as http:
        response = await http.post("/carrier/device-compatibility", json={"imei": "352099081234508", "carrier": "TMB"})
    assert response.status_code == 503


async def test_latency_is_added(client: httpx.AsyncClient) -> None:
    answer = (await client.post("/sandbox/faults", json={"latency_ms": 150})).json()
    assert answer == {"fault_rate": 0.0, "latency_ms": 150, "scope": []}
    started = time.monotonic()
    await client.post("/payments/charges", json=charge(), headers=key())
    assert time.monotonic() - started >= 0.15


async def test_fault_settings_are_validated(client: httpx.AsyncClient) -> None:
    assert (await client.post("/sandbox/faults", json={"fault_rate": 1.5})).status_code == 422
    assert (await client.get("/sandbox/faults")).json()["fault_rate"] == 0.0


async def test_healthz(client: httpx.AsyncClient) -> None:
    assert (await client.get("/sandbox/healthz")).json() == {"status": "ok"}


async def test_a_scoped_fault_rate_fails_only_the_paths_named(client: httpx.AsyncClient) -> None:
    """Provisioning down, the rest of the carrier up: activations and ports fail, tax and devices answer."""
    scope = ["/carrier/activations", "/carrier/ports"]
    shown = (await client.post("/sandbox/faults", json={"fault_rate": 1.0, "scope": scope})).json()
    assert shown == {"fault_rate": 1.0, "latency_ms": 0, "scope": scope}
    assert (await client.post("/carrier/activations", json=activation(), headers=key())).status_code == 503
    status = await client.post("/carrier/ports/status", json={"vendor_id": "V1", "port_id": "PRT1"})
    assert status.status_code == 503
    device = await client.post("/carrier/device-compatibility", json={"imei": "352099081234508", "carrier": "TMB"})
    assert device.status_code == 200
    assert (await client.post("/nlad/etc-check", json=etc_check())).status_code == 200
    # Left out, the scope stays; [] widens the rate to every call again.
    assert (await client.post("/sandbox/faults", json={"fault_rate": 0.5})).json()["scope"] == scope
    await client.post("/sandbox/faults", json={"fault_rate": 1.0, "scope": []})
    assert (await client.post("/nlad/etc-check", json=etc_check())).status_code == 503
