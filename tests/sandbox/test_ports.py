"""Port-in stand-in: the default lifecycle, resolution and resubmission, rejections, cancellation."""

import asyncio
from typing import Any

import httpx
import pytest

from sandbox.config import SandboxConfig
from tests.support.sandbox_bodies import iccid, key, port_in

pytestmark = pytest.mark.asyncio

# Ports here complete after 0.3 s: CONFIRMED from 0.15 s, COMPLETED from 0.3 s.
TO_CONFIRMED = 0.18
TO_COMPLETED = 0.33


@pytest.fixture
def config() -> SandboxConfig:
    """Short port lifecycle so the tests can sleep through it."""
    return SandboxConfig(db_path=":memory:", port_complete_seconds=0.3, fault_rate=0.0, latency_ms=0)


async def submit(client: httpx.AsyncClient, **overrides: Any) -> dict[str, Any]:
    answer: dict[str, Any] = (await client.post("/carrier/ports", json=port_in(**overrides), headers=key())).json()
    return answer


async def status(client: httpx.AsyncClient, port_id: str, vendor_id: str = "V1") -> dict[str, Any]:
    body = {"vendor_id": vendor_id, "port_id": port_id}
    answer: dict[str, Any] = (await client.post("/carrier/ports/status", json=body)).json()
    return answer


async def update(client: httpx.AsyncClient, port_id: str, **fields: Any) -> dict[str, Any]:
    body = {"vendor_id": "V1", "port_id": port_id, **fields}
    answer: dict[str, Any] = (await client.post("/carrier/ports/update", json=body, headers=key())).json()
    return answer


async def inquiry(client: httpx.AsyncClient, mdn: str) -> dict[str, Any]:
    answer: dict[str, Any] = (await client.post("/carrier/line-inquiry", json={"vendor_id": "V1", "mdn": mdn})).json()
    return answer


async def test_port_submission_answer(client: httpx.AsyncClient) -> None:
    answer = await submit(client)
    assert answer["STATUSCODE"] == "00" and answer["PORTIN_STATUS"] == "SUBMITTED"
    assert answer["PORT_ID"] and answer["REQUEST_DATETIME"].startswith("20")


async def test_port_default_lifecycle_completes_and_opens_the_line(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client))["PORT_ID"]
    first = await status(client, port_id)
    assert first["PORTIN_STATUS"] == "SUBMITTED" and first["MDN"] == "2125550123"
    assert first["RESOLUTION_CODE"] is None and first["RESOLUTION_DESCRIPTION"] is None
    assert (await inquiry(client, "2125550123"))["STATUSCODE"] == "909"
    await asyncio.sleep(TO_CONFIRMED)
    assert (await status(client, port_id))["PORTIN_STATUS"] == "CONFIRMED"
    await asyncio.sleep(TO_COMPLETED - TO_CONFIRMED)
    done = await status(client, port_id)
    assert done["PORTIN_STATUS"] == "COMPLETED"
    assert len(done["MSID"]) == 10 and len(done["MSL"]) == 6
    line = await inquiry(client, "2125550123")
    assert line["STATUSCODE"] == "00" and line["SIM_NUMBER"] == iccid(50)


async def test_port_completion_is_seen_by_line_inquiry_without_status_poll(client: httpx.AsyncClient) -> None:
    await submit(client)
    await asyncio.sleep(TO_COMPLETED)
    assert (await inquiry(client, "2125550123"))["STATUSCODE"] == "00"


@pytest.mark.parametrize(
    ("overrides", "code", "description", "correction"),
    [
        (
            {"account_number": "12340000"},
            "8A",
            "Account number required or incorrect",
            {"account_number": "12345678"},
        ),
        (
            {"account_password": "0000"},
            "6B",
            "Transfer PIN required or incorrect",
            {"account_password": "2468"},
        ),
    ],
)
async def test_port_resolution_then_update_completes(
    client: httpx.AsyncClient,
    overrides: dict[str, str],
    code: str,
    description: str,
    correction: dict[str, str],
) -> None:
    port_id = (await submit(client, **overrides))["PORT_ID"]
    stuck = await status(client, port_id)
    assert stuck["PORTIN_STATUS"] == "RESOLUTION_REQUIRED"
    assert (stuck["RESOLUTION_CODE"], stuck["RESOLUTION_DESCRIPTION"]) == (code, description)
    await asyncio.sleep(TO_COMPLETED)
    assert (await status(client, port_id))["PORTIN_STATUS"] == "RESOLUTION_REQUIRED"
    resubmitted = await update(client, port_id, **correction)
    assert resubmitted["STATUSCODE"] == "00" and resubmitted["PORTIN_STATUS"] == "SUBMITTED"
    assert resubmitted["RESOLUTION_CODE"] is None
    await asyncio.sleep(TO_COMPLETED)
    assert (await status(client, port_id))["PORTIN_STATUS"] == "COMPLETED"


