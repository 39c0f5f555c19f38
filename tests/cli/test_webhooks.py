"""`lineup webhook add|list|disable` (the forms outside checks use), and the address policy: https only (http to
loopback in dev), and in production no private, loopback or link-local address unless a setting allows it."""

from __future__ import annotations

import asyncio
import base64
import re
import secrets

import pytest
from typer.testing import CliRunner

from api.webhooks import url_refusal
from cli.main import app as cli
from models.settings import Settings

runner = CliRunner()
KEY = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()


def lineup(monkeypatch, url: str, data_dir, *args: str, **env: str):
    monkeypatch.setenv("LINEUP_DATABASE_URL", url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    for name, value in env.items():
        monkeypatch.setenv(f"LINEUP_{name.upper()}", value)
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        return runner.invoke(cli, list(args))
    finally:
        get_settings.cache_clear()


async def test_webhook_add_list_disable(sqlite_url, data_dir, monkeypatch):
    def run(*args: str, **env: str):
        return asyncio.to_thread(lineup, monkeypatch, sqlite_url, data_dir, *args, **env)

    added = await run("webhook", "add", "--vendor-id", "DEMO", "--url", "https://hooks.example.com/lineup")
    assert added.exit_code == 0, added.output
    endpoint = re.search(r"^id: (whe_\w+)$", added.output, re.M)
    secret = re.search(r"^secret: (whsec_[\w-]+)$", added.output, re.M)
    assert endpoint and secret
    assert "events: line.received," in added.output  # every type when --events is left out
    some = await run(
        "webhook",
        "add",
        "--vendor-id",
        "DEMO",
        "--url",
        "https://h.example.com/x",
        "--events",
        "line.activated,port.completed",
    )
    assert some.exit_code == 0 and "events: line.activated,port.completed" in some.output
    listed = await run("webhook", "list", "--vendor-id", "DEMO")
    assert listed.exit_code == 0 and f"{endpoint.group(1)}\tactive\thttps://hooks.example.com/lineup" in listed.output
    assert secret.group(1) not in listed.output  # shown once
    disabled = await run("webhook", "disable", endpoint.group(1))
    assert disabled.exit_code == 0 and "disabled" in disabled.output
    listed = await run("webhook", "list", "--vendor-id", "DEMO")
    assert f"{endpoint.group(1)}\tdisabled" in listed.output
    unknown = await run("webhook", "add", "--vendor-id", "DEMO", "--url", "https://h.example.com", "--events", "x.y")
    assert unknown.exit_code == 1 and "unknown event type x.y" in unknown.output
    gone = await run("webhook", "disable", "whe_nothing")
    assert gone.exit_code == 1


async def test_a_private_range_url_is_refused_in_production(sqlite_url, data_dir, monkeypatch):
    def run(*args: str, **env: str):
        return asyncio.to_thread(lineup, monkeypatch, sqlite_url, data_dir, *args, **env)

    production = {"profile": "production", "encryption_key": KEY}
    refused = await run("webhook", "add", "--vendor-id", "DEMO", "--url", "https://10.1.2.3/hook", **production)
    assert refused.exit_code == 1 and "not a public internet address" in refused.output
    allowed = await run(
        "webhook",
        "add",
        "--vendor-id",
        "DEMO",
        "--url",
        "https://10.1.2.3/hook",
        webhook_allow_private="true",
        **production,
    )
    assert allowed.exit_code == 0, allowed.output


@pytest.mark.parametrize(
    ("url", "dev", "production"),
    [
        ("https://93.184.216.34/hook", None, None),
        ("https://192.168.1.20/hook", None, "private"),
        ("https://172.16.0.1/hook", None, "private"),
        ("https://127.0.0.1/hook", None, "private"),
        ("https://169.254.169.254/latest", None, "private"),
        ("https://[::1]/hook", None, "private"),
        ("https://[fe80::1]/hook", None, "private"),
        ("https://localhost/hook", None, "private"),
        ("http://127.0.0.1:8100/sandbox/webhooks", None, "https"),
        ("http://localhost:9000/hook", None, "https"),
        ("http://93.184.216.34/hook", "https", "https"),
        ("ftp://93.184.216.34/hook", "https", "https"),
    ],
)
async def test_webhook_url_policy(url, dev, production, tmp_path):
    for profile, expected in (("dev", dev), ("production", production)):
        settings = Settings(_env_file=None, data_dir=tmp_path, profile=profile, encryption_key=KEY)
        problem = await url_refusal(url, settings)
        assert (problem is None) == (expected is None), (profile, url, problem)
        if expected is not None:
            assert expected in (problem or ""), problem
    allowed = Settings(
        _env_file=None, data_dir=tmp_path, profile="production", encryption_key=KEY, webhook_allow_private=True
    )
    assert (await url_refusal(url, allowed) is None) == (production in (None, "private"))
