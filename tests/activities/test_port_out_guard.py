"""Port-out PINs that cannot be guessed (issue 35, item 1): a port of a number another vendor's ACTIVE line holds
is checked as the losing carrier checks a port-out, with one refusal for a wrong account number or PIN (it never
tells which), each wrong check counted per number in the database; the limit's count locks the number's ports
(even the right account and PIN are refused) until the lock ends. The holder's vendor hears each refusal
(`line.port_out_attempted`) and the number's going (`line.ported_out`) on its own line, and nothing names the
other side."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import update
from sqlmodel import col, select
from temporalio.testing import ActivityEnvironment

from activities.porting import PORT_OUT_MISMATCH, PortingActivities
from models.enrollment.lines import CarrierCall, Line, LineStatus
from models.events import LineEvent
from models.porting import PortFinish, PortIn, PortOutGuard, PortOutLimits, PortStatus, PortView
from models.types import utcnow
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import OTHER, event_types, stored_line
from tests.support.ports import port_number
from tests.support.received import received, retried

LIMITS = PortOutLimits(failures=5, window=timedelta(hours=24), lock=timedelta(hours=24))
MISMATCH = PortView(PortStatus.RESOLUTION_REQUIRED, "8A", "Account number or PIN does not match")
LOCKED = PortView(PortStatus.RESOLUTION_REQUIRED, "8L", "The number cannot be ported now")


@pytest.fixture
def activities(carrier, db, cipher) -> PortingActivities:
    return PortingActivities(carrier, db, cipher, LIMITS)


async def holder_line(api: Any, cipher: Any, number: str) -> tuple[str, str, str]:
    """An ACTIVE line of the vendor OTHER holding `number`: its enrollment id, customer id and account PIN."""
    answer = await api.call("/enrollment", body("check_service_availability", **OTHER), vendor="OTHER")
    enrollment_id = answer["data"]["enrollment_id"]
    await api.call("/customer", create(enrollment_id, line(enrollment_id), **OTHER), vendor="OTHER")
    async with api.db.transaction() as session:
        held = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        held.status, held.mdn = LineStatus.ACTIVE, number
        session.add(held)
    assert held.customer_id is not None and held.pin is not None
    return enrollment_id, held.customer_id, cipher.decrypt(held.pin)


async def porting_line(api: Any, number: str, **old_account: str) -> str:
    """A line of the vendor DEMO porting `number` in with this old account."""
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": new_iccid(), **old_account}
    [enrollment_id] = await received(api, fields)
    return enrollment_id


async def corrected(api: Any, cipher: Any, enrollment_id: str, **old_account: str) -> None:
    """update_portin's corrections, stored as it stores them (sealed anew)."""
    async with api.db.transaction() as session:
        order = await session.get(PortIn, enrollment_id)
        assert order is not None
        order.secrets = cipher.seal({**cipher.open(order.secrets, dict), **old_account})
        session.add(order)


async def submitted(activities: PortingActivities, enrollment_id: str, env: Any = None) -> Any:
    call = CarrierCall(enrollment_id, "DEMO", f"port-{enrollment_id}:port:0")
    return await (env or ActivityEnvironment()).run(activities.submit_and_record, call)


async def guard(api: Any, number: str) -> PortOutGuard | None:
    async with api.db.transaction() as session:
        found: PortOutGuard | None = await session.get(PortOutGuard, number)
    return found


async def holder_events(api: Any, enrollment_id: str, kind: str) -> list[dict[str, Any]]:
    async with api.db.transaction() as session:
        query = select(LineEvent).where(LineEvent.enrollment_id == enrollment_id, LineEvent.type == kind)
        return [
            {"vendor_id": event.vendor_id, **json.loads(event.data)}
            for event in (await session.exec(query.order_by(col(LineEvent.id)))).all()
        ]


async def test_a_wrong_account_number_and_a_wrong_pin_are_refused_alike(api, activities, cipher):
    number = port_number()
    _, customer_id, pin = await holder_line(api, cipher, number)
    wrong_account = await porting_line(api, number, port_account_number="ACC98765", port_account_password=pin)
    before = REGISTRY.get_sample_value("lineup_port_out_check_failures_total") or 0.0
    assert (await submitted(activities, wrong_account)).view == MISMATCH
    await corrected(api, cipher, wrong_account, account_number=customer_id, account_password=other_pin(pin))
    assert (await submitted(activities, wrong_account)).view == MISMATCH
    async with api.db.transaction() as session:
        order = await session.get(PortIn, wrong_account)
    assert order is not None and (order.status, order.resolution_code) == ("RESOLUTION_REQUIRED", "8A")
    assert (MISMATCH.resolution_code, MISMATCH.resolution_description) == PORT_OUT_MISMATCH
    assert REGISTRY.get_sample_value("lineup_port_out_check_failures_total") == before + 2  # the alert rules' rate


