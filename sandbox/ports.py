"""Port-in stand-in: submission, lazily computed status, resolution by update, cancellation.

Scenarios, decided by the input:
- port number that is not a valid 10-digit NANP number: rejected at submission (604, MDN invalid);
- port number ending 98: rejected at submission (930, not eligible);
- port number ending 96: stays SUBMITTED forever (the old carrier never answers, so it cannot reject
  either; this wins over the account checks);
- a number that is an ACTIVE line here (a line of some vendor of this carrier) without `holder_consent`: the
  vendor holding it has not matched the old account, so RESOLUTION_REQUIRED 8A (Lineup checks the account and
  PIN of numbers it holds, and says so with `holder_consent`);
- account number blank or ending 0000: RESOLUTION_REQUIRED 8A; else transfer PIN blank or 0000:
  RESOLUTION_REQUIRED 6B (account is checked first, as the old carrier matches the account before the PIN);
- otherwise SUBMITTED, CONFIRMED after half of port_complete_seconds, COMPLETED after all of it, counted
  from the latest (re)submission. Completion opens an ACTIVE line for the vendor with the ported number.
Cancelling works in any state but COMPLETED (932, port already completed).

Validation (ports/validate) asks before submitting and changes nothing: an invalid number is 604 as at
submission; one ending 98 answers ELIGIBLE N (not portable); any other is eligible. Either way the current
carrier follows the number's last digit: 0-2 ATT, 3-5 TMB, 6-8 VER, 9 USC.

Status is computed when read, from stored timestamps; no background task is needed. Account numbers and
PINs are never stored: only whether they would be rejected.
"""

import random
import time
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from sandbox.carriers import carrier_name
from sandbox.config import SandboxConfig
from sandbox.deps import ConfigDep, IdempotencyKey, StoreDep
from sandbox.faults import add_latency, maybe_fail
from sandbox.identifiers import is_valid_mdn, random_digits
from sandbox.lines import open_line
from sandbox.port_push import schedule
from sandbox.store import Row, Store

router = APIRouter(prefix="/carrier/ports", dependencies=[Depends(add_latency), Depends(maybe_fail)])

RESOLUTIONS = {
    "8A": "Account number required or incorrect",
    "6B": "Transfer PIN required or incorrect",
}
NOT_FOUND = {"STATUSCODE": "404", "DESCRIPTION": "Port not found"}
SUBMISSIONS = "carrier/ports"  # the idempotency records' endpoint: one answer per key
# Fields a resolution update may correct (besides the account number and PIN, which are never stored).
CORRECTABLE = ("first_name", "last_name", "address_one", "city", "state", "zip")
# Who holds a number before it ports in, by its last digit (abbreviations from sandbox.carriers).
CARRIER_BY_LAST_DIGIT = {
    **dict.fromkeys("012", "ATT"),
    **dict.fromkeys("345", "TMB"),
    **dict.fromkeys("678", "VER"),
    "9": "USC",
}


class PortRequest(BaseModel):
    """Move a number from another carrier onto a SIM of ours."""

    vendor_id: str
    enrollment_id: str
    port_number: str
    iccid: str | None = None
    current_carrier: str | None = None
    account_number: str | None = None
    account_password: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    address_one: str | None = None
    address_two: str | None = None
    city: str | None = None
    state: str | None = None
    zip: str | None = None
    holder_consent: bool = False  # the vendor holding the number here matched the old account and PIN


class PortValidationRequest(BaseModel):
    """Could this number be ported in, and who holds it now?"""

    vendor_id: str
    port_number: str
    zip_code: str | None = None


class PortRef(BaseModel):
    """Names one port request of a vendor."""

    vendor_id: str
    port_id: str


class PortUpdate(PortRef):
    """Corrections to a port awaiting resolution; only the fields given change."""

    account_number: str | None = None
    account_password: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    address_one: str | None = None
    city: str | None = None
    state: str | None = None
    zip: str | None = None


