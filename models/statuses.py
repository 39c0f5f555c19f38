"""The states Lineup's records move through. StrEnum members are their own wire values, so the database,
workflow payloads and search attributes read the same strings as before they were named here."""

from __future__ import annotations

from enum import StrEnum


class LineStatus(StrEnum):
    RECEIVED = "RECEIVED"  # stored by intake, no workflow has picked it up yet
    CUSTOMER_CREATED = "CUSTOMER_CREATED"
    WAITING_ACTIVATION = "WAITING_ACTIVATION"  # activation_later=Y: the SIM is attached, nothing provisioned
    SHIPPING = "SHIPPING"
    ACTIVATING = "ACTIVATING"
    ACTIVE = "ACTIVE"
    STUCK = "STUCK"  # a carrier step kept failing: waits for a retry
    PORT_PENDING = "PORT_PENDING"
    PORT_REJECTED = "PORT_REJECTED"
    PORT_CANCELLED = "PORT_CANCELLED"
    PORT_ABANDONED = "PORT_ABANDONED"
    PORT_COMPLETED = "PORT_COMPLETED"  # the carrier reported the port done without the number: needs a look
    RETRYING = "RETRYING"  # support's retry was accepted (STUCK → RETRYING, once); the workflow moves it on
    PORTED_OUT = "PORTED_OUT"  # its number was ported into another line

    @classmethod
    def after_port(cls, port: PortStatus) -> LineStatus:
        """The line's state once its port ended without giving it a number (REJECTED, CANCELLED, ABANDONED)."""
        return cls(f"PORT_{port.value}")


# States in which a line still waits for a synchronous carrier answer; any other state is settled.
IN_FLIGHT = frozenset({LineStatus.RECEIVED, LineStatus.CUSTOMER_CREATED, LineStatus.SHIPPING, LineStatus.ACTIVATING})


class PortStatus(StrEnum):
    RECEIVED = "RECEIVED"  # stored, not submitted yet
    SUBMITTED = "SUBMITTED"
    CONFIRMED = "CONFIRMED"
    RESOLUTION_REQUIRED = "RESOLUTION_REQUIRED"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    CANCELLED = "CANCELLED"
    ABANDONED = "ABANDONED"  # no final answer within LINEUP_PORT_MAX_DAYS


TERMINAL_PORT_STATES = frozenset(
    {PortStatus.COMPLETED, PortStatus.REJECTED, PortStatus.CANCELLED, PortStatus.ABANDONED}
)


class MailStatus(StrEnum):
    QUEUED = "QUEUED"
    SENT = "SENT"
    REJECTED = "REJECTED"  # the relay refused it for good (5xx)


class PaymentStatus(StrEnum):
    """make_payment's saga: the intent is written before the card is charged, so money never moves unrecorded."""

    PENDING = "PENDING"  # intent recorded; the charge is under way or its answer not yet recorded
    APPROVED = "APPROVED"  # charged and recorded
    RECORDED = "RECORDED"  # paid elsewhere (OTHER_PAYMENT_OPTION, CASH): recorded, never charged
    DECLINED = "DECLINED"
    VOIDED = "VOIDED"  # charged, could not be recorded, the charge given back
    ABANDONED = "ABANDONED"  # the gateway never saw the charge


SETTLED_PAYMENTS = frozenset({PaymentStatus.APPROVED, PaymentStatus.RECORDED})


class TaxStatus(StrEnum):
    PENDING_COLLECTION = "PENDING_COLLECTION"
    COLLECTED_TEMPORARY = "COLLECTED_TEMPORARY"
    COLLECTED_FINAL = "COLLECTED_FINAL"