async def test_the_sixth_check_is_refused_even_with_the_right_pin_until_the_lock_ends(api, activities, cipher):
    number = port_number("96")  # the sandbox leaves its port SUBMITTED
    holder, customer_id, pin = await holder_line(api, cipher, number)
    guessing = await porting_line(api, number, port_account_number=customer_id, port_account_password=other_pin(pin))
    for guess in range(5):
        await corrected(api, cipher, guessing, account_password=f"{(int(pin) + 1 + guess) % 10_000:04d}")
        assert (await submitted(activities, guessing)).view == (LOCKED if guess == 4 else MISMATCH)
    counted = await guard(api, number)
    assert counted is not None and counted.failures == 5 and counted.locked_until is not None
    assert counted.locked_until > utcnow() + timedelta(hours=23)
    await corrected(api, cipher, guessing, account_password=pin)  # the right PIN, sixth
    refused = await submitted(activities, guessing)
    assert (refused.port_id, refused.view) == (None, LOCKED)
    assert (await stored_line(api, holder)).status == LineStatus.ACTIVE
    assert (await guard(api, number)).failures == 5  # type: ignore[union-attr]  # a locked check is not counted
    async with api.db.transaction() as session:  # the lock's 24 hours pass
        ended = utcnow() - timedelta(seconds=1)
        await session.execute(
            update(PortOutGuard).where(col(PortOutGuard.port_number) == number).values(locked_until=ended)
        )
    await corrected(api, cipher, guessing, account_password=pin)
    assert (await submitted(activities, guessing)).port_id is not None


async def test_a_retried_check_is_counted_once(api, activities, cipher):
    number = port_number()
    holder, _, _ = await holder_line(api, cipher, number)
    guessing = await porting_line(api, number, port_account_number="ACC98765")
    first = await submitted(activities, guessing)
    assert (await submitted(activities, guessing, retried())).view == first.view
    assert (await guard(api, number)).failures == 1  # type: ignore[union-attr]
    assert (await event_types(api, holder)).count("line.port_out_attempted") == 1


async def test_the_holders_vendor_hears_each_refusal_and_the_port_out_naming_no_one(api, activities, cipher):
    number = port_number("96")
    holder, customer_id, pin = await holder_line(api, cipher, number)
    porting = await porting_line(api, number, port_account_number="ACC98765", port_account_password=other_pin(pin))
    await submitted(activities, porting)
    await corrected(api, cipher, porting, account_number=customer_id)
    await submitted(activities, porting)
    attempts = await holder_events(api, holder, "line.port_out_attempted")
    async with api.db.transaction() as session:
        held = await session.get(Line, holder)
    assert held is not None
    assert [(event["vendor_id"], event["mdn"], event["failures"], event["locked"]) for event in attempts] == [
        (held.vendor_id, number, 1, False),
        (held.vendor_id, number, 2, False),
    ]
    facts = {"vendor_id", "enrollment_id", "parent_enrollment_id", "mdn", "attempted_at", "failures", "locked"}
    assert all(set(event) == facts and event["enrollment_id"] == holder for event in attempts)  # no PIN, no account
    said = json.dumps(attempts)
    assert "ACC98765" not in said and customer_id not in said and porting not in said and "DEMO" not in said
    await corrected(api, cipher, porting, account_password=pin)
    assert (await submitted(activities, porting)).port_id is not None
    finish = PortFinish(porting, "DEMO", PortView(PortStatus.COMPLETED, mdn=number, msid="M-PORTED"))
    await ActivityEnvironment().run(activities.finish_port, finish)
    assert (await stored_line(api, holder)).status == LineStatus.PORTED_OUT
    [went] = await holder_events(api, holder, "line.ported_out")
    assert (went["vendor_id"], went["enrollment_id"], went["mdn"]) == (held.vendor_id, holder, number)
    assert porting not in json.dumps(went) and "DEMO" not in json.dumps(went)


def other_pin(pin: str) -> str:
    return "0001" if pin != "0001" else "0002"
