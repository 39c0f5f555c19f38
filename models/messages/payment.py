"""Messages of the payment guard: the payment's key and attempt, never card data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaymentGuard:
    """Input of PaymentGuardWorkflow, started before the card is charged."""

    idempotency_key: str  # the payment row's key
    attempt: int
    wait_seconds: float = 60.0  # how long the API has to record the gateway's answer before the guard does


def charge_key(idempotency_key: str, attempt: int) -> str:
    """The gateway's idempotency key for one attempt: a retried attempt never charges twice, and a new card
    after a decline is a new attempt (the gateway would answer the old key's decline again)."""
    return f"charge-{idempotency_key}-{attempt}"
