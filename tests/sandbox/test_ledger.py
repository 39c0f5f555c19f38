"""GET /sandbox/ledger: every line, activation, port and charge the stand-ins made, for soaks to count."""

import asyncio

import httpx
import pytest

from sandbox.config import SandboxConfig
from tests.support.sandbox_bodies import activation, charge, iccid, key, port_in

pytestmark = pytest.mark.asyncio


@pytest.fixture
def config() -> SandboxConfig:
    return SandboxConfig(db_path=":memory:", port_complete_seconds=0.2)


async def test_an_activation_repeated_with_its_key_is_one_line_and_one_activation(client: httpx.AsyncClient) -> None:
    headers = key()
    first = (await client.post("/carrier/activations", json=activation(), headers=headers)).json()
    again = (await client.post("/carrier/activations", json=activation(), headers=headers)).json()
    assert first["MDN"] == again["MDN"]
    ledger = (await client.get("/sandbox/ledger")).json()
    assert [(line["enrollment_id"], line["mdn"], line["port_id"]) for line in ledger["lines"]] == [
        ("E1", first["MDN"], None)
    ]
    assert [(entry["key"], entry["status_code"], entry["mdn"]) for entry in ledger["activations"]] == [
        (headers["Idempotency-Key"], "00", first["MDN"])
    ]


async def test_an_activation_under_a_second_key_shows_as_a_second_line(client: httpx.AsyncClient) -> None:
    await client.post("/carrier/activations", json=activation(iccid=iccid(1)), headers=key())
    await client.post("/carrier/activations", json=activation(iccid=iccid(2)), headers=key())
    ledger = (await client.get("/sandbox/ledger")).json()
    assert [line["enrollment_id"] for line in ledger["lines"]] == ["E1", "E1"]
    assert len({line["mdn"] for line in ledger["lines"]}) == 2
    assert len(ledger["activations"]) == 2


async def test_a_completed_port_lists_its_submission_its_port_and_the_line_it_opened(
    client: httpx.AsyncClient,
) -> None:
    submitted = (await client.post("/carrier/ports", json=port_in(enrollment_id="E7"), headers=key())).json()
    await asyncio.sleep(0.25)
    status = await client.post("/carrier/ports/status", json={"vendor_id": "V1", "port_id": submitted["PORT_ID"]})
    assert status.json()["PORTIN_STATUS"] == "COMPLETED"
    ledger = (await client.get("/sandbox/ledger")).json()
    [submission] = ledger["port_submissions"]
    assert (submission["status_code"], submission["port_id"]) == ("00", submitted["PORT_ID"])
    [port] = ledger["ports"]
    assert (port["enrollment_id"], port["port_number"], port["stage"]) == ("E7", "2125550123", "COMPLETED")
    assert "account_number" not in port and "first_name" not in port
    [line] = ledger["lines"]
    assert (line["enrollment_id"], line["mdn"], line["port_id"]) == ("E7", "2125550123", submitted["PORT_ID"])


async def test_charges_are_listed_by_key_with_their_status_and_no_card_data(client: httpx.AsyncClient) -> None:
    approved, declined = key(), key()
    paid = (await client.post("/payments/charges", json=charge(), headers=approved)).json()
    await client.post("/payments/charges", json=charge(), headers=approved)  # a retry charges nothing again
    await client.post("/payments/charges", json=charge(cvv="000"), headers=declined)
    await client.post("/payments/charges/void", json={"key": approved["Idempotency-Key"]})
    charges = (await client.get("/sandbox/ledger")).json()["charges"]
    assert [(entry["key"], entry["status"]) for entry in charges] == [
        (approved["Idempotency-Key"], "voided"),
        (declined["Idempotency-Key"], "declined"),
    ]
    assert charges[0]["transaction_id"] == paid["transaction_id"] and charges[0]["amount_cents"] == 2500
    assert "4111111111111111" not in str(charges) and "tok_" not in str(charges)