def iso(timestamp: float) -> str:
    """UTC ISO-8601 with seconds, as the carrier prints times."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def account_rejected(account_number: str | None) -> bool:
    """The old carrier would not match this account number."""
    return not account_number or account_number.endswith("0000")


def pin_rejected(account_password: str | None) -> bool:
    """The old carrier would not accept this transfer PIN."""
    return not account_password or account_password == "0000"


def _stage_for(port: Row) -> str:
    if port["stuck"]:
        return "SUBMITTED"
    return "RESOLUTION_REQUIRED" if port["account_issue"] or port["pin_issue"] else "SUBMITTED"


def settle_due_ports(store: Store, *, complete_seconds: float, now: float) -> None:
    """Complete every default-path port whose time has come, opening its line."""
    with store.transaction():
        for port_id in store.due_port_ids(submitted_before=now - complete_seconds):
            port = store.get_port(port_id)
            assert port is not None
            # The number leaves whoever held it here before.
            store.release_mdn(port["port_number"])
            line = open_line(
                store,
                vendor_id=port["vendor_id"],
                mdn=port["port_number"],
                iccid=port["iccid"],
                enrollment_id=port["enrollment_id"],
            )
            store.update_port(port_id, {"stage": "COMPLETED", "completed_at": now, "line_id": line["id"]})


def current_status(port: Row, *, complete_seconds: float, now: float) -> str:
    """The status a reader sees now (COMPLETED is stored by settle_due_ports before any read)."""
    if port["stage"] != "SUBMITTED" or port["stuck"]:
        return str(port["stage"])
    return "CONFIRMED" if now - port["submitted_at"] >= complete_seconds / 2 else "SUBMITTED"


def status_answer(store: Store, port: Row, *, complete_seconds: float, now: float) -> Row:
    """The ports/status answer for one port."""
    status = current_status(port, complete_seconds=complete_seconds, now=now)
    code = None
    if status == "RESOLUTION_REQUIRED":
        code = "8A" if port["account_issue"] else "6B"
    answer: Row = {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "PORT_ID": port["port_id"],
        "PORTIN_STATUS": status,
        "RESOLUTION_CODE": code,
        "RESOLUTION_DESCRIPTION": RESOLUTIONS.get(code) if code else None,
        "REQUEST_DATETIME": iso(port["submitted_at"]),
        "RESPONSE_DATETIME": iso(now),
        "MDN": port["port_number"],
    }
    if status == "COMPLETED":
        line = store.get_line(port["line_id"])
        assert line is not None
        answer.update(MSID=line["msid"], MSL=line["msl"])
    return answer


def push_document(config: SandboxConfig, store: Store, port_id: str) -> Row | None:
    """What the carrier's push says about this port now (sandbox.port_push)."""
    now = time.time()
    settle_due_ports(store, complete_seconds=config.port_complete_seconds, now=now)
    port = store.get_port(port_id)
    if port is None:
        return None
    status = current_status(port, complete_seconds=config.port_complete_seconds, now=now)
    return {
        "vendor_id": port["vendor_id"],
        "port_id": port_id,
        "enrollment_id": port["enrollment_id"],
        "status": status,
    }


def _vendor_port(store: Store, ref: PortRef, config: SandboxConfig, now: float) -> Row | None:
    settle_due_ports(store, complete_seconds=config.port_complete_seconds, now=now)
    port = store.get_port(ref.port_id)
    # Another vendor's port is as unknown to this vendor as a port that never existed.
    return port if port is not None and port["vendor_id"] == ref.vendor_id else None


@router.post("/validate")
async def validate_port(body: PortValidationRequest) -> dict[str, Any]:
    """Eligibility and the current carrier, decided by the number; nothing is stored."""
    if not is_valid_mdn(body.port_number):
        return {"STATUSCODE": "604", "DESCRIPTION": "MDN invalid"}
    carrier = CARRIER_BY_LAST_DIGIT[body.port_number[-1]]
    answer: Row = {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "PORT_NUMBER": body.port_number,
        "ELIGIBLE": "Y",
        "CURRENT_CARRIER": carrier,
        "CURRENT_CARRIER_NAME": carrier_name(carrier),
        "REFERENCENUMBER": random_digits(12),
    }
    # The same numbers submission refuses with 930, so asking first predicts the submission.
    if body.port_number.endswith("98"):
        answer.update(ELIGIBLE="N", REASON="Number is not portable")
    return answer


