"""`/docs` and `/redoc` work with no internet: their HTML names only assets the API serves itself, and every
one of them answers; under LINEUP_BASE_PATH all of it moves under the prefix."""

from __future__ import annotations

import base64
import re

import pytest

ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
KEY = base64.urlsafe_b64encode(b"k" * 32).decode()
SPEC = re.compile(r"""(?:url:\s*|spec-url=)["']([^"']+)["']""")


async def referenced(api, page: str) -> tuple[list[str], str]:
    response = await api.http.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    html: str = response.text
    assert "http://" not in html and "https://" not in html  # nothing to fetch from elsewhere, not even fonts
    spec = SPEC.findall(html)
    assert len(spec) == 1
    return ASSET.findall(html), spec[0]


@pytest.mark.parametrize(
    ("page", "assets"),
    [
        ("/docs", ["/docs-assets/swagger-ui.css", "/docs-assets/favicon.png", "/docs-assets/swagger-ui-bundle.js"]),
        ("/redoc", ["/docs-assets/favicon.png", "/docs-assets/redoc.standalone.js"]),
    ],
)
async def test_the_docs_pages_load_only_assets_the_api_serves(api, page, assets):
    found, spec = await referenced(api, page)
    assert (found, spec) == (assets, "/openapi.json")
    for asset in found:
        response = await api.http.get(asset)
        assert response.status_code == 200, asset
        assert len(response.content) > 1000, asset  # the real bundle, not an error page
    script = await api.http.get(assets[-1])
    assert script.headers["content-type"] in ("text/javascript; charset=utf-8", "application/javascript")
    assert (await api.http.get(spec)).json()["info"]["title"] == "Lineup"


@pytest.mark.parametrize("settings_overrides", [{"base_path": "/lineup"}])
async def test_the_docs_move_under_the_base_path(api):
    for page in ("/lineup/docs", "/lineup/redoc"):
        found, spec = await referenced(api, page)
        assert spec == "/lineup/openapi.json"
        assert found and all(asset.startswith("/lineup/docs-assets/") for asset in found)
        for asset in found:
            assert (await api.http.get(asset)).status_code == 200, asset
    assert (await api.http.get("/docs")).json()["msg"] == "Invalid Access!!"  # nothing left at the root
    assert (await api.http.get("/docs-assets/swagger-ui.css")).json()["msg"] == "Invalid Access!!"


@pytest.mark.parametrize(
    ("settings_overrides", "served"),
    [
        ({"profile": "production", "encryption_key": KEY}, False),  # issue 27, finding 14: not public there
        ({"profile": "production", "encryption_key": KEY, "public_docs": True}, True),
        ({"public_docs": False}, False),
        ({}, True),  # dev
    ],
)
async def test_the_docs_are_public_by_the_setting_or_the_profile(api, served):
    for page in ("/docs", "/redoc", "/openapi.json", "/docs-assets/swagger-ui.css"):
        response = await api.http.get(page)
        if served:
            assert response.status_code == 200, page
        else:
            assert response.json()["msg"] == "Invalid Access!!", page  # as any path that is not there
