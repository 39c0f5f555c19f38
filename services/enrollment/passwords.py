"""Line passwords off the create's critical path (issue 20 target 5, issue 19 finding 8). The request checks
everything, then stores each line's password sealed with its PII (AES-GCM, microseconds) and `password_hash`
PENDING; right after the commit one argon2 hash per distinct password of the request (~50 ms of CPU each) is
made in a background task of the API process, which writes the hash and drops the sealed copy. A password
never passes through Temporal. A line whose hash is still pending (or whose task died with its process) is
verified against its sealed password, and hashed then."""

from __future__ import annotations

import asyncio
import hmac
import logging

from sqlmodel import col, select

from models.crypto import FieldCipher
from models.documents import Fields
from models.passwords import hash_secret_async, verify_secret_async
from models.tables.enrollment import Line
from persistence.engine import Database

log = logging.getLogger(__name__)
PENDING = "pending"  # `line.password_hash` while the password is sealed in the line's PII, not yet hashed
PASSWORD = "password"  # its key in the sealed PII document
_running: set[asyncio.Task[None]] = set()  # held, so a task is not collected before it ends


def hash_later(db: Database, cipher: FieldCipher, lines_by_password: dict[str, list[str]]) -> None:
    """After the lines are committed: one hash per distinct password, written to every line that has it."""
    if lines_by_password:
        task = asyncio.create_task(hash_all(db, cipher, lines_by_password))
        _running.add(task)
        task.add_done_callback(_running.discard)


async def hash_all(db: Database, cipher: FieldCipher, lines_by_password: dict[str, list[str]]) -> None:
    for password, enrollment_ids in lines_by_password.items():
        try:
            await settle(db, cipher, enrollment_ids, await hash_secret_async(password))
        except Exception:  # the lines keep their sealed password: verified from it, hashed then
            log.warning("line passwords left pending for %d line(s)", len(enrollment_ids), exc_info=True)


async def settle(db: Database, cipher: FieldCipher, enrollment_ids: list[str], hashed: str) -> None:
    """The hash in place of the sealed password, on the lines still pending (not one hashed meanwhile)."""
    async with db.transaction() as session:
        query = select(Line).where(col(Line.enrollment_id).in_(enrollment_ids), col(Line.password_hash) == PENDING)
        for line in (await session.exec(query)).all():
            pii = cipher.open(line.pii, Fields)
            pii.pop(PASSWORD, None)
            line.pii, line.password_hash = cipher.seal(pii), hashed
            session.add(line)


async def verify_line_password(db: Database, cipher: FieldCipher, line: Line | None, offered: str) -> bool:
    """The customer's password check (saved_card_list): argon2 against the hash, or, while it is pending,
    against the sealed password (an argon2 of the dummy besides, so both take as long) and then hashed."""
    if line is None or line.password_hash != PENDING:
        return await verify_secret_async(line.password_hash if line else None, offered)
    stored = cipher.open(line.pii, Fields).get(PASSWORD, "")
    await verify_secret_async(None, offered)
    ok = bool(stored) and hmac.compare_digest(stored.encode(), offered.encode())
    if ok:
        await settle(db, cipher, [line.enrollment_id], await hash_secret_async(offered))
    return ok
