"""Lineup's own floor, information beside T1's baseline (bench.shared_floor: ../shared/bench's floor): the least
work the interface asks of a chained update_location_coordinate, done plainly as that one is, but on Lineup's
schema (its indexes and foreign keys), behind Lineup's uvicorn command (its h11 protocol with read timeouts) and
with the caller and the subject both checked as active agents. The gap between the two floors is what those cost;
the gap from this one to Lineup, what Lineup's code costs.

One transaction per call: claim the single-use token (a conditional UPDATE on its sha256), read the calling
agent of the token's vendor, record the location, issue the next token, write the audit row; the body validated
by a pydantic model with the action's fields. Plainly means the drivers themselves, no ORM and no async
adapter: stdlib sqlite3 (a write takes microseconds, so it runs right in the handler) and asyncpg's own pool
and prepared statements. It answers Lineup's envelope, so wrk_chain.lua chains its tokens exactly as against
Lineup, on the very database the stack under test uses (the tokens come from Lineup's own /authenticate). The
bench serves it with Lineup's own uvicorn command line (bench.throughput).

The only module of the floor that reads Lineup: its settings (where the database is)."""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal, Protocol

import asyncpg
from fastapi import FastAPI, Header
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import make_url

from models.settings import Settings, get_settings

PATH = "/agent"
ACTION = "update_location_coordinate"
TOKEN_REFUSED = {"msg_code": "RESTAPI001", "msg": "Invalid Token", "token": ""}

# The statements, in the drivers' own parameter styles ({} is the placeholder, filled per driver).
CLAIM = (
    "UPDATE api_token SET used_at = {now} WHERE token_hash = {hash} AND used_at IS NULL AND expires_at > {now} "
    "RETURNING vendor_id, api_user_id, login_log_id"
)
AGENTS = "SELECT id, username FROM agent WHERE vendor_id = {vendor} AND active AND username IN ({caller}, {subject})"
RECORD = (
    "INSERT INTO agent_location (agent_id, vendor_id, latitude, longitude, ip_address, login_log_id, reported_by, "
    "recorded_at) VALUES ({subject}, {vendor}, {latitude}, {longitude}, {ip}, NULL, {caller}, {now})"
)
ISSUE = (
    "INSERT INTO api_token (token_hash, vendor_id, api_user_id, login_log_id, issued_at, expires_at) "
    "VALUES ({hash}, {vendor}, {user}, {login}, {now}, {expires})"
)
AUDIT = (
    "INSERT INTO audit_log (request_id, at, path, action, vendor_id, api_user_id, agent_username, msg_code, "
    "http_status, duration_ms) VALUES ({request}, {now}, {path}, {action}, {vendor}, {user}, {agent}, {code}, 200, "
    "{duration})"
)


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


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store(Protocol):
    async def call(self, token: str, body: Location | None, ttl: timedelta) -> JSONResponse: ...

    async def close(self) -> None: ...


class SqliteStore:
    """One stdlib connection; each call's transaction runs to its end without awaiting, so calls take turns."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
            self.db.execute(f"PRAGMA {pragma}")

    @staticmethod
    def sql(statement: str) -> str:
        return statement.replace("{", ":").replace("}", "")

    async def call(self, token: str, body: Location | None, ttl: timedelta) -> JSONResponse:
        started, now = time.perf_counter(), _stored(datetime.now(UTC))
        db, sql = self.db, self.sql
        db.execute("BEGIN IMMEDIATE")
        try:
            owner = db.execute(sql(CLAIM), {"hash": digest(token), "now": now}).fetchone()
            if owner is None:
                db.execute("ROLLBACK")
                return JSONResponse(TOKEN_REFUSED)
            vendor, user, login = owner
            answer, agent = _refused(body), body.agent_id if body else None
            if body is not None:
                names = {"vendor": vendor, "caller": body.agent_id, "subject": body.username}
                found = dict(db.execute(sql(AGENTS), names).fetchall())
                ids = {name: agent_id for agent_id, name in found.items()}
                if body.agent_id in ids and body.username in ids:
                    db.execute(
                        sql(RECORD),
                        {
                            "subject": ids[body.username],
                            "vendor": vendor,
                            "latitude": body.latitude,
                            "longitude": body.longitude,
                            "ip": body.ip_address,
                            "caller": ids[body.agent_id],
                            "now": now,
                        },
                    )
                    answer = {"msg_code": "RESTAPI000", "msg": "Success"}
            fresh = secrets.token_urlsafe(32)
            expires = _stored(datetime.now(UTC) + ttl)
            db.execute(
                sql(ISSUE),
                {
                    "hash": digest(fresh),
                    "vendor": vendor,
                    "user": user,
                    "login": login,
                    "now": now,
                    "expires": expires,
                },
            )
            db.execute(
                sql(AUDIT),
                {
                    "request": uuid.uuid4().hex,
                    "now": now,
                    "path": PATH,
                    "action": ACTION,
                    "vendor": vendor,
                    "user": user,
                    "agent": agent,
                    "code": answer["msg_code"],
                    "duration": int((time.perf_counter() - started) * 1000),
                },
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return JSONResponse({**answer, "token": fresh})

    async def close(self) -> None:
        self.db.close()


def _stored(moment: datetime) -> str:
    """A UTC time as SQLAlchemy writes it to SQLite, so comparisons with Lineup's own rows hold."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def _refused(body: Location | None) -> dict[str, str]:
    return (
        {"msg_code": "RESTAPI110", "msg": "Error occurred"}
        if body is None
        else {"msg_code": "RESTAPI104", "msg": "Invalid Agent Id"}
    )


