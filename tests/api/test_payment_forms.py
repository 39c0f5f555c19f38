"""make_payment and payment_details in the forms the original service's channels send (decisions.md, "Blank
values", "External payment references", "make_payment names", "plan_id lists"): each with a good and a bad
value over HTTP."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from sqlmodel import select

from api import payment as payments
from cli.accounts import AgentSpec, create_agent
from models.payment import PaymentRecord
from tests.support.builders import body

NO_CARD = {
    "card_number": None, "exp_month": None, "exp_year": None, "cvv": None, "name_on_card": None,
    "address1": None, "city": None, "state": None, "zip": None, "save_card": None,
}  # fmt: skip
REFERENCE_RULE = "must be 1 to 255 letters, digits and _ . : - (the processor's reference)"
PLAN_RULE = "Plan Id must be a plan id or a list of plan ids"


def original_card(enrollment_id: str, **overrides: Any) -> dict[str, Any]:
    """A card payment under the original's names only."""
    request = body("make_payment", enrollment_id=enrollment_id, card_type="VISA")
    for ours in ("exp_month", "exp_year", "address1", "city", "state", "zip"):
        theirs = {"exp_month": "expiration_month", "exp_year": "expiration_year"}.get(ours, f"billing_{ours}")
        request[theirs] = request.pop(ours)
    return {**request, **overrides}


def external(enrollment_id: str, reference: str | None = None, **overrides: Any) -> dict[str, Any]:
    """A payment captured by the channel's own processor, recorded by an agent with the payments role."""
    fields = {
        "payment_method": "OTHER_PAYMENT_OPTION",
        "agent_id": "demo.agent",
        "payment_method_option": "STRIPE",
        "transaction_id": reference or f"ch_3P0k{secrets.token_hex(8)}",
        **NO_CARD,
        **overrides,
    }
    return body("make_payment", enrollment_id=enrollment_id, **fields)


async def stored(api: Any, enrollment_id: str) -> list[PaymentRecord]:
    async with api.db.transaction() as session:
        return list(
            (await session.exec(select(PaymentRecord).where(PaymentRecord.enrollment_id == enrollment_id))).all()
        )


# -- Blank values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("blank", ["", "   "])
async def test_a_blank_original_alias_is_an_absent_field(shared_stack, blank):
    enrollment_id = await shared_stack.new_enrollment_id()
    paid = await shared_stack.call("/payment", original_card(enrollment_id, billing_address2=blank))
    assert paid["msg_code"] == "RESTAPI000", paid


