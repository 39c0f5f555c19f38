"""LINEUP_HTTP_STATUS: `legacy` answers 200 for every envelope; `rest` gives meaningful statuses."""

from __future__ import annotations

import pytest

from tests.support.builders import body

JSON = {"content-type": "application/json"}


async def outcomes(api):
    token = await api.token()
    return {
        "success": await api.post("/agent", body("update_location_coordinate"), token=await api.token()),
        "validation": await api.post("/agent", body("update_location_coordinate", latitude="x"), token=token),
        "malformed": await api.post("/agent", content=b"{", headers=JSON, token=await api.token()),
        "token": await api.post("/agent", body("update_location_coordinate"), token=token),
        "source": await api.post("/agent", body("update_location_coordinate", source="FAX"), token=await api.token()),
        "company": await api.post(
            "/agent", body("update_location_coordinate", agent_id="other.agent"), token=await api.token()
        ),
        "module": await api.post("/nowhere", {}),
        "method": await api.http.get("/agent"),
        "too_large": await api.post("/agent", content=b"x" * (2 << 20), headers=JSON),
        "credentials": await api.post(
            "/authenticate", {"vendor_id": "DEMO", "username": "x", "password": "y", "pin": "1"}
        ),
    }


async def test_legacy_mode_answers_200_everywhere(api):
    assert {name: r.status_code for name, r in (await outcomes(api)).items()} == dict.fromkeys(
        [
            "success",
            "validation",
            "malformed",
            "token",
            "source",
            "company",
            "module",
            "method",
            "too_large",
            "credentials",
        ],
        200,
    )


@pytest.mark.parametrize("settings_overrides", [{"http_status": "rest"}])
async def test_rest_mode_gives_meaningful_statuses_with_the_same_bodies(api):
    results = await outcomes(api)
    assert {name: r.status_code for name, r in results.items()} == {
        "success": 200,
        "validation": 400,
        "malformed": 400,
        "token": 401,
        "source": 403,
        "company": 403,
        "module": 404,
        "method": 405,
        "too_large": 413,
        "credentials": 401,
    }
    assert results["token"].json() == {"msg_code": "RESTAPI001", "msg": "Token already used", "token": ""}
