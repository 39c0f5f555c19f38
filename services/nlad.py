"""`/nlad`: nlad_etc_check (asks NLAD through a workflow) and tpiv_listing (the recorded TPIV failures)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from models.messages.eligibility import NladAnswer, NladCheck
from models.requests.eligibility import NladEtcCheck, TpivListing
from models.tables.eligibility import EligibilityCheck
from services.context import Context
from services.temporal import LOOKUP_SECONDS, outside_system
from workflows.eligibility import NladCheckWorkflow
from workflows.ids import nlad_workflow_id

SUBJECT_FIELDS = (
    "first_name", "middle_name", "last_name", "dob", "address_one", "address_two", "city", "state", "zip_code",
)  # fmt: skip
TPIV_PREFIX = "TPIV_"
TPIV_LISTING_LIMIT = 100


async def nlad_etc_check(*, body: NladEtcCheck, ctx: Context) -> str:
    """NLAD's answer for the subscriber, as it gave it; the check is recorded (never the SSN)."""
    subject: dict[str, Any] = {field: getattr(body, field) for field in SUBJECT_FIELDS}
    subject["ssn4"] = body.ssn
    check_key = nlad_workflow_id(ctx.request_id)
    check = NladCheck(
        check_key=check_key, vendor_id=ctx.caller.vendor_id, sealed_subject=ctx.cipher.seal(subject),
        enrollment_id=body.enrollment_id, agent_id=ctx.caller.agent_username,
    )  # fmt: skip
    async with outside_system("NLAD", within=LOOKUP_SECONDS):
        answer: NladAnswer = await ctx.temporal.client().execute_workflow(
            NladCheckWorkflow.run, check, id=check_key, task_queue=ctx.temporal.task_queue
        )
    return answer.result


async def tpiv_listing(*, body: TpivListing, ctx: Context) -> dict[str, Any]:
    """The caller's recorded TPIV failures for the ZIP, newest first. Checks are recorded with 5-digit ZIPs,
    so a longer ZIP (decisions.md allows up to 8 digits) is matched on its first five."""
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
    return {"zip_code": zip_code, "records": [_tpiv_record(check) for check in checks]}


def _tpiv_record(check: EligibilityCheck) -> dict[str, str]:
    return {
        "enrollment_id": check.enrollment_id or "", "failure_code": check.outcome,
        "first_name": check.first_name, "last_initial": check.last_initial,
        "checked_at": check.checked_at.isoformat(timespec="seconds"),
    }  # fmt: skip
