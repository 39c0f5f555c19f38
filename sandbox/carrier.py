"""Carrier wholesale API stand-in: activation, line inquiry and device compatibility.

Rejections are HTTP 200 with a non-"00" STATUSCODE, as the real wholesale API answers them.
- Activation: a new MDN (area code from the state), MSID and MSL; an invalid ICCID is 912, one active on
  another line 915. With `esim` the carrier assigns a profile instead of a physical SIM: an unused
  Luhn-valid 19/20-digit ICCID starting 89 and an LPA activation code (ACTIVATION_CODE, SMDP_ADDRESS,
  MATCHING_ID); `esim` with an `iccid` is 913, unless that ICCID is a profile reserved for the vendor
  (`/esim-profiles`), which the activation then uses. The same Idempotency-Key returns the same answer.
- eSIM profile reservation: a profile (ICCID and LPA activation code) for a line that has no SIM yet, before
  its activation; the same Idempotency-Key returns the same profile.
- Line inquiry: balances and the SIM (an eSIM line's profile ICCID) of an active line; 909 otherwise.
- Device compatibility by the IMEI's 14th digit: 0-3 compatible with VoLTE, 4-5 without, 6-7 not,
  8 blacklisted (902), 9 down (503). Answers carry the flat fields and AT&T's native
  RESULT.responseDetails.inquireDeviceStatusResponse.deviceStatusDetails block (GREEN/YELLOW/RED).
"""

import random
import string
import time
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from sandbox.deps import ConfigDep, IdempotencyKey, StoreDep
from sandbox.faults import ServiceDown, add_latency, maybe_fail
from sandbox.identifiers import generate_esim_iccid, generate_iccid, is_valid_iccid, is_valid_imei, random_digits
from sandbox.lines import account_number, new_mdn, open_line
from sandbox.ports import settle_due_ports
from sandbox.store import Row, Store

router = APIRouter(prefix="/carrier", dependencies=[Depends(add_latency), Depends(maybe_fail)])

# Device answers by the IMEI's 14th digit (the one before the check digit): (make, model, compatible, VoLTE).
DEVICES: dict[str, tuple[str, str, bool, bool]] = {
    "0": ("Apple", "iPhone 15", True, True),
    "1": ("Samsung", "Galaxy S24", True, True),
    "2": ("Google", "Pixel 8", True, True),
    "3": ("Motorola", "moto g 5G", True, True),
    "4": ("Samsung", "Galaxy A03s", True, False),
    "5": ("Apple", "iPhone 6", True, False),
    "6": ("Nokia", "3310 3G", False, False),
    "7": ("Alcatel", "Go Flip", False, False),
    "8": ("Samsung", "Galaxy S9", False, False),  # blacklisted: reported stolen
}
FEATURE_PHONES = {"6", "7"}
SMDP_HOST = "smdp.sandbox-carrier.example"
ACTIVATIONS = "carrier/activations"  # the idempotency records' endpoint: one answer per key
ESIM_PROFILES = "carrier/esim-profiles"  # reserved profiles live in their idempotency records
PROFILE_FIELDS = ("ACTIVATION_CODE", "SMDP_ADDRESS", "MATCHING_ID")


class ActivationRequest(BaseModel):
    """Activate a new line on a SIM (or ESN)."""

    vendor_id: str
    enrollment_id: str
    zip: str
    state: str
    plan_id: str
    iccid: str | None = None
    esn: str | None = None
    esim: bool = False  # no physical SIM: the carrier assigns an eSIM profile


class EsimProfileRequest(BaseModel):
    """Reserve an eSIM profile for a line that has no SIM yet (its activation comes later)."""

    vendor_id: str
    enrollment_id: str


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
    return store.idempotent(endpoint=ACTIVATIONS, key=key, compute=lambda: _activate(store, body))


@router.post("/esim-profiles")
async def reserve_esim_profile(body: EsimProfileRequest, key: IdempotencyKey, store: StoreDep) -> dict[str, Any]:
    """A profile for the line to download, reserved until its activation; the same key, the same profile."""

    def reserve() -> Row:
        iccid = _unused_iccid(store, esim=True)
        return {
            "STATUSCODE": "00",
            "DESCRIPTION": "eSIM profile reserved",
            "ICCID": iccid,
            "VENDOR_ID": body.vendor_id,
            **_esim_profile(),
        }

    return store.idempotent(endpoint=ESIM_PROFILES, key=key, compute=reserve)


