"""The requests a channel sends for one order (the README's curl session): payment, customer with its lines (a
third of them ported in), and a welcome e-mail."""

from __future__ import annotations

import random
import secrets
from typing import Any

from bench.bodies import AGENT, AUTHENTICATE, AVAILABILITY, PLAN_LIST, line
from models.types import with_check_digit

__all__ = ["AUTHENTICATE", "AVAILABILITY", "PLAN_LIST", "PortNumbers", "create", "mail", "payment"]

PORT_FIELDS: dict[str, Any] = {
    "activation_type": "PORTIN", "port_current_carrier": "ATT", "port_first_name": "Pat", "port_last_name": "Smith",
    "port_address_one": "9 Elm St", "port_city": "Atlanta", "port_state": "GA", "port_zip_code": "30301",
    "port_account_number": "ACC12345", "port_account_password": "4321", "port_ssn": "6789",
}  # fmt: skip


class PortNumbers:
    """Numbers to port in, each once: exchange 555, which the carrier never assigns, so no ported number is an
    MDN Lineup already holds; never ending 96 or 98 (the sandbox's never-completing and refused ports)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def next(self) -> str:
        while True:
            area = str(self.rng.randint(2, 9)) + f"{self.rng.randint(0, 99):02d}"
            number = f"{area}555{self.rng.randint(0, 9999):04d}"
            if area[1:] != "11" and number[-2:] not in ("96", "98") and number not in self.used:
                self.used.add(number)
                return number


def sim() -> str:
    """A fresh Luhn-valid ICCID."""
    return with_check_digit("8901260" + "".join(secrets.choice("0123456789") for _ in range(12)))


def payment(enrollment_id: str) -> dict[str, Any]:
    return {
        "action": "make_payment",
        **AGENT,
        "enrollment_id": enrollment_id,
        "plan_id": "102",
        "card_number": "4111111111111111",
        "exp_month": "12",
        "exp_year": "2030",
        "cvv": "123",
        "name_on_card": "Pat Lee",
        "address1": "12 Main St",
        "city": "Atlanta",
        "state": "GA",
        "zip": "30301",
        "save_card": "N",
    }


def order_line(enrollment_id: str, port_number: str | None) -> dict[str, Any]:
    """A new activation, shipped; or, with a number, a port-in on a SIM of its own."""
    body = {**line(enrollment_id), "email": f"soak.{enrollment_id.lower()}@example.com"}
    if port_number is None:
        return body
    return {**body, **PORT_FIELDS, "port_number": port_number, "phone_type": "4G", "uiccid": sim()}


def create(parent: str, lines: list[dict[str, Any]], invoice_number: str) -> dict[str, Any]:
    return {
        "action": "create_customer_prepaid_multiline",
        **AGENT,
        "parent_enrollment_id": parent,
        "invoice_number": invoice_number,
        "lines": lines,
    }


def mail(parent: str, address: str) -> dict[str, Any]:
    """The order's welcome e-mail; its transaction id makes a repeated send the same e-mail."""
    return {
        "action": "send",
        **AGENT,
        "external_transaction_id": f"SOAK{parent}",
        "sender_name": "Lineup Soak",
        "sender_email": "soak@lineup.example",
        "subject": f"Welcome {parent}",
        "body": "<p>Your lines are on their way.</p>",
        "receiver_name": ["Pat Lee"],
        "receiver_email": [address],
    }
