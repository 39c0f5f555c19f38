"""The eligibility domain: nlad_etc_check (asks NLAD through a workflow) and tpiv_listing (the identity
verification failures those checks recorded)."""

from __future__ import annotations

from sqlmodel import col, select

from api.access import ALL_SOURCES
from api.dispatch import Context, action, run_lookup
from models.crypto import Subject
from models.eligibility import (
    TPIV_LISTING,
    EligibilityCheck,
    NladCheck,
    NladEtcCheck,
    TpivListing,
    TpivListingData,
    TpivRecord,
)
from workflows.eligibility import NladCheckWorkflow, nlad_workflow_id

TPIV_PREFIX = "TPIV_"
TPIV_LISTING_LIMIT = 100


@action("nlad", interface=True, example="SUBSCRIBER_NOT_FOUND")
async def nlad_etc_check(*, body: NladEtcCheck, ctx: Context) -> str:
    """NLAD's answer about the subscriber, as it gave it; the check is recorded for tpiv_listing (never the
    SSN), and the subject travels sealed, so no workflow history holds it."""
    subject = Subject(
        first_name=body.first_name,
        middle_name=body.middle_name,
        last_name=body.last_name,
        dob=body.dob,
        address_one=body.address_one,
        address_two=body.address_two,
        city=body.city,
        state=body.state,
        zip_code=body.zip_code,
        ssn4=body.ssn,
    )
    check_key = nlad_workflow_id(ctx.request_id)
    check = NladCheck(
        check_key=check_key,
        vendor_id=ctx.caller.vendor_id,
        sealed_subject=ctx.cipher.seal(subject),
        enrollment_id=body.enrollment_id,
        agent_id=ctx.caller.agent_username,
        budget_seconds=ctx.settings.systems.lookup_budget_seconds,
    )
    answer = await run_lookup(ctx, NladCheckWorkflow.run, check, workflow_id=check_key, system="NLAD")
    return answer.result


@action("nlad", interface=True, sources=ALL_SOURCES, source_required=False, example=TPIV_LISTING)
async def tpiv_listing(*, body: TpivListing, ctx: Context) -> TpivListingData:
    """The caller's recorded identity-verification (TPIV) failures for a ZIP (5 to 8 digits), newest first.
    Checks are recorded with 5-digit ZIPs, so a longer ZIP is matched on its first five."""
    zip_code = body.zip_code[:5]
    query = (
        select(EligibilityCheck)
        .where(EligibilityCheck.vendor_id == ctx.caller.vendor_id, EligibilityCheck.zip_code == zip_code)
        # autoescape: `_` in TPIV_ is a LIKE wildcard
        .where(col(EligibilityCheck.outcome).startswith(TPIV_PREFIX, autoescape=True))
        .order_by(col(EligibilityCheck.checked_at).desc(), col(EligibilityCheck.id).desc())
        .limit(TPIV_LISTING_LIMIT)
    )
    async with ctx.uow.transaction() as session:
        checks = (await session.exec(query)).all()
    return TpivListingData(zip_code=zip_code, records=[TpivRecord.of(check) for check in checks])
