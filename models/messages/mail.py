"""Messages of mail delivery: the outbox row holds the content, so none of it enters history."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MailDelivery:
    """Input of MailDeliveryWorkflow: the outbox row holds the content, so none of it enters history."""

    outbox_id: int
    idempotency_key: str


@dataclass(frozen=True)
class MailSent:
    message_id: str
