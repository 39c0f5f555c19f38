"""Line passwords kept sealed until hashed (issue 20 target 5): a create stores each line's password sealed with
its PII and `password_hash` PENDING, and the API hashes it right after the commit. Here: the hashing of sealed
passwords, one argon2 per distinct password, shared by the API's task after the commit and the sweep, which
hashes what an API process that died first left pending."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import col, select

from models.crypto import FieldCipher
from models.documents import Fields
from models.passwords import hash_secret_async
from models.tables.enrollment import Line
from persistence.engine import Database

log = logging.getLogger(__name__)
PENDING = "pending"  # `line.password_hash` while the password is sealed in the line's PII, not yet hashed
PASSWORD = "password"  # its key in the sealed PII document


async def hash_all(db: Database, cipher: FieldCipher, lines_by_password: dict[str, list[str]]) -> int:
    """One hash per distinct password, written to every line that has it; how many lines it settled."""
    settled = 0
    for password, enrollment_ids in lines_by_password.items():
        try:
            settled += await settle(db, cipher, enrollment_ids, await hash_secret_async(password))
        except Exception:  # the lines keep their sealed password: verified from it, hashed later
            log.warning("line passwords left pending for %d line(s)", len(enrollment_ids), exc_info=True)
    return settled


async def settle(db: Database, cipher: FieldCipher, enrollment_ids: list[str], hashed: str) -> int:
    """The hash in place of the sealed password, on the lines still pending (not one hashed meanwhile)."""
    async with db.transaction() as session:
        query = select(Line).where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.password_hash) == PENDING)
        lines = (await session.exec(query)).all()
        for line in lines:
            pii = cipher.open(line.pii, Fields)
            pii.pop(PASSWORD, None)
            line.pii, line.password_hash = cipher.seal(pii), hashed
            session.add(line)
        return len(lines)


async def hash_left_pending(db: Database, cipher: FieldCipher, *, created_before: datetime, limit: int) -> int:
    """The sweep's share: lines created before the grace whose password is still sealed (their API process
    died before hashing it), at most `limit` of them, oldest first; how many it settled."""
    query = (
        select(Line)
        .where(col(Line.password_hash) == PENDING, col(Line.created_at) < created_before)
        .order_by(col(Line.created_at))
        .limit(limit)
    )
    async with db.transaction() as session:
        lines = (await session.exec(query)).all()
    by_password: dict[str, list[str]] = {}
    for line in lines:
        if password := cipher.open(line.pii, Fields).get(PASSWORD):
            by_password.setdefault(password, []).append(line.enrollment_id)
    return await hash_all(db, cipher, by_password)
