"""Every action's documented answer: its `data` shape, its message and an example the OpenAPI document
shows. A test holds every action of the catalogue to having one, and every example to its shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models.answers import agents, auth, cards, devices, eligibility, enrollment, notes, payment, porting, support


@dataclass(frozen=True)
class Documented:
    shape: Any  # the type of `data`; None: the answer carries no `data`
    example: Any
    msg: str = "Success"


_RECORD = {
    "customer_id": "482913567",
    "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
    "enrollment_type": "SHIPMENT",
    "cust_id": "482913567",
    "mdn": "4045550178",
    "msid": "4045550178",
    "msl": "493021",
    "invoice_number": "INV4829135671",
}
_CREATED = [{"msg_code": "RESTAPI000", "msg": "Customer created and line activated", "data": _RECORD}]
_CARRIER_RESPONSE = {
    "WHOLESALEAPI": [
        {
            "ATTRIBUTES": {"xmlns": "http://wholesale.carrier.example/api"},
            "CREDENTIALS": [{"REFERENCENUMBER": [{"VALUE": "730158264091"}], "RETURNURL": [{"VALUE": ""}]}],
            "WHOLESALEORDERRESPONSE": [{"DESCRIPTION": [{"VALUE": "Success"}], "STATUSCODE": [{"VALUE": "00"}]}],
        }
    ],
}
_INQUIRY = {
    "ACCOUNTSTATUS": "ACTIVE",
    "ACCOUNT_STATUS": "ACTIVE",
    "BALANCE_INQ": {"DESCRIPTION": "Success", "STATUSCODE": "00"},
    "DATA_BALANCE": 5120,
    "SMS_BALANCE": 1000,
    "TALK_BALANCE": 1000,
    "ESN": "89012601234567890128",
    "MDN": "4045550178",
    "LINE_INQ": {
        "BAN": "BAN4045550178",
        "DESCRIPTION": "Success",
        "ESNSTATUS": "ACTIVE",
        "MDN": "4045550178",
        "SIM_NUMBER": "89012601234567890128",
        "STATUSCODE": "00",
        "CARRIER_RESPONSE": _CARRIER_RESPONSE,
    },
}
_DEVICE = {
    "STATUSCODE": "00",
    "DESCRIPTION": "Success",
    "IMEI": "352099081234508",
    "REFERENCENUMBER": "512093847261",
    "VOLTE_COMPATIBLE": "YES",
    "NAME": "Apple iPhone 15",
    "IS_MOBILE_DEVICE": "YES",
    "COMPATIBILITY": "COMPATIBLE",
    "RESULT": {
        "responseDetails": {
            "inquireDeviceStatusResponse": {
                "deviceStatusDetails": {
                    "imei": "352099081234508",
                    "attCompatibility": "GREEN",
                    "manufacturer": {"make": "Apple", "model": "iPhone 15"},
                    "blacklistedIndicator": "N",
                    "volteCapableIndicator": "Y",
                    "umtsCapableIndicator": "Y",
                    "deviceCategory": "SMARTPHONE",
                }
            }
        }
    },
}
_PAYMENT = {
    "invoice_number": "INV4829135671",
    "transaction_id": "ch_7Hq2Lm9Xa",
    "calc_id": "TX0482913567",
    "amount": "25.00",
    "tax_amount": "1.00",
    "order_id": "1042",
    "payment_method": "CREDIT_CARD",
    "payment_status": "APPROVED",
    "total_amount": "26.00",
    "plan_tax": "1.00",
    "transaction_no": "ch_7Hq2Lm9Xa",
    "card_id": "7",
}
_DETAILS = {
    "state": "GA",
    "total_actual_amount": "25.00",
    "total_tax": "1.00",
    "total_amount": "26.00",
    "plan": {
        "plan_id": "102",
        "plan_name": "Everyday 5GB",
        "plan_price": "25.00",
        "tax_breakup": [{"tax_name": "State sales tax", "tax_amount": "1.00"}],
    },
}
_PLAN = {
    "plan_id": "102",
    "plan_code": "TMB-EVERYDAY-5G",
    "plan_name": "Everyday 5GB",
    "plan_price": "25.00",
    "total_plan_price": "25.00",
    "carrier": "TMB",
    "talk": 0,
    "text": 0,
    "data": 5120,
    "minute_unlimited": "Y",
    "text_unlimited": "Y",
    "data_unlimited": "N",
    "display_features_description": "Unlimited talk & text, 5 GB high-speed data",
}
_CARD = {
    "id": "7",
    "status": "Y",
    "card_number": "************1111",
    "cvv": "",
    "name_on_card": "Pat Lee",
    "card_type": "Visa",
    "exp_month": "12",
    "exp_year": "2030",
    "address1": "12 Main St",
    "address2": "",
    "zip": "30301",
    "city": "Atlanta",
    "state": "GA",
    "country": "US",
    "is_expired": "N",
    "is_primary": "Y",
}
_CUSTOMER_INFO = {
    "customer_id": "482913567",
    "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
    "first_name": "Pat",
    "last_name": "Lee",
    "email": "pat@example.com",
    "service_address_one": "12 Main St",
    "service_city": "Atlanta",
    "service_state": "GA",
    "service_zip": "30301",
    "lines": [
        {
            "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
            "mdn": "4045550178",
            "status": "ACTIVE",
            "plan_id": "102",
            "activation_type": "NEWACTIVATION",
            "carrier": "TMB",
        }
    ],
}
_PORT = {
    "records": [
        {
            "portin_status": "CONFIRMED",
            "resolution_description": "",
            "carrier_response": "Port confirmed",
            "request_datetime": "2026-11-22T10:15:02+00:00",
            "response_datetime": "2026-11-22T10:15:32+00:00",
        }
    ],
}

ANSWERS: dict[str, Documented] = {
    "create_customer_prepaid_multiline": Documented(list[enrollment.LineEntry], _CREATED),
    "line_inquiry": Documented(enrollment.LineInquiryData, _INQUIRY),
    "activate_line": Documented(list[enrollment.LineEntry], _CREATED),
    "customer_info": Documented(enrollment.CustomerInfoData, _CUSTOMER_INFO),
    "nlad_etc_check": Documented(str, "SUBSCRIBER_NOT_FOUND"),
    "tpiv_listing": Documented(
        eligibility.TpivListingData,
        {
            "zip_code": "30301",
            "records": [
                {
                    "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
                    "failure_code": "TPIV_FAIL_DOB",
                    "first_name": "Pat",
                    "last_initial": "L",
                    "checked_at": "2026-11-22T10:15:02+00:00",
                }
            ],
        },
    ),
    "send": Documented(None, None, "Mail sent successfully"),
    "update_location_coordinate": Documented(None, None),
    "check_signature": Documented(None, None, "Signature verified"),
    "logout": Documented(None, None, "Logged out"),
    "save_signature": Documented(agents.SignatureSaved, {"signature_id": "12"}),
    "add_notes": Documented(notes.NoteAdded, {"notes_id": "31"}),
    "saved_card_list": Documented(list[cards.SavedCard], [_CARD]),
    "agent_change_password": Documented(
        None, None, "Password changed; the new password has been e-mailed to the agent"
    ),
    "check_device_compatibility": Documented(devices.Device, _DEVICE),
    "get_query_device": Documented(devices.Device, _DEVICE),
    "query_portin": Documented(porting.PortQuery, _PORT, "Port-in status: CONFIRMED"),
    "update_portin": Documented(porting.PortUpdate, {"enroll_id": "EA7KQ2M4XZP9R3TBWVC", "portin_status": "SUBMITTED"}),
    "validate_portin": Documented(
        porting.PortEligibility,
        {
            "port_number": "4045551234",
            "eligible": "Y",
            "current_carrier": "TMB",
            "current_carrier_name": "T-Mobile USA",
        },
    ),
    "update_tax_calculation_status_plum": Documented(
        payment.TaxStatus,
        {
            "STATUSCODE": "00",
            "DESCRIPTION": "Tax collected",
            "CALCID": "TX0482913567",
            "REFERENCENUMBER": "830571926403",
        },
    ),
    "make_payment": Documented(payment.Payment, _PAYMENT),
    "payment_details": Documented(payment.PaymentDetailsData, _DETAILS),
    "check_service_availability": Documented(
        enrollment.Availability,
        {
            "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
            "zip_code": "30301",
            "city": "Atlanta",
            "state": "GA",
            "carriers": ["TMB", "ATT", "VER"],
        },
    ),
    "company_carrier_list": Documented(
        list[enrollment.CarrierItem],
        [
            {"carrier_id": "1", "carrier": "ATT", "carrier_name": "AT&T Mobility"},
            {"carrier_id": "2", "carrier": "TMB", "carrier_name": "T-Mobile USA"},
        ],
    ),
    "plan_list": Documented(list[enrollment.PlanItem], [_PLAN]),
    "list_stuck_enrollments": Documented(
        list[support.StuckLine],
        [
            {
                "enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
                "parent_enrollment_id": "EA7KQ2M4XZP9R3TBWVC",
                "status": "STUCK",
                "last_error": "The carrier is unavailable",
                "since": "2026-11-22T10:15:02+00:00",
            }
        ],
    ),
    "retry_enrollment": Documented(
        support.Retried | support.RetriedAll, {"enrollment_id": "EA7KQ2M4XZP9R3TBWVC", "status": "RETRYING"}
    ),
    "authenticate": Documented(auth.Session, {"login_log_otp": "482913"}, "Successfully Authenticate"),
}
for alias in ("add_line_nonlifeline_customer", "create_prepaid_postpaid_customer_v2"):
    ANSWERS[alias] = ANSWERS["create_customer_prepaid_multiline"]
