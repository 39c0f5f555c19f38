"""The T1 floor: the least work the interface asks of a chained update_location_coordinate, done plainly.

One transaction per call: claim the single-use token (a conditional UPDATE on its sha256), read the calling
agent of the token's vendor, record the location, issue the next token, write the audit row; the body validated
by a pydantic model with the action's fields. It answers Lineup's envelope, so wrk_chain.lua chains its tokens
exactly as against Lineup, on the very database the stack under test uses (the tokens come from Lineup's own
/authenticate). The bench serves it with Lineup's own uvicorn command line (bench.throughput).

The only module of the floor that reads Lineup: its settings (where the database is) and its table definitions."""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Row, bindparam, event, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from models.settings import Settings, get_settings
from models.tables.agent import Agent, AgentLocation
from models.tables.audit import AuditEntry
from models.tables.session import ApiToken

PATH = "/agent"
ACTION = "update_location_coordinate"
TOKEN_REFUSED = {"msg_code": "RESTAPI001", "msg": "Invalid Token", "token": ""}
Answer = tuple[dict[str, Any], str | None]


def _coordinate(limit: float) -> AfterValidator:
    def check(value: str) -> str:
        if not -limit <= float(value) <= limit:
            raise ValueError(f"must be within ±{limit:g}")
        return value

    return AfterValidator(check)


def _ip(value: str) -> str:
    ipaddress.ip_address(value)
    return value


class Location(BaseModel):
    """update_location_coordinate's fields; the action's other common fields are ignored as Lineup ignores them."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    action: Literal["update_location_coordinate"]
    agent_id: str = Field(min_length=1, max_length=100)
    username: str = Field(min_length=1, max_length=100)
    latitude: Annotated[str, Field(max_length=32), _coordinate(90)]
    longitude: Annotated[str, Field(max_length=32), _coordinate(180)]
    ip_address: Annotated[str, AfterValidator(_ip)] | None = None


token_table, agent_table = ApiToken.__table__, Agent.__table__  # type: ignore[attr-defined]
CLAIM = (
    update(token_table)
    .where(
        token_table.c.token_hash == bindparam("hashed"),
        token_table.c.used_at.is_(None),
        token_table.c.expires_at > bindparam("now"),
    )
    .values(used_at=bindparam("now"))
    .returning(token_table.c.vendor_id, token_table.c.api_user_id, token_table.c.login_log_id)
)
# The caller and the agent whose location it reports, in one read (the usual call names the same agent twice).
AGENTS = select(agent_table.c.id, agent_table.c.username).where(
    agent_table.c.vendor_id == bindparam("vendor_id"),
    agent_table.c.active.is_(True),
    agent_table.c.username.in_(bindparam("names", expanding=True)),
)
RECORD = insert(AgentLocation.__table__)  # type: ignore[attr-defined]
ISSUE = insert(token_table)
AUDIT = insert(AuditEntry.__table__)  # type: ignore[attr-defined]


def make_engine(settings: Settings) -> AsyncEngine:
    """The kind of engine persistence/engine.py makes: aiosqlite with its pragmas, or asyncpg with its pool."""
    url = settings.db_url
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20,
        connect_args={"timeout": settings.db_connect_timeout_seconds},
    )  # fmt: skip


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def record(connection: AsyncConnection, payload: dict[str, Any], vendor_id: int, now: datetime) -> Answer:
    """The body validated, its agents read and the location recorded; the answer, and the agent it named."""
    try:
        body = Location.model_validate(payload)
    except ValidationError as invalid:
        return {"msg_code": "RESTAPI110", "msg": "Error occurred", "errors": [str(invalid.errors()[0]["msg"])]}, None
    names = sorted({body.agent_id, body.username})
    agents = {
        row.username: row.id for row in await connection.execute(AGENTS, {"vendor_id": vendor_id, "names": names})
    }
    caller, subject = agents.get(body.agent_id), agents.get(body.username)
    if caller is None or subject is None:
        return {"msg_code": "RESTAPI104", "msg": "Invalid agent", "errors": ["not an active agent"]}, body.agent_id
    await connection.execute(RECORD, {
        "agent_id": subject, "vendor_id": vendor_id, "latitude": body.latitude, "longitude": body.longitude,
        "ip_address": body.ip_address, "login_log_id": None, "reported_by": caller, "recorded_at": now,
    })  # fmt: skip
    return {"msg_code": "RESTAPI000", "msg": "Success"}, body.agent_id


async def issue(connection: AsyncConnection, owner: Row[Any], now: datetime, ttl: timedelta) -> str:
    """The next token, stored by its hash only, for the same API user and login."""
    fresh = secrets.token_urlsafe(32)
    await connection.execute(ISSUE, {
        "token_hash": digest(fresh), "vendor_id": owner.vendor_id, "api_user_id": owner.api_user_id,
        "login_log_id": owner.login_log_id, "issued_at": now, "expires_at": now + ttl,
    })  # fmt: skip
    return fresh


def create_app() -> FastAPI:
    """A factory, so uvicorn serves it with the very flags it serves Lineup's `app_from_env` with."""
    settings = get_settings()
    engine = make_engine(settings)
    ttl = timedelta(seconds=settings.token_ttl_seconds)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await engine.dispose()

    app = FastAPI(lifespan=lifespan)

    @app.post(PATH)
    async def locate(payload: dict[str, Any], token: Annotated[str | None, Header()] = None) -> JSONResponse:
        """Claims the token, records the location, issues the next token and audits the call: one transaction."""
        started, now = time.perf_counter(), datetime.now(UTC)  # aware UTC, as Lineup writes
        async with engine.begin() as connection:
            owner = (await connection.execute(CLAIM, {"hashed": digest(token or ""), "now": now})).first()
            if owner is None:
                return JSONResponse(TOKEN_REFUSED)
            answer, agent = await record(connection, payload, owner.vendor_id, now)
            fresh = await issue(connection, owner, now, ttl)
            await connection.execute(AUDIT, {
                "request_id": uuid.uuid4().hex, "at": now, "path": PATH, "action": ACTION,
                "vendor_id": owner.vendor_id, "api_user_id": owner.api_user_id, "agent_username": agent,
                "msg_code": answer["msg_code"], "http_status": 200,
                "duration_ms": int((time.perf_counter() - started) * 1000),
            })  # fmt: skip
        return JSONResponse({**answer, "token": fresh})

    return app