class PostgresStore:
    """asyncpg's own pool (as many connections as Lineup's pool keeps) and its prepared statements."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str, settings: Settings) -> PostgresStore:
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        pool = await asyncpg.create_pool(
            dsn, min_size=2, max_size=10, timeout=settings.database.connect_timeout_seconds
        )
        return cls(pool)

    @staticmethod
    def sql(statement: str, *names: str) -> str:
        return statement.format(**{name: f"${number}" for number, name in enumerate(names, start=1)})

    async def call(self, token: str, body: Location | None, ttl: timedelta) -> JSONResponse:
        started, now = time.perf_counter(), datetime.now(UTC)
        sql = self.sql
        async with self.pool.acquire() as db, db.transaction():
            owner = await db.fetchrow(sql(CLAIM, "now", "hash"), now, digest(token))
            if owner is None:
                return JSONResponse(TOKEN_REFUSED)
            vendor, user, login = owner["vendor_id"], owner["api_user_id"], owner["login_log_id"]
            answer, agent = _refused(body), body.agent_id if body else None
            if body is not None:
                rows = await db.fetch(sql(AGENTS, "vendor", "caller", "subject"), vendor, body.agent_id, body.username)
                ids = {row["username"]: row["id"] for row in rows}
                if body.agent_id in ids and body.username in ids:
                    statement = sql(RECORD, "subject", "vendor", "latitude", "longitude", "ip", "caller", "now")
                    await db.execute(
                        statement,
                        ids[body.username],
                        vendor,
                        body.latitude,
                        body.longitude,
                        body.ip_address,
                        ids[body.agent_id],
                        now,
                    )
                    answer = {"msg_code": "RESTAPI000", "msg": "Success"}
            fresh = secrets.token_urlsafe(32)
            statement = sql(ISSUE, "hash", "vendor", "user", "login", "now", "expires")
            await db.execute(statement, digest(fresh), vendor, user, login, now, now + ttl)
            statement = sql(AUDIT, "request", "now", "path", "action", "vendor", "user", "agent", "code", "duration")
            duration = int((time.perf_counter() - started) * 1000)
            await db.execute(
                statement, uuid.uuid4().hex, now, PATH, ACTION, vendor, user, agent, answer["msg_code"], duration
            )
        return JSONResponse({**answer, "token": fresh})

    async def close(self) -> None:
        await self.pool.close()


async def open_store(settings: Settings) -> Store:
    url = settings.db_url
    if url.startswith("sqlite"):
        return SqliteStore(make_url(url).database or "")
    return await PostgresStore.open(url, settings)


def create_app() -> FastAPI:
    """A factory, so uvicorn serves it with the very flags it serves Lineup's `app_from_env` with."""
    settings = get_settings()
    ttl = timedelta(seconds=settings.auth.token_ttl_seconds)
    stores: list[Store] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        stores.append(await open_store(settings))
        yield
        await stores[0].close()

    app = FastAPI(lifespan=lifespan)

    @app.post(PATH)
    async def locate(payload: dict[str, object], token: Annotated[str | None, Header()] = None) -> JSONResponse:
        """Claims the token, records the location, issues the next token and audits the call: one transaction."""
        try:
            body: Location | None = Location.model_validate(payload)
        except ValidationError:
            body = None  # refused, but the token is still claimed and the next one issued, as Lineup does
        return await stores[0].call(token or "", body, ttl)

    return app
