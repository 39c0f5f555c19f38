"""The carrier list: one fixed id per abbreviation, and the same names port validation gives."""

import httpx
import pytest

pytestmark = pytest.mark.asyncio

# Lineup stores these ids, so they may never change.
EXPECTED = [
    {"CARRIER_ID": "1", "CARRIER": "ATT", "CARRIER_NAME": "AT&T Mobility"},
    {"CARRIER_ID": "2", "CARRIER": "TMB", "CARRIER_NAME": "T-Mobile USA"},
    {"CARRIER_ID": "3", "CARRIER": "VER", "CARRIER_NAME": "Verizon Wireless"},
    {"CARRIER_ID": "4", "CARRIER": "SPR", "CARRIER_NAME": "Sprint"},
    {"CARRIER_ID": "5", "CARRIER": "TMBRLY", "CARRIER_NAME": "T-Mobile Reseller"},
    {"CARRIER_ID": "6", "CARRIER": "USC", "CARRIER_NAME": "UScellular"},
]


async def test_carriers_lists_fixed_ids(client: httpx.AsyncClient) -> None:
    response = await client.post("/carrier/carriers", json={"vendor_id": "V1"})
    assert response.status_code == 200
    assert response.json() == {"STATUSCODE": "00", "DESCRIPTION": "Success", "CARRIERS": EXPECTED}


async def test_carriers_are_the_same_for_every_vendor_and_call(client: httpx.AsyncClient) -> None:
    first = (await client.post("/carrier/carriers", json={"vendor_id": "V1"})).json()
    other = (await client.post("/carrier/carriers", json={"vendor_id": "V2"})).json()
    assert first == other


async def test_carriers_without_vendor_id_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/carrier/carriers", json={})
    assert response.status_code == 422
    assert [problem["loc"] for problem in response.json()["detail"]] == [["body", "vendor_id"]]


@pytest.mark.parametrize("number", ["4045551230", "4045551233", "4045551236", "4045551239"])
async def test_carriers_names_match_port_validation(client: httpx.AsyncClient, number: str) -> None:
    names = {carrier["CARRIER"]: carrier["CARRIER_NAME"] for carrier in EXPECTED}
    body = {"vendor_id": "V1", "port_number": number}
    answer = (await client.post("/carrier/ports/validate", json=body)).json()
    assert answer["CURRENT_CARRIER_NAME"] == names[answer["CURRENT_CARRIER"]]
