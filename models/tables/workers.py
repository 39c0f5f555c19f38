"""Tables about Lineup's own processes: each worker's heartbeat, which /readyz reads to know a worker is alive
(not only registered as a poller: a frozen process stays one for a minute or more)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class WorkerHeartbeat(SQLModel, table=True):
    __tablename__ = "worker_heartbeat"

    identity: str = Field(primary_key=True, max_length=200)  # <pid>@<host>:<task queue>
    task_queue: str = Field(max_length=200, index=True)
    seen_at: datetime = Field(default_factory=utcnow)
