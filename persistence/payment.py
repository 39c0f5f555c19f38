"""Payment rows through make_payment's saga: the intent before the card is charged, then exactly one
settlement, whoever records it (the API that charged, or the payment guard after a crash). Every change of
state is a conditional UPDATE on (status, attempt), so two writers never both settle one attempt."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.crypto import FieldCipher
from models.statuses import PaymentStatus
from models.tables.enrollment import Enrollment
from models.tables.payment import Payment, SavedCard, TaxCalculation

RETRYABLE = (PaymentStatus.DECLINED, PaymentStatus.VOIDED, PaymentStatus.ABANDONED)


async def _move(session: AsyncSession, payment: Payment, *, before: tuple[str, ...], **values: Any) -> bool:
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


async def retry_intent(session: AsyncSession, payment: Payment, *, card_on_file: str | None) -> bool:
    """A declined (or given back, or never made) payment tried again: its next attempt, pending."""
    return await _move(
        session, payment, before=RETRYABLE, status=PaymentStatus.PENDING, attempt=payment.attempt + 1,
        card_on_file=card_on_file,
    )  # fmt: skip


async def settle_failed(session: AsyncSession, payment: Payment, status: PaymentStatus) -> bool:
    """The pending attempt ended without money taken: DECLINED, ABANDONED, or VOIDED (given back)."""
    return await _move(session, payment, before=(PaymentStatus.PENDING,), status=status, card_on_file=None)


async def settle_paid(
    session: AsyncSession, payment: Payment, cipher: FieldCipher, *, status: PaymentStatus, transaction_id: str,
    card: dict[str, str] | None = None,
) -> bool:  # fmt: skip
    """The pending attempt paid: the payment, the card to save (the gateway's token, brand and last four,
    with the expiry and holder kept on file), and the tax calculation the carrier registered."""
    on_file = cipher.open(payment.card_on_file) if card is not None and payment.card_on_file else None
    if not await _move(
        session, payment, before=(PaymentStatus.PENDING,), status=status, transaction_id=transaction_id,
        card_on_file=None,
    ):  # fmt: skip
        return False
    slot = await session.get(Enrollment, payment.enrollment_id)
    assert slot is not None  # the payment's foreign key
    if card is not None and on_file is not None:
        await _save_card(session, payment, cipher, card, on_file)
    if payment.calc_id is not None and await session.get(TaxCalculation, payment.calc_id) is None:
        session.add(
            TaxCalculation(
                calc_id=payment.calc_id, vendor_id=payment.vendor_id, invoice_number=payment.invoice_number,
                state=slot.state, amount_cents=payment.amount_cents, tax_cents=payment.tax_cents,
            )
        )  # fmt: skip
    return True


async def _save_card(
    session: AsyncSession, payment: Payment, cipher: FieldCipher, card: dict[str, str], on_file: dict[str, Any]
) -> None:
    saved = SavedCard(
        vendor_id=payment.vendor_id, enrollment_id=payment.enrollment_id, payment_token=cipher.encrypt(card["token"]),
        brand=card["brand"] or "Card", last4=card["last4"], exp_month=on_file["exp_month"],
        exp_year=on_file["exp_year"], holder=cipher.seal(on_file["holder"]),
    )  # fmt: skip
    session.add(saved)
    await session.flush()
    await session.execute(update(Payment).where(col(Payment.id) == payment.id).values(card_id=saved.id))
    set_committed_value(payment, "card_id", saved.id)
