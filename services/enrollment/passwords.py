"""Line passwords off the create's critical path (issue 20 target 5, issue 19 finding 8). The request checks
everything, then stores each line's password sealed with its PII (AES-GCM, microseconds) and `password_hash`
PENDING; right after the commit one argon2 hash per distinct password of the request (~50 ms of CPU each) is
made in a background task of the API process, which writes the hash and drops the sealed copy. A password
never passes through Temporal. A line whose hash is still pending (or whose task died with its process) is
verified against its sealed password, and hashed then; the sweep hashes those left pending past its grace
(persistence/line_passwords.py)."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Sequence

from models.crypto import FieldCipher
from models.documents import Fields
from models.passwords import hash_secret_async, verify_secret_async
from models.requests.enrollment import LineRequest
from models.tables.enrollment import Line
from persistence.engine import Database
from persistence.line_passwords import PASSWORD, PENDING, hash_all, settle

_running: set[asyncio.Task[int]] = set()  # held, so a task is not collected before it ends


def hash_later(db: Database, cipher: FieldCipher, lines: Sequence[LineRequest]) -> None:
    """After the request's lines are committed: one hash per distinct password, written to every line that has it."""
    lines_by_password: dict[str, list[str]] = {}
    for line in lines:
        if line.password:
            lines_by_password.setdefault(line.password, []).append(line.enrollment_id)
    if lines_by_password:
        task = asyncio.create_task(hash_all(db, cipher, lines_by_password))
        _running.add(task)
        task.add_done_callback(_running.discard)


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
