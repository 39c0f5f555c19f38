"""The flows `python -m tests.support.record_histories` runs to record workflow histories: each goes
through the API of a Stack (the dev server, the sandbox, a worker) as a channel would, and keeps the
histories of the workflows it drove, some finished and some still waiting (as a deploy would find them).
The customer data they send is PERSON's: test_replay checks that none of it reaches a history."""

from __future__ import annotations

import base64
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Protocol
from unittest import mock

from sqlalchemy import update
from sqlmodel import col, select

from api import payment as charges
from api.porting import signature
from models.mail import MailOutbox
from models.porting import PortIn
from models.types import luhn_ok, utcnow
from tests.support.builders import PORT_FIELDS, body, create, imei, line, new_iccid
from tests.support.left_behind import created_while_temporal_was_away, sweep_now, while_temporal_is_away
from tests.support.lines import OTHER, SUPPORT, event_types, wait_for, waiting_line
from tests.support.ports import FAST_POLLS, done_at_the_carrier, polled, port_number, ported_line, query, wait_for_port
from tests.support.taxes import tax
from tests.support.waiting import attempted, eventually
from tests.support.webhooks import receiver, register

# Marked values, so that a leak is found by value as well as by field name (test_replay).
PERSON: dict[str, str] = {
    "first_name": "Zebulon", "last_name": "Quixotez", "email": "zebulon.quixotez@example.com",
    "password": "zq-secret-pass-1", "service_address_one": "4242 Secretwood Ln",
}  # fmt: skip
PORT_OWNER: dict[str, str] = {
    "port_first_name": "Zebulon", "port_last_name": "Quixotez", "port_address_one": "4242 Secretwood Ln",
    "port_account_number": "ACCZQ4242", "port_account_password": "864213", "port_ssn": "8642",
}  # fmt: skip
CREATE_PORTIN = "create_portin_v2_when_create_customer_was_called_without_portin_tag"
CARD = {"card_number": "4242424242424242", "name_on_card": "Zebulon Quixotez", "address1": "4242 Secretwood Ln"}


# The builders' defaults, which flows that reuse test helpers (the sweep's) send.
BUILDER_PERSON = ("O'Neil", "12 Main St", "line-pass-1", "4111111111111111", "ACC12345")
PERSONAL_FIELDS = (
    "first_name", "last_name", "middle_name", "email", "password", "dob", "ssn", "port_ssn", "service_address_one",
    "address_one", "port_account_number", "port_account_password", "card_number", "cvv", "name_on_card",
    "receiver_name", "receiver_email", "subject", "body",
)  # fmt: skip
CARD_LIKE = re.compile(r"(?<!\d)[45]\d{15}(?!\d)")  # Visa and Mastercard lengths (ICCIDs and IMEIs are not)
SSN_LIKE = re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")


def customer_data_in(history_json: str) -> list[str]:
    """What of a customer's data a history (as `WorkflowHistory.to_json()` writes it) carries, payloads
    decoded: marked values, personal field names, anything shaped like a card number or an SSN."""
    texts = [history_json, *_decoded_payloads(json.loads(history_json))]
    marked = (*PERSON.values(), *PORT_OWNER.values(), *CARD.values(), *BUILDER_PERSON)
    # A short number (an SSN's last four, a PIN) turns up by chance among ids and timestamps: those are
    # found by their field names instead.
    found = {value for value in marked if not _short_number(value) and any(value in text for text in texts)}
    found |= {name for name in PERSONAL_FIELDS if any(f'"{name}":' in text for text in texts)}
    found |= {number for text in texts for number in CARD_LIKE.findall(text) if luhn_ok(number)}
    found |= {number for text in texts for number in SSN_LIKE.findall(text)}
    return sorted(found)


def _short_number(value: str) -> bool:
    return value.isdigit() and len(value) < 12


