"""Carrier stand-in: device compatibility, activation, line inquiry, SIM release, idempotency keys."""

from typing import Any

import httpx
import pytest

from sandbox.identifiers import is_valid_iccid, is_valid_mdn
from tests.support.sandbox_bodies import activation, iccid, imei, key

pytestmark = pytest.mark.asyncio


async def device(client: httpx.AsyncClient, digit: str) -> httpx.Response:
    return await client.post("/carrier/device-compatibility", json={"imei": imei(digit), "carrier": "TMB"})


def details(answer: dict[str, Any]) -> Any:
    """The native block, where the original's device checkers read it."""
    return answer["RESULT"]["responseDetails"]["inquireDeviceStatusResponse"]["deviceStatusDetails"]


def native(digit: str, make: str, model: str, colour: str, volte: str, umts: str, category: str) -> dict[str, Any]:
    return {
        "imei": imei(digit),
        "attCompatibility": colour,
        "manufacturer": {"make": make, "model": model},
        "blacklistedIndicator": "Y" if digit == "8" else "N",
        "volteCapableIndicator": volte,
        "umtsCapableIndicator": umts,
        "deviceCategory": category,
    }


FLAT_FIELDS = {
    "STATUSCODE", "DESCRIPTION", "IMEI", "REFERENCENUMBER", "VOLTE_COMPATIBLE", "NAME", "IS_MOBILE_DEVICE",
    "COMPATIBILITY",
}  # fmt: skip


@pytest.mark.parametrize(
    ("digit", "compatibility", "volte", "name"),
    [
        ("0", "COMPATIBLE", "YES", "Apple iPhone 15"),
        ("1", "COMPATIBLE", "YES", "Samsung Galaxy S24"),
        ("2", "COMPATIBLE", "YES", "Google Pixel 8"),
        ("3", "COMPATIBLE", "YES", "Motorola moto g 5G"),
        ("4", "COMPATIBLE", "NO", "Samsung Galaxy A03s"),
        ("5", "COMPATIBLE", "NO", "Apple iPhone 6"),
        ("6", "NOT COMPATIBLE", "NO", "Nokia 3310 3G"),
        ("7", "NOT COMPATIBLE", "NO", "Alcatel Go Flip"),
    ],
)
async def test_device_compatibility_by_14th_digit(
    client: httpx.AsyncClient, digit: str, compatibility: str, volte: str, name: str
) -> None:
    response = await device(client, digit)
    answer = response.json()
    assert response.status_code == 200
    assert set(answer) == FLAT_FIELDS | {"RESULT"}
    assert answer == {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "IMEI": imei(digit),
        "REFERENCENUMBER": answer["REFERENCENUMBER"],
        "VOLTE_COMPATIBLE": volte,
        "NAME": name,
        "IS_MOBILE_DEVICE": "YES",
        "COMPATIBILITY": compatibility,
        "RESULT": answer["RESULT"],
    }
    assert len(answer["REFERENCENUMBER"]) == 12 and answer["REFERENCENUMBER"].isdigit()


@pytest.mark.parametrize(
    ("digit", "make", "model", "colour", "volte", "umts", "category"),
    [
        ("0", "Apple", "iPhone 15", "GREEN", "Y", "Y", "SMARTPHONE"),
        ("1", "Samsung", "Galaxy S24", "GREEN", "Y", "Y", "SMARTPHONE"),
        ("2", "Google", "Pixel 8", "GREEN", "Y", "Y", "SMARTPHONE"),
        ("3", "Motorola", "moto g 5G", "GREEN", "Y", "Y", "SMARTPHONE"),
        ("4", "Samsung", "Galaxy A03s", "YELLOW", "N", "Y", "SMARTPHONE"),
        ("5", "Apple", "iPhone 6", "YELLOW", "N", "Y", "SMARTPHONE"),
        ("6", "Nokia", "3310 3G", "RED", "N", "N", "FEATURE PHONE"),
        ("7", "Alcatel", "Go Flip", "RED", "N", "N", "FEATURE PHONE"),
    ],
)
async def test_device_compatibility_native_block_by_14th_digit(
    client: httpx.AsyncClient, digit: str, make: str, model: str, colour: str, volte: str, umts: str, category: str
) -> None:
    answer = (await device(client, digit)).json()
    assert details(answer) == native(digit, make, model, colour, volte, umts, category)
    assert set(answer["RESULT"]) == {"responseDetails"}
    assert answer["NAME"] == f"{make} {model}"


async def test_device_compatibility_digit_8_is_blacklisted(client: httpx.AsyncClient) -> None:
    response = await device(client, "8")
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == {"STATUSCODE", "DESCRIPTION", "IMEI", "RESULT"}
    assert (answer["STATUSCODE"], answer["DESCRIPTION"], answer["IMEI"]) == ("902", "Device is blacklisted", imei("8"))
    assert details(answer) == native("8", "Samsung", "Galaxy S9", "RED", "N", "N", "SMARTPHONE")


async def test_device_compatibility_invalid_imei_is_901_without_native_block(client: httpx.AsyncClient) -> None:
    bad = imei("0")[:-1] + str((int(imei("0")[-1]) + 1) % 10)
    answer = (await client.post("/carrier/device-compatibility", json={"imei": bad, "carrier": "TMB"})).json()
    assert answer == {"STATUSCODE": "901", "DESCRIPTION": "Invalid IMEI", "IMEI": bad}


async def test_device_compatibility_digit_9_is_carrier_down(client: httpx.AsyncClient) -> None:
    response = await device(client, "9")
    assert response.status_code == 503
    assert response.json() == {"STATUSCODE": "503", "DESCRIPTION": "Service unavailable"}


