"""`GET /sandbox/ledger`: what the stand-ins did, for reliability checks to count (read-only).

- `lines`: every line the carrier opened, by an activation or a completed port (`port_id` then), with its
  enrollment id, MDN, SIM and status: two lines for one enrollment, or one MDN on two lines, is a duplicate.
- `activations` and `port_submissions`: one entry per idempotency key the carrier answered, with the answer's
  code and MDN or port id: a line activated under two keys shows as two entries.
- `ports`: every port request (never the old account's details) and where it stands.
- `charges`: one entry per idempotency key the gateway answered: status (approved, declined, voided),
  transaction id and amount. Never a card number, token or CVV.
- `tax_registrations`: one entry per idempotency key the carrier registered a tax calculation under, with its
  CALCID, amount and tax: a payment's calculation registered under two keys shows as two entries.
Mail is listed by `GET /sandbox/mail`, webhook deliveries by `GET /sandbox/webhooks`."""

from typing import Any

from fastapi import APIRouter

from sandbox.carrier import ACTIVATIONS
from sandbox.deps import StoreDep
from sandbox.payments import CHARGES
from sandbox.ports import SUBMISSIONS
from sandbox.store import Row
from sandbox.tax import REGISTRATIONS

router = APIRouter(prefix="/sandbox")


def _activation(entry: Row) -> Row:
    answer = entry["answer"]
    return {
        "key": entry["key"],
        "status_code": answer.get("STATUSCODE"),
        "mdn": answer.get("MDN"),
        "created_at": entry["created_at"],
    }


def _submission(entry: Row) -> Row:
    answer = entry["answer"]
    return {
        "key": entry["key"],
        "status_code": answer.get("STATUSCODE"),
        "port_id": answer.get("PORT_ID"),
        "created_at": entry["created_at"],
    }


def _charge(entry: Row) -> Row:
    answer = entry["answer"]
    return {
        "key": entry["key"],
        "status": answer.get("status"),
        "transaction_id": answer.get("transaction_id"),
        "amount_cents": answer.get("amount_cents"),
        "created_at": entry["created_at"],
    }


def _registration(entry: Row) -> Row:
    answer = entry["answer"]
    return {
        "key": entry["key"],
        "calc_id": answer.get("CALCID"),
        "tax_cents": answer.get("TAX_AMOUNT_CENTS"),
        "created_at": entry["created_at"],
    }


@router.get("/ledger")
async def ledger(store: StoreDep) -> dict[str, Any]:
    """Lines, activations, port submissions, ports, charges and tax registrations, oldest first."""
    return {
        "lines": store.all_lines(),
        "activations": [_activation(entry) for entry in store.answers_of(ACTIVATIONS)],
        "port_submissions": [_submission(entry) for entry in store.answers_of(SUBMISSIONS)],
        "ports": store.all_ports(),
        "charges": [_charge(entry) for entry in store.answers_of(CHARGES)],
        "tax_registrations": [_registration(entry) for entry in store.answers_of(REGISTRATIONS)],
    }
