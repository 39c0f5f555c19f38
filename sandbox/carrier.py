"""Carrier wholesale API stand-in: activation, line inquiry and device compatibility.

Rejections are HTTP 200 with a non-"00" STATUSCODE, as the real wholesale API answers them.
"""

import time
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from sandbox.deps import ConfigDep, IdempotencyKey, StoreDep
from sandbox.faults import ServiceDown, add_latency, maybe_fail
from sandbox.identifiers import generate_iccid, is_valid_iccid, is_valid_imei, random_digits
from sandbox.lines import account_number, new_mdn, open_line
from sandbox.ports import settle_due_ports
from sandbox.store import Row, Store

router = APIRouter(prefix="/carrier", dependencies=[Depends(add_latency), Depends(maybe_fail)])

# Device answers by the IMEI's 14th digit (the one before the check digit): (name, compatible, VoLTE).
DEVICES: dict[str, tuple[str, bool, bool]] = {
    "0": ("Apple iPhone 15", True, True),
    "1": ("Samsung Galaxy S24", True, True),
    "2": ("Google Pixel 8", True, True),
    "3": ("Motorola moto g 5G", True, True),
    "4": ("Samsung Galaxy A03s", True, False),
    "5": ("Apple iPhone 6", True, False),
    "6": ("Nokia 3310 3G", False, False),
    "7": ("Alcatel Go Flip", False, False),
}


class ActivationRequest(BaseModel):
    """Activate a new line on a SIM (or ESN)."""

    vendor_id: str
    enrollment_id: str
    zip: str
    state: str
    plan_id: str
    iccid: str | None = None
    esn: str | None = None


class LineInquiryRequest(BaseModel):
    """Ask about one line; the flags are accepted but the full answer is always given."""

    vendor_id: str
    mdn: str
    line_inquiry: bool = True
    balance_inquiry: bool = True
    query_sim_info: bool = True
    subscriber_status: bool = True


class DeviceRequest(BaseModel):
    """Is this handset usable on the network?"""

    imei: str
    carrier: str


def reference_number() -> str:
    """A fresh reference number for an answer that changes nothing."""
    return random_digits(12)


@router.post("/activations")
async def activate(body: ActivationRequest, key: IdempotencyKey, store: StoreDep) -> dict[str, Any]:
    """Activate a line: a new MDN in the state's area code, MSID and MSL; the same key, the same answer."""
    return store.idempotent(endpoint="carrier/activations", key=key, compute=lambda: _activate(store, body))


def _activate(store: Store, body: ActivationRequest) -> Row:
    if body.iccid is not None and not is_valid_iccid(body.iccid):
        return {"STATUSCODE": "912", "DESCRIPTION": "Invalid ICCID"}
    iccid = body.iccid or _unused_iccid(store)
    if store.active_line_with_iccid(iccid) is not None:
        return {"STATUSCODE": "915", "DESCRIPTION": "SIM already in use"}
    line = open_line(
        store,
        vendor_id=body.vendor_id,
        mdn=new_mdn(store, state=body.state),
        iccid=iccid,
        esn=body.esn,
        plan_id=body.plan_id,
        enrollment_id=body.enrollment_id,
    )
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Activation successful",
        "MDN": line["mdn"],
        "MSID": line["msid"],
        "MSL": line["msl"],
        "ICCID": iccid,
    }


def _unused_iccid(store: Store) -> str:
    while True:
        iccid = generate_iccid()
        if store.active_line_with_iccid(iccid) is None:
            return iccid


@router.post("/line-inquiry")
async def line_inquiry(body: LineInquiryRequest, store: StoreDep, config: ConfigDep) -> dict[str, Any]:
    """Status, SIM and balances of an active line the vendor holds; 909 for any other number."""
    # A port that finished since the last read must already count as the vendor's line.
    settle_due_ports(store, complete_seconds=config.port_complete_seconds, now=time.time())
    line = store.active_line(vendor_id=body.vendor_id, mdn=body.mdn)
    if line is None:
        return {"STATUSCODE": "909", "DESCRIPTION": "MDN does not belong to the vendor", "MDN": body.mdn}
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "MDN": line["mdn"],
        "ESN": line["iccid"] or line["esn"],
        "SIM_NUMBER": line["iccid"],
        "BAN": account_number(line),
        "ESNSTATUS": "ACTIVE",
        "ACCOUNTSTATUS": "ACTIVE",
        "TALK_BALANCE": line["talk_balance"],
        "SMS_BALANCE": line["sms_balance"],
        "DATA_BALANCE": line["data_balance"],
        "REFERENCENUMBER": reference_number(),
    }


@router.post("/device-compatibility")
async def device_compatibility(body: DeviceRequest) -> dict[str, Any]:
    """Compatibility by the IMEI's 14th digit: 0-3 full, 4-5 no VoLTE, 6-7 not, 8 blacklisted, 9 down."""
    if not is_valid_imei(body.imei):
        return {"STATUSCODE": "901", "DESCRIPTION": "Invalid IMEI", "IMEI": body.imei}
    digit = body.imei[13]
    if digit == "9":
        raise ServiceDown()
    if digit == "8":
        return {"STATUSCODE": "902", "DESCRIPTION": "Device is blacklisted", "IMEI": body.imei}
    name, compatible, volte = DEVICES[digit]
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "IMEI": body.imei,
        "REFERENCENUMBER": reference_number(),
        "VOLTE_COMPATIBLE": "YES" if volte else "NO",
        "NAME": name,
        "IS_MOBILE_DEVICE": "YES",
        "COMPATIBILITY": "COMPATIBLE" if compatible else "NOT COMPATIBLE",
    }
