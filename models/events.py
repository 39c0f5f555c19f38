"""The event log's vocabulary: what can happen to a line (its type, as channels receive it in webhooks) and who
did it. An event carries the line's own identifiers (enrollment ids, MDN) and facts about the change, never
personal data: a correction names the field, never its value."""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    RECEIVED = "line.received"
    CUSTOMER_CREATED = "line.customer_created"
    SIM_ATTACHED = "line.sim_attached"
    ACTIVATION_ATTEMPTED = "line.activation_attempted"
    CARRIER_REFUSED = "line.carrier_refused"
    STUCK = "line.stuck"
    RETRIED = "line.retried"
    CORRECTED = "line.corrected"
    ACTIVATED = "line.activated"
    ACTIVATED_LATER = "line.activated_later"
    NUMBER_CHANGED = "line.number_changed"  # an ACTIVE line took its ported number; its first was released
    ESIM_ASSIGNED = "line.esim_assigned"
    PORT_SUBMITTED = "port.submitted"
    PORT_STATUS_CHANGED = "port.status_changed"
    PORT_RESOLUTION_REQUIRED = "port.resolution_required"
    PORT_COMPLETED = "port.completed"
    PAYMENT_RECORDED = "payment.recorded"
    TAX_COLLECTED = "tax.collected"


ALL_TYPES = tuple(EventType)

# Who made a change: `<kind>:<login name>` for people and channels, or Lineup itself.
LINEUP = "lineup"


def api_user(name: str | int) -> str:
    return f"api_user:{name}"


def agent(username: str) -> str:
    return f"agent:{username}"


def support(username: str | None) -> str:
    return f"support:{username}"


def parse_types(text: str | None) -> list[str]:
    """`--events TYPE,…` as a list of known types (all of them when empty); ValueError names an unknown one."""
    if not text or not text.strip():
        return [kind.value for kind in ALL_TYPES]
    wanted = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [kind for kind in wanted if kind not in {t.value for t in ALL_TYPES}]
    if unknown:
        raise ValueError(f"unknown event type {', '.join(unknown)}; known: {', '.join(t.value for t in ALL_TYPES)}")
    return list(dict.fromkeys(wanted))
