"""Messages of the payment domain: the payment guard (the payment's key and attempt, never card data), tax
registration (make_payment's quote), estimates (payment_details) and collection
(update_tax_calculation_status_plum)."""

from __future__ import annotations

from dataclasses import dataclass, field

from models.messages.lookups import Budget
from models.statuses import TaxStatus


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


@dataclass(frozen=True)
class TaxItem:
    name: str
    cents: int


@dataclass(frozen=True)
class TaxQuote(Budget):
    """Registers an order's tax calculation with the carrier (pending collection)."""

    idempotency_key: str
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxQuoted:
    calc_id: str
    tax_cents: int
    items: list[TaxItem] = field(default_factory=list)  # the carrier's breakup, kept as the rates it gave


@dataclass(frozen=True)
class TaxRegistrationJob:
    """Input of TaxRegistrationWorkflow: a calculation quoted from held rates, registered once the carrier is back
    (the tax_registration row holds what is registered)."""

    calc_id: str


@dataclass(frozen=True)
class CollectTax:
    """Input of TaxCollectionWorkflow."""

    calc_id: str
    vendor_code: str
    idle_days: float = 30.0  # no collection for this long: the workflow ends; the next update starts it again
    history_events: int = 4000  # continues as new past this many (LINEUP_WORKFLOW_HISTORY_EVENTS)


@dataclass(frozen=True)
class MarkCollected(Budget):
    iccid: str
    status: str  # temporary | final


@dataclass(frozen=True)
class TaxReceipt:
    calc_id: str
    status: TaxStatus
    reference_number: str | None = None
    description: str = ""


@dataclass(frozen=True)
class TaxCollect:
    calc_id: str
    vendor_code: str
    iccid: str
    status: str
    key: str = ""  # the carrier's Idempotency-Key: a retried activity collects once


@dataclass(frozen=True)
class TaxEstimateQuery(Budget):
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxEstimate:
    tax_cents: int
    items: list[TaxItem] = field(default_factory=list)