async def test_activation_returns_new_line_numbers(client: httpx.AsyncClient) -> None:
    answer = (await client.post("/carrier/activations", json=activation(), headers=key())).json()
    assert answer["STATUSCODE"] == "00" and answer["DESCRIPTION"] == "Activation successful"
    assert is_valid_mdn(answer["MDN"])
    assert len(answer["MSID"]) == 10 and answer["MSID"].isdigit()
    assert len(answer["MSL"]) == 6 and answer["MSL"].isdigit()
    assert answer["ICCID"] == iccid(1)


async def test_activation_same_key_returns_same_numbers(client: httpx.AsyncClient) -> None:
    headers = key()
    first = (await client.post("/carrier/activations", json=activation(), headers=headers)).json()
    again = (await client.post("/carrier/activations", json=activation(), headers=headers)).json()
    assert first["STATUSCODE"] == "00"
    assert again == first


async def test_activation_sim_in_use_with_another_key_is_915(client: httpx.AsyncClient) -> None:
    await client.post("/carrier/activations", json=activation(), headers=key())
    second = await client.post("/carrier/activations", json=activation(enrollment_id="E2"), headers=key())
    assert second.status_code == 200
    assert second.json() == {"STATUSCODE": "915", "DESCRIPTION": "SIM already in use"}


async def test_release_sim_lets_it_activate_again(client: httpx.AsyncClient) -> None:
    first = (await client.post("/carrier/activations", json=activation(), headers=key())).json()
    released = await client.post("/sandbox/carrier/release-sim", json={"iccid": iccid(1)})
    assert released.json() == {"released": True}
    again = (await client.post("/carrier/activations", json=activation(), headers=key())).json()
    assert again["STATUSCODE"] == "00" and again["MDN"] != first["MDN"]
    old = await client.post("/carrier/line-inquiry", json={"vendor_id": "V1", "mdn": first["MDN"]})
    assert old.json()["STATUSCODE"] == "909"


async def test_release_unknown_sim_is_false(client: httpx.AsyncClient) -> None:
    released = await client.post("/sandbox/carrier/release-sim", json={"iccid": iccid(999)})
    assert released.json() == {"released": False}


async def test_activation_bad_iccid_is_912(client: httpx.AsyncClient) -> None:
    bad = iccid(1)[:-1] + str((int(iccid(1)[-1]) + 1) % 10)
    answer = (await client.post("/carrier/activations", json=activation(iccid=bad), headers=key())).json()
    assert answer == {"STATUSCODE": "912", "DESCRIPTION": "Invalid ICCID"}


async def test_activation_without_iccid_generates_a_valid_one(client: httpx.AsyncClient) -> None:
    body = activation(iccid=None, esn="12345678901")
    answer = (await client.post("/carrier/activations", json=body, headers=key())).json()
    assert answer["STATUSCODE"] == "00" and is_valid_iccid(answer["ICCID"])


@pytest.mark.parametrize(("state", "area_code"), [("CA", "213"), ("TX", "214"), ("PR", "787"), ("ZZ", "212")])
async def test_activation_mdn_area_code_from_state(client: httpx.AsyncClient, state: str, area_code: str) -> None:
    answer = (await client.post("/carrier/activations", json=activation(state=state), headers=key())).json()
    assert answer["MDN"].startswith(area_code)
    assert answer["MDN"][3] not in "01"


async def test_activation_mdns_are_unique(client: httpx.AsyncClient) -> None:
    mdns = set()
    for serial in range(30):
        body = activation(iccid=iccid(100 + serial))
        mdns.add((await client.post("/carrier/activations", json=body, headers=key())).json()["MDN"])
    assert len(mdns) == 30


async def test_activation_without_idempotency_key_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post("/carrier/activations", json=activation())
    assert response.status_code == 400
    assert response.json() == {"STATUSCODE": "400", "DESCRIPTION": "Idempotency-Key header required"}


async def test_line_inquiry_active_line(client: httpx.AsyncClient) -> None:
    line = (await client.post("/carrier/activations", json=activation(), headers=key())).json()
    body = {
        "vendor_id": "V1",
        "mdn": line["MDN"],
        "line_inquiry": True,
        "balance_inquiry": True,
        "query_sim_info": True,
        "subscriber_status": True,
    }
    answer = (await client.post("/carrier/line-inquiry", json=body)).json()
    assert answer["STATUSCODE"] == "00" and answer["DESCRIPTION"] == "Success"
    assert answer["MDN"] == line["MDN"]
    assert answer["ESN"] == answer["SIM_NUMBER"] == iccid(1)
    assert answer["ESNSTATUS"] == answer["ACCOUNTSTATUS"] == "ACTIVE"
    assert (answer["TALK_BALANCE"], answer["SMS_BALANCE"], answer["DATA_BALANCE"]) == (1000, 1000, 5120)
    assert answer["BAN"] and answer["REFERENCENUMBER"]


@pytest.mark.parametrize(("vendor", "known"), [("V2", True), ("V1", False)])
async def test_line_inquiry_number_not_held_for_vendor_is_909(
    client: httpx.AsyncClient, vendor: str, known: bool
) -> None:
    line = (await client.post("/carrier/activations", json=activation(), headers=key())).json()
    mdn = line["MDN"] if known else "2125550190"
    answer = (await client.post("/carrier/line-inquiry", json={"vendor_id": vendor, "mdn": mdn})).json()
    assert answer == {"STATUSCODE": "909", "DESCRIPTION": "MDN does not belong to the vendor", "MDN": mdn}
