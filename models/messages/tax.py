"""Messages of tax registration (make_payment's quote) and collection (update_tax_calculation_status_plum)."""

from __future__ import annotations

from dataclasses import dataclass

from models.statuses import TaxStatus


@dataclass(frozen=True)
class TaxQuote:
    """Registers an order's tax calculation with the carrier (pending collection)."""

    idempotency_key: str
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxQuoted:
    calc_id: str
    tax_cents: int


@dataclass(frozen=True)
class CollectTax:
    """Input of TaxCollectionWorkflow."""

    calc_id: str
    vendor_code: str
    idle_days: float = 30.0  # no collection for this long: the workflow ends; the next update starts it again


@dataclass(frozen=True)
class MarkCollected:
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
