"""`data` of the mail domain: the messages support should look at (given up on, or still waiting)."""

from __future__ import annotations

from models.answers.base import Shape


class UndeliveredMail(Shape):
    """A message that did not go out: REJECTED for good (refused, unbuildable, or past the age limit), or
    QUEUED for longer than the sweep's grace. No address or content: those are PII and stay encrypted."""

    message_id: str
    status: str
    recipient_count: int
    agent_username: str | None
    last_error: str
    queued_at: str


UNDELIVERED = [
    UndeliveredMail(
        message_id="<DEMO-t-NOTICE42@lineup.local>", status="REJECTED", recipient_count=1, agent_username="demo.agent",
        last_error="undelivered after 48 h: The mail relay is unavailable: 421 Service not available",
        queued_at="2026-11-22T10:15:02+00:00",
    )
]  # fmt: skip