@router.post("")
async def submit_port(body: PortRequest, key: IdempotencyKey, store: StoreDep, config: ConfigDep) -> dict[str, Any]:
    """Submit a port-in; the number's last digits and the old-account fields decide its path."""
    return store.idempotent(endpoint=SUBMISSIONS, key=key, compute=lambda: _submit(store, body, config))


def _submit(store: Store, body: PortRequest, config: SandboxConfig) -> Row:
    if not is_valid_mdn(body.port_number):
        return {"STATUSCODE": "604", "DESCRIPTION": "MDN invalid"}
    if body.port_number.endswith("98"):
        return {"STATUSCODE": "930", "DESCRIPTION": "Number not eligible for port-in"}
    now = time.time()
    port: Row = {
        **body.model_dump(exclude={"account_number", "account_password", "holder_consent"}),
        "port_id": _new_port_id(store),
        "account_issue": int(account_rejected(body.account_number) or _held_without_consent(store, body)),
        "pin_issue": int(pin_rejected(body.account_password)),
        "stuck": int(body.port_number.endswith("96")),
        "submitted_at": now,
    }
    port["stage"] = _stage_for(port)
    store.add_port(port)
    schedule(config, store, port, push_document)
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Port request submitted",
        "PORT_ID": port["port_id"],
        "PORTIN_STATUS": "SUBMITTED",
        "REQUEST_DATETIME": iso(now),
    }


def _held_without_consent(store: Store, body: PortRequest) -> bool:
    return not body.holder_consent and store.active_line_with_mdn(body.port_number) is not None


def _new_port_id(store: Store) -> str:
    while True:
        port_id = "PRT" + random.choice("123456789") + random_digits(9)
        if store.get_port(port_id) is None:
            return port_id


@router.post("/status")
async def port_status(body: PortRef, store: StoreDep, config: ConfigDep) -> dict[str, Any]:
    """Where the port stands; COMPLETED answers carry the new line's MSID and MSL."""
    now = time.time()
    port = _vendor_port(store, body, config, now)
    if port is None:
        return NOT_FOUND
    return status_answer(store, port, complete_seconds=config.port_complete_seconds, now=now)


@router.post("/update")
async def update_port(body: PortUpdate, key: IdempotencyKey, store: StoreDep, config: ConfigDep) -> dict[str, Any]:
    """Resubmit a port awaiting resolution with corrected data; answers like ports/status."""
    return store.idempotent(endpoint="carrier/ports/update", key=key, compute=lambda: _update(store, body, config))


def _update(store: Store, body: PortUpdate, config: SandboxConfig) -> Row:
    now = time.time()
    port = _vendor_port(store, body, config, now)
    if port is None:
        return NOT_FOUND
    if current_status(port, complete_seconds=config.port_complete_seconds, now=now) != "RESOLUTION_REQUIRED":
        return {"STATUSCODE": "931", "DESCRIPTION": "Port is not awaiting resolution"}
    changes: Row = {name: getattr(body, name) for name in CORRECTABLE if getattr(body, name) is not None}
    # Fields not given keep their earlier verdict: unchanged data gets the same rejection.
    if body.account_number is not None:
        changes["account_issue"] = int(account_rejected(body.account_number))
    if body.account_password is not None:
        changes["pin_issue"] = int(pin_rejected(body.account_password))
    merged = {**port, **changes}
    changes.update(stage=_stage_for(merged), submitted_at=now)
    store.update_port(port["port_id"], changes)
    schedule(config, store, {**merged, **changes}, push_document)
    return status_answer(store, {**merged, **changes}, complete_seconds=config.port_complete_seconds, now=now)


@router.post("/cancel")
async def cancel_port(body: PortRef, store: StoreDep, config: ConfigDep) -> dict[str, Any]:
    """Withdraw a port that has not completed; cancelling twice answers the same."""
    now = time.time()
    port = _vendor_port(store, body, config, now)
    if port is None:
        return NOT_FOUND
    if port["stage"] == "COMPLETED":
        return {"STATUSCODE": "932", "DESCRIPTION": "Port already completed"}
    store.update_port(port["port_id"], {"stage": "CANCELLED"})
    cancelled = {**port, "stage": "CANCELLED"}
    schedule(config, store, cancelled, push_document, cancelled=True)
    return status_answer(store, cancelled, complete_seconds=config.port_complete_seconds, now=now)
