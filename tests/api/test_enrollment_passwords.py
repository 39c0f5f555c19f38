"""A create's customer passwords (issue 20 target 5, issue 19 finding 8): the request is checked before any
argon2 hash; the answer does not wait for one; after the commit each distinct password is hashed once, every
line gets its own password's hash and loses the sealed copy; a line still pending verifies from it, and the
sweep hashes those an API process that died first left pending past its grace."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from unittest import mock

from sqlalchemy import update
from sqlmodel import col, select

from activities.support import SupportActivities
from api import enrollment as creation
from api.enrollment import verify_line_password
from models import crypto
from models.crypto import Fields
from models.enrollment.lines import PASSWORD, PENDING, Line
from models.support import Sweep
from models.types import utcnow
from tests.support.builders import create, line


def counting():
    return mock.patch.object(crypto, "hash_secret", wraps=crypto.hash_secret)


async def new_enrollment_id(api) -> str:
    envelope = await api.call(
        "/enrollment",
        {"action": "check_service_availability", "source": "API", "agent_id": "demo.agent", "zip_code": "30301"},
    )
    return str(envelope["data"]["enrollment_id"])


async def lines_of(api, ids):
    async with api.db.transaction() as session:
        found = (await session.exec(select(Line).where(Line.enrollment_id.in_(ids)))).all()  # type: ignore[attr-defined]
    return {row.enrollment_id: row for row in found}


async def test_a_ten_line_request_with_bogus_ids_is_refused_before_any_hash(api):
    lines = [line(f"BOGUS{n:05d}", password=f"pass-{n}-distinct") for n in range(10)]
    with counting() as hashing:
        refused = await api.call("/customer", create("BOGUS00000", *lines))
        await asyncio.sleep(0.2)  # nothing scheduled either
    assert refused["msg_code"] == "RESTAPI010" and len(refused["errors"]) == 10
    assert "Invalid enrollment id BOGUS00000. Please provide a valid enrollment ID." in refused["errors"]
    assert hashing.call_count == 0


async def test_each_distinct_password_is_hashed_once_after_the_commit_and_the_sealed_copy_dropped(api):
    ids = [await new_enrollment_id(api) for _ in range(4)]
    offered = ["family-pass-1", "family-pass-1", "other-pass-2", None]
    lines = [line(eid, password=pw) for eid, pw in zip(ids, offered, strict=True)]
    with counting() as hashing:
        # Temporal is not running here: the lines are stored, the answer says the engine is away.
        await api.call("/customer", create(ids[0], *lines))
        for _ in range(100):
            rows = await lines_of(api, ids)
            if len(rows) == 4 and all(row.password_hash != PENDING for row in rows.values()):
                break
            await asyncio.sleep(0.05)
    assert sorted(call.args[0] for call in hashing.call_args_list) == ["family-pass-1", "other-pass-2"]
    rows = await lines_of(api, ids)
    first, second, third, fourth = (rows[eid] for eid in ids)
    assert first.password_hash == second.password_hash != third.password_hash and fourth.password_hash is None
    assert crypto.verify_secret(first.password_hash, "family-pass-1")
    assert crypto.verify_secret(third.password_hash, "other-pass-2")
    cipher = api.app.state.resources.cipher
    assert all(PASSWORD not in cipher.open(row.pii, Fields) for row in rows.values())


async def test_a_line_still_pending_is_verified_from_its_sealed_password_and_hashed_then(api):
    eid = await new_enrollment_id(api)
    with mock.patch.object(creation, "hash_later"):  # as if the process died before hashing
        await api.call("/customer", create(eid, line(eid, password="sealed-pass-1")))
    row = (await lines_of(api, [eid]))[eid]
    assert row.password_hash == PENDING
    db, cipher = api.db, api.app.state.resources.cipher
    assert not await verify_line_password(db, cipher, row, "sealed-pass-2")
    assert (await lines_of(api, [eid]))[eid].password_hash == PENDING
    assert await verify_line_password(db, cipher, row, "sealed-pass-1")
    hashed = (await lines_of(api, [eid]))[eid]
    assert crypto.verify_secret(hashed.password_hash, "sealed-pass-1")
    assert PASSWORD not in cipher.open(hashed.pii, Fields)


async def test_the_sweep_hashes_passwords_left_pending_past_its_grace_once_per_distinct_password(api):
    ids = [await new_enrollment_id(api) for _ in range(3)]
    offered = ["left-pass-1", "left-pass-1", "left-pass-2"]
    with mock.patch.object(creation, "hash_later"):  # as if the process died before hashing
        lines = [line(eid, password=pw) for eid, pw in zip(ids, offered, strict=True)]
        await api.call("/customer", create(ids[0], *lines))
    db, cipher = api.db, api.app.state.resources.cipher
    sweep = SupportActivities(db, cipher)
    with counting() as hashing:
        await sweep.left_behind(Sweep(grace_seconds=3600))  # younger than the grace: the API may still hash them
        assert {row.password_hash for row in (await lines_of(api, ids)).values()} == {PENDING}
        async with db.transaction() as session:
            ago = utcnow() - timedelta(hours=2)
            await session.execute(update(Line).where(col(Line.enrollment_id).in_(ids)).values(created_at=ago))
        await sweep.left_behind(Sweep(grace_seconds=3600))
    assert sorted(call.args[0] for call in hashing.call_args_list) == ["left-pass-1", "left-pass-2"]
    rows = await lines_of(api, ids)
    assert crypto.verify_secret(rows[ids[1]].password_hash, "left-pass-1")
    assert crypto.verify_secret(rows[ids[2]].password_hash, "left-pass-2")
    assert all(PASSWORD not in cipher.open(row.pii, Fields) for row in rows.values())
