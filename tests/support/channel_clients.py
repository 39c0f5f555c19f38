"""The channel clients in tests: the demo API user's credentials, quick repeats, transports that see what went over
the wire (paths, the tokens answered, each body's external_transaction_id), and the docs' examples."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from lineup_client import AsyncLineup, Lineup, Retry

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "clients.md"
README = ROOT / "README.md"
DEMO_URL = "http://127.0.0.1:8000"  # where the guide's examples find `make run`'s API
CREDENTIALS = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
DEFAULTS = {"source": "API", "agent_id": "demo.agent"}
QUICK = Retry(repeats=3, backoff=0.05, max_backoff=0.2)  # the repeats' schedule, in a hurry


class Wire:
    """What one client sent and was answered."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.tokens: list[str] = []  # every token an answer carried, oldest first
        self.transaction_ids: list[str] = []

    def sent(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)
        if request.url.path != "/authenticate":
            self.transaction_ids.append(json.loads(request.content)["external_transaction_id"])

    def answered(self, response: httpx.Response) -> None:
        try:
            token = response.json().get("token")
        except ValueError:
            return
        if token:
            self.tokens.append(token)

    @property
    def logins(self) -> int:
        return self.paths.count("/authenticate")


class WatchedTransport(httpx.HTTPTransport):
    def __init__(self, wire: Wire) -> None:
        super().__init__()
        self.wire = wire

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.wire.sent(request)
        response = super().handle_request(request)
        response.read()
        self.wire.answered(response)
        return response


class WatchedAsyncTransport(httpx.AsyncHTTPTransport):
    def __init__(self, wire: Wire) -> None:
        super().__init__()
        self.wire = wire

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.wire.sent(request)
        response = await super().handle_async_request(request)
        await response.aread()
        self.wire.answered(response)
        return response


def sync_client(url: str, wire: Wire | None = None, **options: Any) -> Lineup:
    transport = WatchedTransport(wire) if wire is not None else None
    return Lineup(url, **{**CREDENTIALS, **DEFAULTS, "retry": QUICK, "transport": transport, **options})


def async_client(url: str, wire: Wire | None = None, **options: Any) -> AsyncLineup:
    transport = WatchedAsyncTransport(wire) if wire is not None else None
    return AsyncLineup(url, **{**CREDENTIALS, **DEFAULTS, "retry": QUICK, "transport": transport, **options})


def example(language: str, page: Path = GUIDE) -> str:
    """A page's whole-enrollment example in `python` or `js`: its first block of that language that makes a client."""
    found = [code for code in re.findall(rf"```{language}\n(.*?)```", page.read_text(), re.S) if "Lineup(" in code]
    assert found, f"{page.name} has no {language} example"
    code: str = found[0]
    return code