def _decoded_payloads(node: Any) -> list[str]:
    """Every payload's data (inputs, results, headers, search attributes), as text."""
    if isinstance(node, list):
        return [text for item in node for text in _decoded_payloads(item)]
    if not isinstance(node, dict):
        return []
    texts = [base64.b64decode(node["data"]).decode(errors="replace")] if {"metadata", "data"} <= node.keys() else []
    return texts + [text for value in node.values() for text in _decoded_payloads(value)]


class Recorder(Protocol):
    """What a flow gets from the recorder: its Stack, a way to find a workflow it started indirectly, and a
    way to keep a workflow's history as it is now (`closed`: once the workflow has completed)."""

    stack: Any

    async def find(self, workflow_type: str, prefix: str = "") -> str: ...

    async def keep(self, name: str, workflow_id: str, *, closed: bool) -> None: ...


Flow = Callable[[Recorder], Awaitable[None]]


async def pay(stack: Any, enrollment_id: str) -> str:
    paid = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, **CARD))
    assert paid["msg_code"] == "RESTAPI000", paid
    calc_id: str = paid["data"]["calc_id"]
    return calc_id


async def new_activation(rec: Recorder) -> None:
    """The everyday path: paid, created, shipped and activated at once in its order, then looked up."""
    stack = rec.stack
    enrollment_id = await stack.new_enrollment_id()
    await pay(stack, enrollment_id)
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id, **PERSON)))
    assert created["msg_code"] == "RESTAPI000", created
    await wait_for(stack, [enrollment_id], {"ACTIVE"})
    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    device = await stack.call("/inventory", body("check_device_compatibility", imei=imei("0")))
    assert inquiry["msg_code"] == device["msg_code"] == "RESTAPI000", (inquiry, device)
    # Activated by its order's first try: done in the order, which starts no workflow for it.
    await rec.keep("enrollment_one_line", await rec.find("EnrollmentWorkflow"), closed=True)
    assert not [w async for w in stack.env.client.list_workflows(f'WorkflowId = "line-{enrollment_id}"')]
    await rec.keep("tax_quote", await rec.find("TaxQuoteWorkflow"), closed=True)
    await rec.keep("payment_guard_released", await rec.find("PaymentGuardWorkflow"), closed=True)
    await rec.keep("line_inquiry", await rec.find("LineInquiryWorkflow", "inquiry-"), closed=True)
    await rec.keep("device_check", await rec.find("DeviceCheckWorkflow", "device-"), closed=True)


async def stuck_line_retried_by_support(rec: Recorder) -> None:
    """Two lines, the second's SIM already in use: it is STUCK until support frees the SIM and retries."""
    stack, sim = rec.stack, new_iccid()
    earlier = await stack.new_enrollment_id()
    taken = await stack.call("/customer", create(earlier, line(earlier, phone_type="4G", uiccid=sim, **PERSON)))
    assert taken["msg_code"] == "RESTAPI000", taken
    parent, second = await stack.new_enrollment_id(), await stack.new_enrollment_id()
    lines = [line(parent, **PERSON), line(second, phone_type="4G", uiccid=sim, **PERSON)]
    assert (await stack.call("/customer", create(parent, *lines)))["msg_code"] == "RESTAPI000"
    await wait_for(stack, [second], {"STUCK"})
    await rec.keep("line_stuck", f"line-{second}", closed=False)
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})
    retried = await stack.call("/ops", body("retry_enrollment", enrollment_id=second, **SUPPORT))
    assert retried["msg_code"] == "RESTAPI000", retried
    await rec.keep("line_stuck_retried_by_support", f"line-{second}", closed=True)
    order = await rec.find("EnrollmentWorkflow", f"enrollment-{parent}-")
    await rec.keep("enrollment_two_lines_one_stuck", order, closed=True)


async def stuck_line_retried_by_itself(rec: Recorder) -> None:
    """A carrier outage strands a line; its own durable timer retries it until the carrier is back."""
    stack = rec.stack
    await stack.faults(fault_rate=1.0)
    try:
        enrollment_id = await stack.new_enrollment_id()
        await stack.call("/customer", create(enrollment_id, line(enrollment_id, **PERSON)))
        await wait_for(stack, [enrollment_id], {"STUCK"})
        await eventually(  # a few of the line's own retries (one attempt each) fail too
            lambda: event_types(stack, enrollment_id), lambda kinds: kinds.count("line.activation_attempted") >= 3
        )
    finally:
        await stack.faults(fault_rate=0)
    await rec.keep("line_stuck_retried_by_timer", f"line-{enrollment_id}", closed=True)


