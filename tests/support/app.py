"""The API in-process (lifespan included) over httpx's ASGI transport, with token helpers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import col, select

from api.catalog import CATALOG
from api.main import create_app
from models import auth
from models.auth import ApiUser, Vendor, otp_digest
from models.db import Database
from models.settings import Settings
from tests.support.keys import TEST_ENCRYPTION_KEY


def make_settings(data_dir: Path, database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "database_url": database_url,
        "temporal_address": "127.0.0.1:1",  # unreachable unless a test provides a server
        # One key for every test: it seals PII columns and Temporal payloads alike, and the session's dev server
        # client (tests.support.temporal) reads the payloads any test's worker or API writes.
        "encryption_key": TEST_ENCRYPTION_KEY,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


def reconfigure(app: Any, **flat: Any) -> Settings:
    """The running app's settings with some changed, by their flat names: settings are frozen, so a test that
    needs another value mid-test replaces them whole, where the app and its operations read them."""
    resources = app.state.resources
    settings: Settings = resources.settings.replaced(**flat)
    resources.temporal.settings = settings
    app.state.resources = replace(resources, settings=settings)
    app.state.settings = settings
    return settings


class ApiClient:
    """Posts envelopes; `token()` mints a token as /authenticate would, without the argon2 cost."""

    def __init__(self, app: Any, http: httpx.AsyncClient) -> None:
        self.app, self.http = app, http

    @classmethod
    @asynccontextmanager
    async def running(cls, settings: Settings, **app_kwargs: Any) -> AsyncIterator[ApiClient]:
        app = create_app(settings, **app_kwargs)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://lineup.test") as http:
                yield cls(app, http)

    @property
    def db(self) -> Database:
        db: Database = self.app.state.resources.db
        return db

    def otp_hash(self, otp: object) -> str:
        """What the login log keeps of an OTP (its keyed digest, under this app's key)."""
        return otp_digest(self.app.state.resources.cipher, str(otp))

    async def token(self, vendor: str = "DEMO", username: str | None = None) -> str:
        async with self.db.transaction() as transaction:
            session = transaction
            query = select(ApiUser).join(Vendor).where(Vendor.code == vendor).order_by(col(ApiUser.id))
            # Without a username, the vendor's own API user: an agent's own (`agent create --pin`) acts as that
            # agent only (decisions.md, "Who calls").
            query = (
                query.where(ApiUser.username == username) if username else query.where(col(ApiUser.agent_id).is_(None))
            )
            user = (await session.exec(query)).first()
            assert user is not None and user.id is not None
            owner = auth.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=None)
            return await auth.issue(transaction, owner, self.app.state.settings.auth.token_ttl_seconds)

    async def post(self, path: str, body: Any = None, *, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["token"] = token
        if body is not None:
            kwargs["json"] = body
        return await self.http.post(path, headers=headers, **kwargs)

    async def call(self, path: str, body: dict[str, Any], *, vendor: str = "DEMO") -> dict[str, Any]:
        """One call with a fresh token; returns the envelope. A successful answer is held to the schema the
        OpenAPI document gives for its action (models/answers), so the document cannot drift."""
        response = await self.post(path, body, token=await self.token(vendor))
        payload: dict[str, Any] = response.json()
        if payload.get("msg_code") == "RESTAPI000" and (declared := CATALOG.by_name.get(str(body.get("action")))):
            assert ("data" in payload) == (declared.answer is not None), payload
            if declared.answer is not None:
                declared.adapter.validate_python(payload["data"])
        return payload
