"""Which action lives in which group, and the request model of every implemented action."""

from __future__ import annotations

import typing
from types import UnionType
from typing import Any, get_args

from models.requests import (
    agents,
    auth,
    cards,
    devices,
    eligibility,
    enrollment,
    mail,
    notes,
    payment,
    porting,
    support,
)
from models.requests.base import ActionRequest

# Every action the interface and decisions.md name, implemented or not, so an action posted to the wrong
# group is told apart from one that does not exist.
ACTION_GROUP: dict[str, str] = {
    "create_customer_prepaid_multiline": "customer",
    "add_line_nonlifeline_customer": "customer",
    "create_prepaid_postpaid_customer_v2": "customer",
    "line_inquiry": "customer",
    "nlad_etc_check": "nlad",
    "tpiv_listing": "nlad",
    "send": "mail",
    "update_location_coordinate": "agent",
    "check_signature": "agent",
    "save_signature": "agent",
    "add_notes": "notes",
    "saved_card_list": "cards",
    "agent_change_password": "auth",
    "logout": "auth",
    "check_device_compatibility": "inventory",
    "query_portin": "port",
    "update_portin": "port",
    "update_tax_calculation_status_plum": "payment",
    "make_payment": "payment",
    "check_service_availability": "enrollment",
    "plan_list": "plan",
    "validate_portin": "port",
    "customer_info": "customer",
    "activate_line": "customer",
    "company_carrier_list": "enrollment",
    "payment_details": "payment",
    "get_query_device": "inventory",
    "list_stuck_enrollments": "ops",
    "retry_enrollment": "ops",
}

GROUPS = frozenset(ACTION_GROUP.values())

GROUP_UNIONS: dict[str, Any] = {
    "agent": agents.AgentAction,
    "customer": enrollment.CustomerAction,
    "enrollment": enrollment.EnrollmentAction,
    "plan": enrollment.PlanAction,
    "payment": payment.PaymentAction,
    "ops": support.OpsAction,
    "nlad": eligibility.NladAction,
    "mail": mail.MailAction,
    "inventory": devices.InventoryAction,
    "port": porting.PortAction,
    "notes": notes.NotesAction,
    "cards": cards.CardsAction,
    "auth": auth.AuthAction,
}


def _members(union: Any) -> tuple[type[ActionRequest], ...]:
    if isinstance(union, UnionType) or typing.get_origin(union) is typing.Union:
        return get_args(union)
    return (union,)


def _action_names(model: type[ActionRequest]) -> tuple[str, ...]:
    return get_args(model.model_fields["action"].annotation)


ACTION_MODELS: dict[str, type[ActionRequest]] = {
    name: model for union in GROUP_UNIONS.values() for model in _members(union) for name in _action_names(model)
}
