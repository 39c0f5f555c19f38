"""Alembic is the only path to the schema: it upgrades an empty database on both engines, and the
result matches the SQLModel tables exactly (no drift between models and migrations)."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

import migrations.tables  # noqa: F401
from bench.stack_db import tool_engine
from models.auth import otp_digest
from models.crypto import cipher_for
from models.db import upgrade_async
from models.enrollment.lines import email_hash
from models.settings import get_settings
from tests.support.databases import PG_ADMIN_DB, PG_HOST, PG_PORT, PG_USER


@asynccontextmanager
async def empty_database(engine_name: str, tmp_path) -> AsyncIterator[str]:
    if engine_name == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    name = f"lineup_empty_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def _diff(connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    differences: list[Any] = compare_metadata(context, SQLModel.metadata)
    return differences


async def test_migrations_upgrade_an_empty_database_to_the_models(engine_name, tmp_path):
    async with empty_database(engine_name, tmp_path) as url:
        await upgrade_async(url)
        engine = tool_engine(url)
        try:
            async with engine.connect() as connection:
                tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
                drift = await connection.run_sync(_diff)
        finally:
            await engine.dispose()
    assert set(SQLModel.metadata.tables) <= tables
    assert "alembic_version" in tables
    assert drift == []


# Issue 19, findings 7 and 13: migration 0014_security re-hashes what earlier revisions stored (unkeyed e-mail
# digests, OTPs in clear) with the PII key, and keeps each proof image's bytes once.
def insert_row(db: sqlite3.Connection, table: str, **values: object) -> None:
    """A row with `values`, every other NOT NULL column without a default given a stand-in (an id: 1, which
    the test's first rows hold)."""
    stand_in = {"INTEGER": 1, "BOOLEAN": 0, "FLOAT": 0.0, "DATETIME": "2026-01-01 00:00:00.000000", "BLOB": b""}
    for _, name, kind, notnull, default, primary in db.execute(f"PRAGMA table_info({table})").fetchall():
        if notnull and default is None and not primary and name not in values:
            values[name] = stand_in.get(kind.split("(")[0], "x")
    names = ", ".join(values)
    db.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})", list(values.values()))


async def test_0010_rehashes_emails_and_otps_with_the_key_and_keeps_proofs_once(tmp_path, monkeypatch):
    monkeypatch.setenv("LINEUP_DATA_DIR", str(tmp_path))  # the key the migration reads: this test's own
    get_settings.cache_clear()
    try:
        path = tmp_path / "old.db"
        url = f"sqlite+aiosqlite:///{path}"
        await upgrade_async(url, "0013")  # the revision before this one
        cipher = cipher_for(get_settings())
        email = "Pat.Old@Example.com"
        with sqlite3.connect(path) as db:
            for table, key in (("vendor", "id"), ("api_user", "id"), ("agent", "id"), ("plan", "plan_id")):
                insert_row(db, table, **{key: 1})
            insert_row(db, "enrollment", enrollment_id="EOLD1")
            legacy = hashlib.sha256(email.strip().lower().encode()).hexdigest()
            insert_row(db, "line", enrollment_id="EOLD1", email_hash=legacy, pii=cipher.seal({"email": email}))
            insert_row(db, "login_log", id=1, otp="482913", opened_at="2026-01-01 00:00:00.000000")
            insert_row(db, "password_change", id=1, changed_at="2026-01-01 00:00:00.000000")
            for proof_id, kind in enumerate(("worksite_proof", "table_proof"), start=1):  # one image sent twice
                insert_row(
                    db,
                    "proof_image",
                    id=proof_id,
                    password_change_id=1,
                    kind=kind,
                    sha256="ab" * 32,
                    media_type="image/png",
                    image=b"\x89PNG same bytes",
                )
        await upgrade_async(url)
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT email_hash FROM line").fetchone()[0] == email_hash(cipher, email)
            assert db.execute("SELECT otp FROM login_log").fetchone()[0] == otp_digest(cipher, "482913")
            assert db.execute("SELECT sha256, image FROM proof_blob").fetchall() == [("ab" * 32, b"\x89PNG same bytes")]
            assert db.execute("SELECT count(*) FROM proof_image").fetchone()[0] == 2
    finally:
        get_settings.cache_clear()
