"""Payment rows through make_payment's saga: the intent before the card is charged, then exactly one
settlement, whoever records it (the API that charged, or the payment guard after a crash). Every change of
state is a conditional UPDATE on (status, attempt), so two writers never both settle one attempt."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select

from models.clock import utcnow
from models.crypto import FieldCipher
from models.documents import CardOnFile
from models.plans import PlanUnit, from_text
from models.statuses import SETTLED_PAYMENTS, PaymentStatus
from models.tables.enrollment import Enrollment, Line, Plan
from models.tables.payment import Payment, SavedCard, TaxCalculation
from persistence import events
from persistence.transaction import DbSession

RETRYABLE = (PaymentStatus.DECLINED, PaymentStatus.VOIDED, PaymentStatus.ABANDONED)


async def _move(session: DbSession, payment: Payment, *, before: tuple[str, ...], **values: object) -> bool:
    """Moves the payment's current attempt out of one of `before`; False when another writer got there first."""
    moved = await session.execute(
        update(Payment)
        .where(col(Payment.id) == payment.id, col(Payment.attempt) == payment.attempt)
        .where(col(Payment.status).in_(before))
        .values(updated_at=utcnow(), **values)
    )
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        return False
    for name, value in values.items():  # the row says so already: no second UPDATE at flush
        set_committed_value(payment, name, value)
    return True


async def retry_intent(session: DbSession, payment: Payment, *, card_on_file: str | None) -> bool:
    """A declined (or given back, or never made) payment tried again: its next attempt, pending."""
    return await _move(
        session,
        payment,
        before=RETRYABLE,
        status=PaymentStatus.PENDING,
        attempt=payment.attempt + 1,
        card_on_file=card_on_file,
    )


async def settle_failed(session: DbSession, payment: Payment, status: PaymentStatus) -> bool:
    """The pending attempt ended without money taken: DECLINED, ABANDONED, or VOIDED (given back)."""
    return await _move(session, payment, before=(PaymentStatus.PENDING,), status=status, card_on_file=None)


async def settle_paid(
    session: DbSession,
    payment: Payment,
    cipher: FieldCipher,
    *,
    status: PaymentStatus,
    transaction_id: str,
    card: dict[str, str] | None = None,
) -> bool:
    """The pending attempt paid: the payment, the card to save (the gateway's token, brand and last four,
    with the expiry and holder kept on file), and the tax calculation the carrier registered."""
    on_file = cipher.open(payment.card_on_file, CardOnFile) if card is not None and payment.card_on_file else None
    if not await _move(
        session,
        payment,
        before=(PaymentStatus.PENDING,),
        status=status,
        transaction_id=transaction_id,
        card_on_file=None,
    ):
        return False
    await events.payment_recorded(session, payment)  # issue 21: the event log
    slot = await session.get(Enrollment, payment.enrollment_id)
    assert slot is not None  # the payment's foreign key
    if card is not None and on_file is not None:
        await _save_card(session, payment, cipher, card, on_file)
    if payment.calc_id is not None and await session.get(TaxCalculation, payment.calc_id) is None:
        session.add(
            TaxCalculation(
                calc_id=payment.calc_id,
                vendor_id=payment.vendor_id,
                invoice_number=payment.invoice_number,
                state=slot.state,
                amount_cents=payment.amount_cents,
                tax_cents=payment.tax_cents,
            )
        )
    return True


async def _save_card(
    session: DbSession, payment: Payment, cipher: FieldCipher, card: dict[str, str], on_file: CardOnFile
) -> None:
    saved = SavedCard(
        vendor_id=payment.vendor_id,
        enrollment_id=payment.enrollment_id,
        payment_token=cipher.encrypt(card["token"]),
        brand=card["brand"] or "Card",
        last4=card["last4"],
        exp_month=on_file["exp_month"],
        exp_year=on_file["exp_year"],
        holder=cipher.seal(on_file["holder"]),
    )
    session.add(saved)
    await session.flush()
    await session.execute(update(Payment).where(col(Payment.id) == payment.id).values(card_id=saved.id))
    set_committed_value(payment, "card_id", saved.id)


async def active_plans(session: DbSession, units: tuple[PlanUnit, ...]) -> dict[int, Plan] | None:
    """The plans a payment names, by id; None when one of them is not an active plan of the plan list."""
    ids = {unit.plan_id for unit in units}
    found = (await session.exec(select(Plan).where(col(Plan.plan_id).in_(ids), col(Plan.active)))).all()
    plans = {plan.plan_id: plan for plan in found}
    return plans if set(plans) == ids else None


async def reference_holder(session: DbSession, vendor_id: int, reference: str) -> Payment | None:
    """The vendor's payment that recorded this processor reference, if one did."""
    query = select(Payment).where(col(Payment.vendor_id) == vendor_id, col(Payment.transaction_id) == reference)
    return (await session.exec(query)).first()


async def settled_invoice(session: DbSession, vendor_id: int, invoice_number: str, enrollment_ids: set[str]) -> bool:
    """True when `invoice_number` is a settled payment of the vendor for one of these enrollment ids."""
    query = select(Payment.id).where(
        col(Payment.vendor_id) == vendor_id,
        col(Payment.invoice_number) == invoice_number,
        col(Payment.enrollment_id).in_(enrollment_ids),
        col(Payment.status).in_(SETTLED_PAYMENTS),
    )
    return (await session.exec(query)).first() is not None


async def paid_plans(session: DbSession, vendor_id: int, enrollment_ids: set[str]) -> list[int]:
    """The plan ids settled payments of the vendor cover for these enrollment ids, one entry per line a plan is
    paid for (a plan listed twice pays for two lines; its months say for how long, not for how many)."""
    query = select(Payment.plan_id, Payment.plans).where(
        col(Payment.vendor_id) == vendor_id,
        col(Payment.enrollment_id).in_(enrollment_ids),
        col(Payment.status).in_(SETTLED_PAYMENTS),
    )
    covered: list[int] = []
    for plan_id, plans in (await session.exec(query)).all():
        covered += [unit.plan_id for unit in from_text(plans)] if plans else [plan_id]
    return covered


async def account_plans(session: DbSession, vendor_id: int, parent_enrollment_id: str) -> list[tuple[str, int, str]]:
    """(enrollment id, plan id, status) of every line of the vendor's account under this parent."""
    query = select(Line.enrollment_id, Line.plan_id, Line.status).where(
        col(Line.vendor_id) == vendor_id, col(Line.parent_enrollment_id) == parent_enrollment_id
    )
    return [(eid, plan_id, status) for eid, plan_id, status in (await session.exec(query)).all()]
