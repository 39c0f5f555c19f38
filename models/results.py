"""`data` shapes of the interface: customer creation (2.4), line inquiry (2.5) and saved cards (2.6)."""

from __future__ import annotations

import base64
import io
from datetime import date
from typing import Any

import segno

from models.messages.enrollment import LinePlan
from models.statuses import LineStatus
from models.tables.payment import SavedCard

LINE_MESSAGES = {
    LineStatus.ACTIVE: "Customer created and line activated",
    LineStatus.PORT_PENDING: "Customer created; port-in submitted and pending",
    LineStatus.WAITING_ACTIVATION: "Customer created; SIM attached for activation later",
    LineStatus.STUCK: "Customer created; activation is waiting for support",
    LineStatus.PORT_REJECTED: "Customer created; the carrier rejected the port-in",
}
IN_PROGRESS = "Customer created; activation in progress"


def customer_created(plan: LinePlan, invoice_number: str | None) -> dict[str, Any]:
    """One element of create_customer_prepaid_multiline's `data` array."""
    return {
        "msg_code": "RESTAPI000",
        "msg": LINE_MESSAGES.get(plan.status, IN_PROGRESS),
        "data": {
            "customer_id": plan.customer_id,
            "enrollment_id": plan.enrollment_id,
            "enrollment_type": plan.enrollment_type,
            "cust_id": plan.cust_id,
            "mdn": plan.mdn,
            "msid": plan.msid,
            "msl": plan.msl or "",
            "invoice_number": plan.invoice_number or invoice_number or "",
        },
    }


def _values(value: Any) -> list[dict[str, str]]:
    return [{"VALUE": "" if value is None else str(value)}]


def line_inquiry_result(answer: dict[str, Any], *, mdn: str | None, esn: str | None) -> dict[str, Any]:
    """The carrier's answer in section 2.5's shape; a carrier-level 909 passes through as it is."""
    code, description = str(answer.get("STATUSCODE", "")), str(answer.get("DESCRIPTION", ""))
    found = code == "00"
    number = answer.get("MDN") or mdn or ""
    wholesale = {
        "ATTRIBUTES": {
            "xmlns": "http://wholesale.carrier.example/api",
            "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance",
        },
        "CREDENTIALS": [{"REFERENCENUMBER": _values(answer.get("REFERENCENUMBER")), "RETURNURL": _values("")}],
        "WHOLESALEORDERRESPONSE": [{"DESCRIPTION": _values(description), "STATUSCODE": _values(code)}],
    }
    return {
        "ACCOUNTSTATUS": answer.get("ACCOUNTSTATUS", "") if found else "",
        "ACCOUNT_STATUS": answer.get("ACCOUNTSTATUS", "") if found else "",
        "BALANCE_INQ": {"DESCRIPTION": description, "STATUSCODE": code},
        "DATA_BALANCE": answer.get("DATA_BALANCE", 0) if found else 0,
        "SMS_BALANCE": answer.get("SMS_BALANCE", 0) if found else 0,
        "TALK_BALANCE": answer.get("TALK_BALANCE", 0) if found else 0,
        "ESN": answer.get("ESN") or esn or "",
        "MDN": number,
        "LINE_INQ": {
            "BAN": answer.get("BAN", ""),
            "DESCRIPTION": description,
            "ESNSTATUS": answer.get("ESNSTATUS", ""),
            "MDN": number,
            "SIM_NUMBER": answer.get("SIM_NUMBER", "") or esn or "",
            "STATUSCODE": code,
            "CARRIER_RESPONSE": {"WHOLESALEAPI": [wholesale]},
        },
    }


def esim_entry(iccid: str, activation_code: str) -> dict[str, str]:
    """A line's eSIM profile as channels show it: the activation code, and as a QR code (PNG data URI) a
    phone's camera scans."""
    image = io.BytesIO()
    segno.make(activation_code, error="m").save(image, kind="png", scale=6, border=2)
    qr = "data:image/png;base64," + base64.b64encode(image.getvalue()).decode()
    return {"ICCID": iccid, "ACTIVATION_CODE": activation_code, "QR_ACTIVATION_CODE": qr}


DEVICE_FIELDS = (
    "STATUSCODE", "DESCRIPTION", "IMEI", "REFERENCENUMBER", "VOLTE_COMPATIBLE", "NAME", "IS_MOBILE_DEVICE",
    "COMPATIBILITY",
)  # fmt: skip


def device_compatibility_result(answer: dict[str, Any]) -> dict[str, Any]:
    """Section 2.7 (every field, every value a string), and the carrier's native device block under `RESULT`
    as the original's device checkers read it (`RESULT.responseDetails.inquireDeviceStatusResponse…`)."""
    flat: dict[str, Any] = {name: "" if answer.get(name) is None else str(answer[name]) for name in DEVICE_FIELDS}
    if isinstance(answer.get("RESULT"), dict):
        flat["RESULT"] = answer["RESULT"]
    return flat


def saved_card_record(card: SavedCard, holder: dict[str, Any], *, primary: bool, today: date) -> dict[str, str]:
    """Section 2.6, masked: the last four digits only, and an empty CVV (none is ever stored)."""
    expired = (int(card.exp_year), int(card.exp_month)) < (today.year, today.month)
    return {
        "id": str(card.id), "status": card.status, "card_number": "*" * 12 + card.last4, "cvv": "",
        "name_on_card": holder.get("name_on_card", ""), "card_type": card.brand, "exp_month": card.exp_month,
        "exp_year": card.exp_year, "address1": holder.get("address1", ""),
        "address2": holder.get("address2", ""), "zip": holder.get("zip", ""), "city": holder.get("city", ""),
        "state": holder.get("state", ""), "country": holder.get("country", ""),
        "is_expired": "Y" if expired else "N", "is_primary": "Y" if primary else "N",
    }  # fmt: skip