def _reserved_profile(store: Store, vendor_id: str, iccid: str) -> Row | None:
    """The profile reserved for the vendor under that ICCID, or None."""
    for record in store.answers_of(ESIM_PROFILES):
        answer = record["answer"]
        if answer.get("ICCID") == iccid and answer.get("VENDOR_ID") == vendor_id:
            return {name: answer[name] for name in PROFILE_FIELDS}
    return None


def _activate(store: Store, body: ActivationRequest) -> Row:
    reserved = _reserved_profile(store, body.vendor_id, body.iccid) if body.esim and body.iccid else None
    if body.esim and body.iccid is not None and reserved is None:
        return {"STATUSCODE": "913", "DESCRIPTION": "eSIM activation takes no physical SIM"}
    if body.iccid is not None and not is_valid_iccid(body.iccid):
        return {"STATUSCODE": "912", "DESCRIPTION": "Invalid ICCID"}
    iccid = body.iccid or _unused_iccid(store, esim=body.esim)
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
    answer: Row = {
        "STATUSCODE": "00",
        "DESCRIPTION": "Activation successful",
        "MDN": line["mdn"],
        "MSID": line["msid"],
        "MSL": line["msl"],
        "ICCID": iccid,
    }
    return {**answer, **(reserved or _esim_profile())} if body.esim else answer


def _esim_profile() -> Row:
    """Where a phone downloads the profile: the SM-DP+ host and a one-time matching id, as an LPA code."""
    matching_id = "-".join("".join(random.choices(string.ascii_uppercase + string.digits, k=5)) for _ in range(4))
    return {
        "ACTIVATION_CODE": f"LPA:1${SMDP_HOST}${matching_id}",
        "SMDP_ADDRESS": SMDP_HOST,
        "MATCHING_ID": matching_id,
    }


def _unused_iccid(store: Store, *, esim: bool = False) -> str:
    while True:
        iccid = generate_esim_iccid() if esim else generate_iccid()
        if store.active_line_with_iccid(iccid) is None:
            return iccid


class ReleaseRequest(BaseModel):
    """The vendor gives back a number it holds (its line took a ported number instead)."""

    vendor_id: str
    mdn: str


@router.post("/lines/release")
async def release(body: ReleaseRequest, key: IdempotencyKey, store: StoreDep) -> dict[str, Any]:
    """The number leaves the vendor's active line; the same key (or a number already released) answers 00."""
    return store.idempotent(endpoint="carrier/lines/release", key=key, compute=lambda: _release(store, body))


def _release(store: Store, body: ReleaseRequest) -> Row:
    released = store.release_vendor_mdn(vendor_id=body.vendor_id, mdn=body.mdn)
    return {"STATUSCODE": "00", "DESCRIPTION": "Number released" if released else "Number not active"}


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
        return {
            "STATUSCODE": "902",
            "DESCRIPTION": "Device is blacklisted",
            "IMEI": body.imei,
            **native_block(body.imei),
        }
    make, model, compatible, volte = DEVICES[digit]
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "IMEI": body.imei,
        "REFERENCENUMBER": reference_number(),
        "VOLTE_COMPATIBLE": "YES" if volte else "NO",
        "NAME": f"{make} {model}",
        "IS_MOBILE_DEVICE": "YES",
        "COMPATIBILITY": "COMPATIBLE" if compatible else "NOT COMPATIBLE",
        **native_block(body.imei),
    }


def native_block(imei: str) -> dict[str, Any]:
    """The device as AT&T's inquireDeviceStatus describes it: GREEN (with VoLTE), YELLOW (without), RED."""
    digit = imei[13]
    make, model, compatible, volte = DEVICES[digit]
    blacklisted = digit == "8"
    colour = "RED" if blacklisted or not compatible else "GREEN" if volte else "YELLOW"
    details = {
        "imei": imei,
        "attCompatibility": colour,
        "manufacturer": {"make": make, "model": model},
        "blacklistedIndicator": "Y" if blacklisted else "N",
        "volteCapableIndicator": "Y" if volte else "N",
        "umtsCapableIndicator": "Y" if compatible else "N",
        "deviceCategory": "FEATURE PHONE" if digit in FEATURE_PHONES else "SMARTPHONE",
    }
    return {"RESULT": {"responseDetails": {"inquireDeviceStatusResponse": {"deviceStatusDetails": details}}}}