async def test_a_bad_original_alias_is_still_refused_by_its_name(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", original_card(enrollment_id, billing_address2="Apt (4)"))
    assert refused["errors"] == ["Billing address2 may contain only letters, digits, spaces and / # -"]


async def test_a_blank_required_alias_is_missing(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", original_card(enrollment_id, billing_zip=" "))
    assert refused["errors"] == ["Please enter Zip"]


# -- External payment references -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference", ["ch_3P0kXa2eZvKYlo2C1aBcDeFg", "pi_3MtwBwLkdIwHu7ix28a3tqPa", "pm_1NqZ2x.order:42-b", "A" * 247]
)
async def test_a_processor_reference_is_recorded_as_given(shared_stack, reference):
    enrollment_id = await shared_stack.new_enrollment_id()
    unique = f"{reference}{secrets.token_hex(4)}"  # at most 255 characters
    paid = await shared_stack.call("/payment", external(enrollment_id, unique))
    assert paid["msg_code"] == "RESTAPI000", paid
    assert paid["data"]["transaction_id"] == unique == paid["data"]["transaction_no"]
    assert [row.transaction_id for row in await stored(shared_stack, enrollment_id)] == [unique]


@pytest.mark.parametrize("reference", ["ch_3P0k Xa2e", "ch_3P0k/Xa2e", "A" * 256])
async def test_a_reference_that_is_no_processor_reference_is_refused(shared_stack, reference):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", external(enrollment_id, reference))
    assert refused["errors"] == [f"Transaction Id {REFERENCE_RULE}"]


async def test_charge_id_is_the_originals_name_for_the_reference(shared_stack):
    enrollment_id, reference = await shared_stack.new_enrollment_id(), f"ch_{secrets.token_hex(8)}"
    request = external(enrollment_id, transaction_id=None, charge_id=reference)
    paid = await shared_stack.call("/payment", request)
    assert paid["data"]["transaction_id"] == reference, paid
    refused = await shared_stack.call("/payment", {**request, "charge_id": "ch 1"})
    assert refused["errors"] == [f"Charge Id {REFERENCE_RULE}"]


async def test_external_transaction_id_keeps_its_own_rule(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", external(enrollment_id, external_transaction_id="ch_3P0k"))
    assert refused["errors"] == ["External Transaction Id must be letters and digits only, at most 64"]
    paid = await shared_stack.call("/payment", external(enrollment_id, external_transaction_id="ch3P0k"))
    assert paid["msg_code"] == "RESTAPI000", paid


async def test_one_vendor_records_a_reference_once(shared_stack):
    first, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    reference = f"pi_{secrets.token_hex(10)}"
    paid = await shared_stack.call("/payment", external(first, reference))
    assert paid["msg_code"] == "RESTAPI000", paid
    again = await shared_stack.call("/payment", external(first, reference))  # the same request: the first answer
    assert again["data"]["invoice_number"] == paid["data"]["invoice_number"], again
    for other in (external(second, reference), external(first, reference, plan_id="101")):
        refused = await shared_stack.call("/payment", other)
        assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Payment reference already recorded"])
    assert await stored(shared_stack, second) == []


# Issue 35, finding 14: `ch_…`, `ch_….` and `CH_…` were three payments.
@pytest.mark.parametrize("written", ["{kind}_{id}.", "{KIND}_{id}", "{Kind}_{id}.."])
async def test_a_reference_with_a_trailing_dot_or_its_kind_in_capitals_is_the_same_payment(shared_stack, written):
    first, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    kind, id_ = "ch", f"3P0k{secrets.token_hex(6)}Xa"
    paid = await shared_stack.call("/payment", external(first, f"{kind}_{id_}"))
    assert paid["data"]["transaction_id"] == f"ch_{id_}", paid
    again = written.format(kind=kind, KIND=kind.upper(), Kind=kind.capitalize(), id=id_)
    refused = await shared_stack.call("/payment", external(second, again))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Payment reference already recorded"])
    assert await stored(shared_stack, second) == []


async def test_a_reference_is_recorded_in_the_form_it_is_compared_in(shared_stack):
    """The processor's own id keeps its case: `pi_Ab` and `pi_aB` are two payments. A reference of dots alone is
    none."""
    first, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    id_ = f"Ab{secrets.token_hex(6)}"
    paid = await shared_stack.call("/payment", external(first, f"PI_{id_}."))
    assert [row.transaction_id for row in await stored(shared_stack, first)] == [f"pi_{id_}"], paid
    other = await shared_stack.call("/payment", external(second, f"pi_{id_.swapcase()}"))
    assert other["data"]["transaction_id"] == f"pi_{id_.swapcase()}", other
    refused = await shared_stack.call("/payment", external(await shared_stack.new_enrollment_id(), "..."))
    assert refused["errors"] == [f"Transaction Id {REFERENCE_RULE}"]


async def test_another_vendor_may_record_the_same_reference(shared_stack):
    await create_agent(shared_stack.db, AgentSpec("OTHER", "other.cashier", "pw-123456", roles=("agent", "payments")))
    reference, ours = f"pm_{secrets.token_hex(10)}", await shared_stack.new_enrollment_id()
    theirs = (
        await shared_stack.call(
            "/enrollment", body("check_service_availability", agent_id="other.agent"), vendor="OTHER"
        )
    )["data"]["enrollment_id"]
    assert (await shared_stack.call("/payment", external(ours, reference)))["msg_code"] == "RESTAPI000"
    paid = await shared_stack.call("/payment", external(theirs, reference, agent_id="other.cashier"), vendor="OTHER")
    assert (paid["msg_code"], paid["data"]["transaction_id"]) == ("RESTAPI000", reference), paid


@pytest.mark.parametrize("friendly_check", [True, False])
async def test_a_reference_sent_twice_at_once_is_recorded_once(shared_stack, monkeypatch, friendly_check):
    """The unique index is the backstop when requests pass the friendly check together (without the check, it
    alone refuses them)."""
    if not friendly_check:

        async def nobody(*_args: Any) -> None:
            return None

        monkeypatch.setattr(payments, "reference_holder", nobody)
    ids = [await shared_stack.new_enrollment_id() for _ in range(4)]
    reference = f"ch_{secrets.token_hex(10)}"
    answers = await asyncio.gather(*(shared_stack.call("/payment", external(eid, reference)) for eid in ids))
    assert sorted(answer["msg_code"] for answer in answers) == ["RESTAPI000", "RESTAPI110", "RESTAPI110", "RESTAPI110"]
    refusals = [answer["errors"] for answer in answers if answer["msg_code"] != "RESTAPI000"]
    assert refusals == [["Payment reference already recorded"]] * 3
    assert sum([len(await stored(shared_stack, eid)) for eid in ids]) == 1


# -- payment_status, settlement, payment_option ---------------------------------------------------------


async def test_a_charged_card_is_success_approved(shared_stack):
    paid = await shared_stack.call("/payment", original_card(await shared_stack.new_enrollment_id()))
    assert (paid["data"]["payment_status"], paid["data"]["settlement"]) == ("SUCCESS", "APPROVED"), paid


@pytest.mark.parametrize("method", ["OTHER_PAYMENT_OPTION", "CASH"])
async def test_a_recorded_payment_is_success_recorded(shared_stack, method):
    enrollment_id = await shared_stack.new_enrollment_id()
    paid = await shared_stack.call("/payment", external(enrollment_id, payment_method=method))
    assert (paid["data"]["payment_status"], paid["data"]["settlement"]) == ("SUCCESS", "RECORDED"), paid


async def test_payment_option_is_payment_method_option(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    request = external(enrollment_id, payment_method_option=None, payment_option="PAYPAL")
    assert (await shared_stack.call("/payment", request))["msg_code"] == "RESTAPI000"
    assert [row.payment_method_option for row in await stored(shared_stack, enrollment_id)] == ["PAYPAL"]
    refused = await shared_stack.call("/payment", {**request, "payment_option": "P" * 33})
    assert refused["errors"] == ["Payment option must be at most 32 characters"]
    missing = await shared_stack.call("/payment", {**request, "payment_option": ""})
    assert missing["errors"] == ["Payment method option is required for an OTHER_PAYMENT_OPTION payment"]


# -- plan_id lists -------------------------------------------------------------------------------------------


async def plan_prices(api: Any) -> dict[str, float]:
    plans = await api.call("/plan", body("plan_list"))
    return {str(plan["plan_id"]): float(plan["plan_price"]) for plan in plans["data"]}


@pytest.mark.parametrize(
    ("plan_id", "months"),
    [
        ([101], {"101": 1}),
        ([{"id": 101, "no_of_months": 3}], {"101": 3}),
        ([101, {"id": "102", "no_of_months": "2"}], {"101": 1, "102": 2}),
        (["102", "102"], {"102": 2}),
    ],
)
async def test_a_plan_list_is_quoted_and_charged_as_its_sum(shared_stack, plan_id, months):
    prices = await plan_prices(shared_stack)
    expected = f"{sum(prices[plan] * count for plan, count in months.items()):.2f}"
    enrollment_id = await shared_stack.new_enrollment_id()
    quoted = await shared_stack.call("/payment", body("payment_details", plan_id=plan_id, enrollment_id=enrollment_id))
    assert quoted["data"]["total_actual_amount"] == expected, quoted
    paid = await shared_stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, plan_id=plan_id))
    assert paid["msg_code"] == "RESTAPI000", paid
    charged = paid["data"]
    assert (charged["amount"], charged["tax_amount"], charged["total_amount"]) == (
        quoted["data"]["total_actual_amount"],
        quoted["data"]["total_tax"],
        quoted["data"]["total_amount"],
    )
    shown = [quoted["data"]["plan"]] if "plan" in quoted["data"] else quoted["data"]["plans"]
    assert ("plans" in quoted["data"]) == (len(plan_id) > 1)
    shares = sum(float(item["tax_amount"]) for plan in shown for item in plan["tax_breakup"])
    assert f"{shares:.2f}" == quoted["data"]["total_tax"]


@pytest.mark.parametrize(
    "plan_id", [[], ["x1"], [{"id": 101, "no_of_months": 0}], [{"id": 101, "months": 2}], {"id": 101}, [True]]
)
@pytest.mark.parametrize("action", ["make_payment", "payment_details"])
async def test_a_value_that_names_no_plans_is_refused(shared_stack, plan_id, action):
    request = body(action, enrollment_id=await shared_stack.new_enrollment_id(), plan_id=plan_id)
    assert (await shared_stack.call("/payment", request))["errors"] == [PLAN_RULE]


async def test_a_list_with_an_unknown_plan_is_refused(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    for action in ("make_payment", "payment_details"):
        request = body(action, enrollment_id=enrollment_id, plan_id=[101, 999])
        assert (await shared_stack.call("/payment", request))["errors"] == ["Plans not found"]