async def port_in_completes(rec: Recorder) -> None:
    """A PORTIN line: its order submits the port, its port's workflow polls until the carrier completes it and
    gives the line the ported number."""
    enrollment_id, sim, number = await ported_line(rec.stack, **PERSON, **PORT_OWNER)
    await wait_for_port(rec.stack, query(enrollment_id, sim, number), "COMPLETED")
    await wait_for(rec.stack, [enrollment_id], {"ACTIVE"})
    await rec.keep("enrollment_port_in", await rec.find("EnrollmentWorkflow", "enrollment-"), closed=True)
    await rec.keep("port_in_completed", f"port-{enrollment_id}", closed=True)


async def port_in_pushed(rec: Recorder) -> None:
    """The carrier's push (signed) makes the port's workflow cancel its waiting poll and ask at once."""
    stack = rec.stack
    enrollment_id, sim, number = await ported_line(stack, **PERSON, **PORT_OWNER)
    port_id = await done_at_the_carrier(stack, enrollment_id)  # the fallback poll is an hour away
    push = json.dumps({"vendor_id": "DEMO", "port_id": port_id, "enrollment_id": enrollment_id}).encode()
    signed = signature(PUSH_SECRET, push, int(time.time()))
    headers = {"X-Carrier-Signature": signed, "Content-Type": "application/json"}
    assert (await stack.http.post("/carrier/port-status", content=push, headers=headers)).status_code == 200
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED")
    await rec.keep("port_in_pushed", f"port-{enrollment_id}", closed=True)


async def port_in_corrected(rec: Recorder) -> None:
    """RESOLUTION_REQUIRED, corrected with update_portin (the port workflow's update), then COMPLETED."""
    stack = rec.stack
    enrollment_id, sim, number = await ported_line(stack, **PERSON, **{**PORT_OWNER, "port_account_number": "ACC0000"})
    await wait_for_port(stack, query(enrollment_id, sim, number), "RESOLUTION_REQUIRED")
    await rec.keep("port_in_resolution_required", f"port-{enrollment_id}", closed=False)
    fix = body("update_portin", enroll_id=enrollment_id, port_account_number=PORT_OWNER["port_account_number"])
    assert (await stack.call("/port", fix))["msg_code"] == "RESTAPI000"
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED")
    await rec.keep("port_in_corrected", f"port-{enrollment_id}", closed=True)


async def port_in_gave_way(rec: Recorder) -> None:
    """RESOLUTION_REQUIRED past the port hold (issue 35, item 3): another vendor's port of the number is taken,
    and the port's workflow is told to end CANCELLED (its `gave_way` signal)."""
    stack = rec.stack
    enrollment_id, sim, number = await ported_line(stack, **PERSON, **{**PORT_OWNER, "port_account_number": "ACC0000"})
    await wait_for_port(stack, query(enrollment_id, sim, number), "RESOLUTION_REQUIRED")
    async with stack.db.transaction() as session:  # the port hold's 24 hours pass
        order = col(PortIn.enrollment_id) == enrollment_id
        await session.execute(update(PortIn).where(order).values(held_since=utcnow() - timedelta(days=2)))
    other = await stack.call("/enrollment", body("check_service_availability", **OTHER), vendor="OTHER")
    newer = other["data"]["enrollment_id"]
    fields = {**PORT_FIELDS, **PERSON, **PORT_OWNER, "port_number": number, "phone_type": "4G", "uiccid": new_iccid()}
    taken = await stack.call("/customer", create(newer, line(newer, **fields), **OTHER), vendor="OTHER")
    assert taken["msg_code"] == "RESTAPI000", taken
    await wait_for(stack, [enrollment_id], {"PORT_CANCELLED"})
    await rec.keep("port_in_gave_way", f"port-{enrollment_id}", closed=True)


