"""eSIM activation: the carrier assigns a profile (ICCID and LPA activation code) instead of a physical SIM."""

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sandbox.identifiers import is_valid_iccid, is_valid_mdn
from tests.support.sandbox_bodies import activation, iccid, key

pytestmark = pytest.mark.asyncio

MATCHING_ID = re.compile(r"[A-Z0-9]{5}(-[A-Z0-9]{5}){3}")
PROFILE_FIELDS = {"ICCID", "ACTIVATION_CODE", "SMDP_ADDRESS", "MATCHING_ID"}
LINE_FIELDS = {"STATUSCODE", "DESCRIPTION", "MDN", "MSID", "MSL", "ICCID"}


async def activate(client: httpx.AsyncClient, headers: dict[str, str] | None = None, **overrides: Any) -> Any:
    body = activation(**{"iccid": None, "esim": True, **overrides})
    return (await client.post("/carrier/activations", json=body, headers=headers or key())).json()


async def test_activation_esim_assigns_a_profile(client: httpx.AsyncClient) -> None:
    answer = await activate(client)
    assert set(answer) == LINE_FIELDS | PROFILE_FIELDS
    assert (answer["STATUSCODE"], answer["DESCRIPTION"]) == ("00", "Activation successful")
    assert is_valid_mdn(answer["MDN"]) and len(answer["MSID"]) == 10 and len(answer["MSL"]) == 6
    assert is_valid_iccid(answer["ICCID"]) and answer["ICCID"].startswith("89") and len(answer["ICCID"]) in (19, 20)
    assert answer["SMDP_ADDRESS"] == "smdp.sandbox-carrier.example"
    assert MATCHING_ID.fullmatch(answer["MATCHING_ID"])
    assert answer["ACTIVATION_CODE"] == f"LPA:1$smdp.sandbox-carrier.example${answer['MATCHING_ID']}"


async def test_activation_without_esim_has_no_profile(client: httpx.AsyncClient) -> None:
    answer = await activate(client, esim=False, iccid=iccid(1))
    assert set(answer) == LINE_FIELDS and answer["ICCID"] == iccid(1)


async def test_activation_esim_with_a_physical_sim_is_913(client: httpx.AsyncClient) -> None:
    answer = await activate(client, iccid=iccid(7))
    assert answer == {"STATUSCODE": "913", "DESCRIPTION": "eSIM activation takes no physical SIM"}


async def test_activation_esim_same_key_same_profile(client: httpx.AsyncClient) -> None:
    headers = key()
    first = await activate(client, headers=headers)
    again = await activate(client, headers=headers)
    assert again == first
    lines = (await client.get("/sandbox/carrier/lines", params={"enrollment_id": "E1"})).json()["lines"]
    assert lines == [{"mdn": first["MDN"], "iccid": first["ICCID"], "status": "ACTIVE"}]


async def test_activation_esim_another_key_another_profile(client: httpx.AsyncClient) -> None:
    first = await activate(client)
    second = await activate(client, enrollment_id="E2")
    assert second["ICCID"] != first["ICCID"] and second["MATCHING_ID"] != first["MATCHING_ID"]
    assert second["MDN"] != first["MDN"]


async def test_activation_esim_skips_a_profile_active_on_another_line(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken, fresh = iccid(60), iccid(61)
    await client.post("/carrier/activations", json=activation(iccid=taken), headers=key())
    # The profile generator first offers the SIM that is already active, then a free one.
    offers: Iterator[str] = iter([taken, fresh])
    monkeypatch.setattr("sandbox.carrier.generate_esim_iccid", lambda: next(offers))
    answer = await activate(client, enrollment_id="E2")
    assert (answer["STATUSCODE"], answer["ICCID"]) == ("00", fresh)


async def test_line_inquiry_of_an_esim_line_shows_the_profile(client: httpx.AsyncClient) -> None:
    line = await activate(client)
    inquiry = (await client.post("/carrier/line-inquiry", json={"vendor_id": "V1", "mdn": line["MDN"]})).json()
    assert inquiry["STATUSCODE"] == "00"
    assert inquiry["SIM_NUMBER"] == inquiry["ESN"] == line["ICCID"]


async def reserve(client: httpx.AsyncClient, headers: dict[str, str], vendor_id: str = "V1") -> Any:
    body = {"vendor_id": vendor_id, "enrollment_id": "E1"}
    return (await client.post("/carrier/esim-profiles", json=body, headers=headers)).json()


async def test_a_reserved_profile_is_the_one_its_activation_uses(client: httpx.AsyncClient) -> None:
    """A line without a SIM gets its profile before activation (Lineup's assign_esim); the same key answers the
    same profile, and the activation on its ICCID downloads that very profile."""
    headers = key()
    reserved = await reserve(client, headers)
    assert set(reserved) == {"STATUSCODE", "DESCRIPTION", "VENDOR_ID"} | PROFILE_FIELDS
    assert (reserved["STATUSCODE"], reserved["DESCRIPTION"]) == ("00", "eSIM profile reserved")
    assert is_valid_iccid(reserved["ICCID"]) and MATCHING_ID.fullmatch(reserved["MATCHING_ID"])
    assert await reserve(client, headers) == reserved
    activated = await activate(client, iccid=reserved["ICCID"])
    assert activated["STATUSCODE"] == "00", activated
    assert {name: activated[name] for name in PROFILE_FIELDS} == {name: reserved[name] for name in PROFILE_FIELDS}


async def test_another_vendors_reserved_profile_is_a_physical_sim_to_an_esim_activation(
    client: httpx.AsyncClient,
) -> None:
    reserved = await reserve(client, key(), vendor_id="V2")
    refused = await activate(client, iccid=reserved["ICCID"])
    assert (refused["STATUSCODE"], refused["DESCRIPTION"]) == ("913", "eSIM activation takes no physical SIM")
