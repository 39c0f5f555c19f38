"""The webhook receiver: deliveries recorded as they arrived (raw body, headers), and an outage on demand."""

import json
import time

import httpx
import pytest

pytestmark = pytest.mark.asyncio

SIGNED = {"Lineup-Signature": "t=1700000000,v1=ab12", "Content-Type": "application/json"}


async def deliver(client: httpx.AsyncClient, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return await client.post("/sandbox/webhooks", content=body, headers=headers or SIGNED)


async def test_a_delivery_is_listed_with_its_raw_body_and_headers(client: httpx.AsyncClient) -> None:
    # Spacing and key order as sent: a signature is checked over these exact bytes, not a re-serialisation.
    raw = b'{"id":"evt_1",  "type":"line.activated","created":1700000000,"data":{"mdn":"4045550100"}}'
    answer = await deliver(client, raw)
    assert (answer.status_code, answer.json()) == (200, {"received": True})
    [listed] = (await client.get("/sandbox/webhooks")).json()
    assert set(listed) == {"received_at", "headers", "body"}
    assert listed["body"] == raw.decode()
    assert listed["headers"]["lineup-signature"] == "t=1700000000,v1=ab12"
    assert listed["headers"]["content-type"] == "application/json"
    assert listed["received_at"].endswith("+00:00")


async def test_deliveries_are_listed_oldest_first_and_can_be_forgotten(client: httpx.AsyncClient) -> None:
    for number in range(3):
        await deliver(client, json.dumps({"id": f"evt_{number}"}).encode())
    listed = (await client.get("/sandbox/webhooks")).json()
    assert [json.loads(entry["body"])["id"] for entry in listed] == ["evt_0", "evt_1", "evt_2"]
    assert (await client.delete("/sandbox/webhooks")).json() == []
    assert (await client.get("/sandbox/webhooks")).json() == []


async def test_a_header_sent_twice_is_one_joined_value(client: httpx.AsyncClient) -> None:
    await client.post("/sandbox/webhooks", content=b"{}", headers=[("X-Tag", "a"), ("X-Tag", "b")])
    [listed] = (await client.get("/sandbox/webhooks")).json()
    assert listed["headers"]["x-tag"] == "a, b"


async def test_a_failing_receiver_answers_the_status_and_records_nothing(client: httpx.AsyncClient) -> None:
    settings = (await client.post("/sandbox/webhooks/faults", json={"fail": True, "status": 500})).json()
    assert settings["fail"] is True and settings["status"] == 500
    refused = await deliver(client, b'{"id":"evt_down"}')
    assert refused.status_code == 500
    assert (await client.get("/sandbox/webhooks")).json() == []
    await client.post("/sandbox/webhooks/faults", json={"fail": False})
    assert (await deliver(client, b'{"id":"evt_up"}')).status_code == 200
    assert [entry["body"] for entry in (await client.get("/sandbox/webhooks")).json()] == ['{"id":"evt_up"}']
    assert (await client.get("/sandbox/webhooks/faults")).json()["refused"] == 1


async def test_the_next_n_deliveries_fail_then_the_receiver_is_back(client: httpx.AsyncClient) -> None:
    await client.post("/sandbox/webhooks/faults", json={"fail_next": 2})
    statuses = [(await deliver(client, f'{{"n":{n}}}'.encode())).status_code for n in range(4)]
    assert statuses == [503, 503, 200, 200]  # 503 unless told otherwise
    assert [entry["body"] for entry in (await client.get("/sandbox/webhooks")).json()] == ['{"n":2}', '{"n":3}']
    faults = (await client.get("/sandbox/webhooks/faults")).json()
    assert (faults["fail_next"], faults["refused"]) == (0, 2)


async def test_a_slow_receiver_answers_late_but_records_at_once(client: httpx.AsyncClient) -> None:
    await client.post("/sandbox/webhooks/faults", json={"latency_ms": 300})
    started = time.perf_counter()
    assert (await deliver(client, b'{"id":"evt_slow"}')).status_code == 200
    assert time.perf_counter() - started >= 0.3
    assert len((await client.get("/sandbox/webhooks")).json()) == 1


@pytest.mark.parametrize("bad", [{"status": 200}, {"status": 600}, {"fail_next": -1}, {"latency_ms": -5}])
async def test_fault_settings_out_of_range_are_refused(client: httpx.AsyncClient, bad: dict[str, int]) -> None:
    assert (await client.post("/sandbox/webhooks/faults", json=bad)).status_code == 422
    assert (await client.get("/sandbox/webhooks/faults")).json()["status"] == 503