async def port_in_pending_and_rejected(rec: Recorder) -> None:
    """A port whose old carrier never answers (still polling) and one the carrier refuses at submission."""
    stack = rec.stack
    pending, sim, number = await ported_line(stack, **PERSON, **{**PORT_OWNER, "port_number": port_number("96")})
    await polled(stack, pending)
    await rec.keep("port_in_polling", f"port-{pending}", closed=False)
    rejected, sim, number = await ported_line(stack, **PERSON, **{**PORT_OWNER, "port_number": port_number("98")})
    await wait_for_port(stack, query(rejected, sim, number), "REJECTED")
    await rec.keep("port_in_rejected", f"port-{rejected}", closed=True)


async def activation_later(rec: Recorder) -> None:
    """activation_later=Y: the line waits (as it may for weeks), then activate_line brings a new SIM."""
    stack = rec.stack
    enrollment_id = await waiting_line(stack, uiccid=new_iccid(), phone_type="4G", **PERSON)
    await rec.keep("line_waiting_activation", f"line-{enrollment_id}", closed=False)
    activated = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id, uiccid=new_iccid()))
    assert activated["msg_code"] == "RESTAPI000", activated
    await rec.keep("line_activated_later", f"line-{enrollment_id}", closed=True)


async def esim_assignment(rec: Recorder) -> None:
    """assign_esim for a line waiting for activation without a SIM: the carrier reserves its profile (sealed in
    the line by the activity; the history holds ids only)."""
    stack = rec.stack
    enrollment_id = await waiting_line(stack, **PERSON)
    assigned = await stack.call("/customer", body("assign_esim", enrollment_id=enrollment_id))
    assert assigned["msg_code"] == "RESTAPI000", assigned
    await rec.keep("esim_assignment", f"esim-{enrollment_id}", closed=True)


async def port_after_creation(rec: Recorder) -> None:
    """create_portin_v2…: a line waiting for activation handed over to its port (which completes and activates
    it on the ported number), one whose old carrier never answers (still polled), and an ACTIVE line that keeps
    its number until its port completes, then changes number and releases the first."""
    stack = rec.stack
    fields = {
        "port_current_carrier": "ATT",
        "port_city": "Atlanta",
        "port_state": "GA",
        "port_zip_code": "30301",
        **PORT_OWNER,
    }
    for name, number, closed in (
        ("port_added_after_creation", port_number(), True),
        ("port_added_after_creation_pending", port_number("96"), False),
    ):
        enrollment_id = await waiting_line(stack, uiccid=new_iccid(), phone_type="4G", **PERSON)
        create_portin = body(CREATE_PORTIN, enrollment_id=enrollment_id, port_number=number, **fields)
        assert (await stack.call("/port", create_portin))["msg_code"] == "RESTAPI000"
        if closed:
            await wait_for(stack, [enrollment_id], {"ACTIVE"})
            await rec.keep("line_handed_over_to_its_port", f"line-{enrollment_id}", closed=True)
        else:
            await polled(stack, enrollment_id)
        await rec.keep(name, f"port-{enrollment_id}", closed=closed)
    active = await waiting_line(stack, uiccid=new_iccid(), phone_type="4G", **PERSON)
    assert (await stack.call("/customer", body("activate_line", enrollment_id=active)))["msg_code"] == "RESTAPI000"
    number = port_number()
    create_portin = body(CREATE_PORTIN, enrollment_id=active, port_number=number, **fields)
    assert (await stack.call("/port", create_portin))["msg_code"] == "RESTAPI000"
    await wait_for_port(stack, query(active, "", number), "COMPLETED")  # a blank ESN: by line and number
    await rec.keep("port_into_an_active_line", f"port-{active}", closed=True)