async def test_port_update_without_the_fix_keeps_the_rejection(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client, account_number="99990000"))["PORT_ID"]
    again = await update(client, port_id, first_name="Augusta")
    assert again["PORTIN_STATUS"] == "RESOLUTION_REQUIRED" and again["RESOLUTION_CODE"] == "8A"


async def test_port_account_is_checked_before_pin(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client, account_number="10000", account_password="0000"))["PORT_ID"]
    assert (await status(client, port_id))["RESOLUTION_CODE"] == "8A"
    assert (await update(client, port_id, account_number="12345"))["RESOLUTION_CODE"] == "6B"


async def test_port_update_refused_when_not_awaiting_resolution(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client))["PORT_ID"]
    answer = await update(client, port_id, account_number="12345678")
    assert answer == {"STATUSCODE": "931", "DESCRIPTION": "Port is not awaiting resolution"}


async def test_port_number_ending_98_is_rejected(client: httpx.AsyncClient) -> None:
    answer = await submit(client, port_number="2125550198")
    assert answer == {"STATUSCODE": "930", "DESCRIPTION": "Number not eligible for port-in"}


async def test_port_number_ending_96_stays_submitted(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client, port_number="2125550196"))["PORT_ID"]
    await asyncio.sleep(TO_COMPLETED)
    assert (await status(client, port_id))["PORTIN_STATUS"] == "SUBMITTED"
    assert (await inquiry(client, "2125550196"))["STATUSCODE"] == "909"


async def test_port_status_unknown_or_other_vendor_is_404(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client))["PORT_ID"]
    not_found = {"STATUSCODE": "404", "DESCRIPTION": "Port not found"}
    assert await status(client, "PRT0000000000") == not_found
    assert await status(client, port_id, vendor_id="V2") == not_found


async def test_port_cancel_before_completion(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client))["PORT_ID"]
    body = {"vendor_id": "V1", "port_id": port_id}
    cancelled = (await client.post("/carrier/ports/cancel", json=body)).json()
    assert cancelled["STATUSCODE"] == "00" and cancelled["PORTIN_STATUS"] == "CANCELLED"
    await asyncio.sleep(TO_COMPLETED)
    assert (await status(client, port_id))["PORTIN_STATUS"] == "CANCELLED"
    assert (await inquiry(client, "2125550123"))["STATUSCODE"] == "909"


async def test_port_cancel_after_completion_is_refused(client: httpx.AsyncClient) -> None:
    port_id = (await submit(client))["PORT_ID"]
    await asyncio.sleep(TO_COMPLETED)
    refused = (await client.post("/carrier/ports/cancel", json={"vendor_id": "V1", "port_id": port_id})).json()
    assert refused == {"STATUSCODE": "932", "DESCRIPTION": "Port already completed"}
    assert (await status(client, port_id))["PORTIN_STATUS"] == "COMPLETED"


async def test_port_answers_never_echo_account_number_or_pin(client: httpx.AsyncClient) -> None:
    secrets = {"account_number": "55550000", "account_password": "Zq9pin"}
    submitted = await client.post("/carrier/ports", json=port_in(**secrets), headers=key())
    port_id = submitted.json()["PORT_ID"]
    polled = await client.post("/carrier/ports/status", json={"vendor_id": "V1", "port_id": port_id})
    updated = await client.post(
        "/carrier/ports/update",
        json={"vendor_id": "V1", "port_id": port_id, "account_number": "77770000"},
        headers=key(),
    )
    for response in (submitted, polled, updated):
        assert "55550000" not in response.text and "Zq9pin" not in response.text
        assert "77770000" not in response.text


async def test_port_without_idempotency_key_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post("/carrier/ports", json=port_in())
    assert response.status_code == 400