async def tax_collection(rec: Recorder) -> None:
    """temporary twice, final, final again (answered the same); another calculation left waiting."""
    stack = rec.stack
    calc_id = await pay(stack, await stack.new_enrollment_id())
    for status in ("temporary", "temporary", "final", "final"):
        assert (await stack.call("/payment", tax(calc_id, status)))["msg_code"] == "RESTAPI000"
    await rec.keep("tax_collection_final", f"tax-{calc_id}", closed=True)
    waiting = await pay(stack, await stack.new_enrollment_id())
    assert (await stack.call("/payment", tax(waiting, "temporary")))["msg_code"] == "RESTAPI000"
    await rec.keep("tax_collection_waiting", f"tax-{waiting}", closed=False)


async def tax_collection_idle(rec: Recorder) -> None:
    """A calculation not updated for tax_idle_days: its workflow ends by its timer."""
    calc_id = await pay(rec.stack, await rec.stack.new_enrollment_id())
    assert (await rec.stack.call("/payment", tax(calc_id, "temporary")))["msg_code"] == "RESTAPI000"
    await rec.keep("tax_collection_idle_ended", f"tax-{calc_id}", closed=True)


async def tax_registered_after_outage(rec: Recorder) -> None:
    """A payment while the carrier is down, quoted from the rate the payment before it left (issue 27, finding 15):
    its calculation registered at the carrier once it is back."""
    stack = rec.stack
    await pay(stack, await stack.new_enrollment_id())  # the carrier up: its rate for the plan is held
    await stack.faults(fault_rate=1.0)
    try:
        calc_id = await pay(stack, await stack.new_enrollment_id())
        await attempted(stack.env.client, f"taxreg-{calc_id}", times=2)  # the registration fails, and is retried
    finally:
        await stack.faults(fault_rate=0)
    await rec.keep("tax_registration", f"taxreg-{calc_id}", closed=True)


async def nlad_check(rec: Recorder) -> None:
    """The check and its record in one activity, without the patch marker that once chose that path (the two-
    activity path it replaced is gone: a check lives ~10 s)."""
    subject = {"first_name": PERSON["first_name"], "last_name": PERSON["last_name"], "ssn": "8642"}
    checked = await rec.stack.call(
        "/nlad", body("nlad_etc_check", **subject, address_one=PERSON["service_address_one"])
    )
    assert checked["msg_code"] == "RESTAPI000", checked
    await rec.keep("nlad_check", await rec.find("NladCheckWorkflow"), closed=True)


async def lookups(rec: Recorder) -> None:
    """The catalog's lookups a channel waits on: the carrier list, a port validation, a tax estimate."""
    stack = rec.stack
    carriers = await stack.call("/enrollment", body("company_carrier_list"))
    portable = await stack.call("/port", body("validate_portin", port_number="4045551234"))
    details = await stack.call("/payment", body("payment_details", plan_id="102", zip_code="30301"))
    assert carriers["msg_code"] == portable["msg_code"] == details["msg_code"] == "RESTAPI000"
    await rec.keep("carrier_list", await rec.find("CarrierListWorkflow", "carriers-"), closed=True)
    await rec.keep("port_validation", await rec.find("PortValidationWorkflow", "portcheck-"), closed=True)
    await rec.keep("tax_estimate", await rec.find("TaxEstimateWorkflow", "taxestimate-"), closed=True)


async def outbox_errors(stack: Any) -> list[str]:
    """Why the outbox's messages wait: an attempt met the relay down."""
    async with stack.db.transaction() as session:
        return [error for error in (await session.exec(select(MailOutbox.last_error))).all() if error]


async def mail_after_outage(rec: Recorder) -> None:
    """The relay is down when the mail is sent: queued, then delivered once it is back."""
    stack, to = rec.stack, f"zebulon.{secrets.token_hex(4)}@example.com"
    await stack.sandbox_post("/sandbox/smtp", {"available": False})
    try:
        sent = await stack.call("/mail", body("send", receiver_name=["Zebulon Quixotez"], receiver_email=[to]))
        assert sent["msg"] == "Mail queued for delivery", sent
        await eventually(lambda: outbox_errors(stack), what="an attempt that met the relay down")
    finally:
        await stack.sandbox_post("/sandbox/smtp", {"available": True})
    await rec.keep("mail_delivery_after_outage", await rec.find("MailDeliveryWorkflow"), closed=True)


async def payment_guard_settles(rec: Recorder) -> None:
    """The gateway approved but the API could not write it: the guard settles the payment from the gateway."""

    async def write_fails(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the database went away after the gateway approved")

    with mock.patch.object(charges, "record_approval", write_fails):
        paid = await rec.stack.call(
            "/payment", body("make_payment", enrollment_id=await rec.stack.new_enrollment_id(), **CARD)
        )
    assert paid["msg_code"] == "RESTAPI110", paid
    await rec.keep("payment_guard_settled", await rec.find("PaymentGuardWorkflow"), closed=True)


async def sweep(rec: Recorder) -> None:
    """An order and a mail stored while Temporal was away; the sweep starts both."""
    stack = rec.stack
    await created_while_temporal_was_away(stack)
    mail = body("send", receiver_name=["Zebulon Quixotez"], receiver_email=["zebulon.sweep@example.com"])
    queued = await while_temporal_is_away(stack, "/mail", mail)
    assert queued["msg_code"] != "RESTAPI000" or queued["msg"] == "Mail queued for delivery", queued
    report = await sweep_now(stack)
    assert (report.enrollments_started, report.mails_started) == (1, 1), report
    await rec.keep("sweep_started_order_and_mail", await rec.find("SweepWorkflow"), closed=True)


PUSH_SECRET = "history-push-secret"


async def webhooks(rec: Recorder) -> None:
    """A line's events delivered to a channel's endpoint, the first answered 503 and retried; the dispatcher
    waiting for the next."""
    stack = rec.stack
    await register(stack, events="line.received")  # one delivery
    await receiver(stack, fail_next=1)
    enrollment_id = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id, **PERSON)))
    assert created["msg_code"] == "RESTAPI000", created
    await wait_for(stack, [enrollment_id], {"ACTIVE"})
    await rec.keep("webhook_delivery", await rec.find("WebhookDeliveryWorkflow"), closed=True)
    await rec.keep("webhook_dispatch", await rec.find("WebhookDispatchWorkflow"), closed=False)


# name: (flow, settings overrides). Each flow runs on a Stack of its own (its own task queue and database).
FLOWS: dict[str, tuple[Flow, dict[str, Any]]] = {
    "new_activation": (new_activation, {}),
    "stuck_line_retried_by_support": (stuck_line_retried_by_support, {}),
    "stuck_line_retried_by_itself": (
        stuck_line_retried_by_itself, {"carrier_max_attempts": 1, "stuck_retry_minutes": 1 / 60}
    ),
    "port_in_completes": (port_in_completes, FAST_POLLS),
    "port_in_corrected": (port_in_corrected, FAST_POLLS),
    "port_in_pushed": (port_in_pushed, {"port_push_secret": PUSH_SECRET, "port_push_fallback_seconds": 3600.0}),
    "port_in_pending_and_rejected": (port_in_pending_and_rejected, FAST_POLLS),
    "port_in_gave_way": (port_in_gave_way, FAST_POLLS),
    "activation_later": (activation_later, {}),
    "esim_assignment": (esim_assignment, {}),
    "port_after_creation": (port_after_creation, FAST_POLLS),
    "tax_collection": (tax_collection, {}),
    "tax_collection_idle": (tax_collection_idle, {"tax_idle_days": 2 / 86400}),
    "tax_registered_after_outage": (tax_registered_after_outage, {"lookup_budget_seconds": 1.5}),
    "nlad_check": (nlad_check, {}),
    "lookups": (lookups, {}),
    "mail_after_outage": (mail_after_outage, {"mail_wait_seconds": 0.5}),
    "payment_guard_settles": (payment_guard_settles, {"payment_guard_seconds": 1.0}),
    "sweep": (sweep, {}),
    "webhooks": (webhooks, {}),
}  # fmt: skip
