"""`/nlad`: nlad_etc_check (asks NLAD through a workflow) and tpiv_listing (the recorded TPIV failures)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlmodel import col, select

from api.deps import LinesDep, SessionsDep, SettingsDep, TemporalDep
from api.envelope import success
from api.gate import Caller, gate
from api.workflows import outside_system
from models.envelope import Envelope
from models.messages import NladAnswer, NladCheck
from models.requests.nlad import NladAction, NladEtcCheck, TpivListing
from models.tables.eligibility import EligibilityCheck
from workflows.eligibility import NladCheckWorkflow
from workflows.ids import nlad_workflow_id

router = APIRouter(tags=["nlad"])
NladBody = Annotated[NladAction, Body(discriminator="action")]
NladCaller = Annotated[Caller, Depends(gate("nlad"))]
SUBJECT_FIELDS = (
    "first_name", "middle_name", "last_name", "dob", "address_one", "address_two", "city", "state", "zip_code",
)  # fmt: skip
TPIV_PREFIX = "TPIV_"
TPIV_LISTING_LIMIT = 100


@router.post("/nlad", response_model=Envelope)
async def nlad(
    request: Request, body: NladBody, caller: NladCaller, settings: SettingsDep, sessions: SessionsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> JSONResponse:  # fmt: skip
    """Eligibility check and the identity-verification failures of a ZIP."""
    match body:
        case NladEtcCheck():
            return success(request, await nlad_etc_check(body, caller, settings, lines, temporal, request))
        case TpivListing():
            return success(request, await tpiv_listing(body, caller, sessions))


async def nlad_etc_check(
    body: NladEtcCheck, caller: Caller, settings: SettingsDep, lines: LinesDep, temporal: TemporalDep,
    request: Request,
) -> str:  # fmt: skip
    """NLAD's answer for the subscriber, as it gave it; the check is recorded (never the SSN)."""
    subject: dict[str, Any] = {field: getattr(body, field) for field in SUBJECT_FIELDS}
    subject["ssn4"] = body.ssn
    check_key = nlad_workflow_id(request.state.request_id)
    check = NladCheck(
        check_key=check_key, vendor_id=caller.vendor_id, sealed_subject=lines.seal(subject),
        enrollment_id=body.enrollment_id, agent_id=caller.agent.username if caller.agent else None,
    )  # fmt: skip
    async with outside_system("NLAD"):
        answer: NladAnswer = await temporal.require().execute_workflow(
            NladCheckWorkflow.run, check, id=check_key, task_queue=settings.temporal_task_queue
        )
    return answer.result


async def tpiv_listing(body: TpivListing, caller: Caller, sessions: SessionsDep) -> dict[str, Any]:
    """The caller's recorded TPIV failures for the ZIP, newest first. Checks are recorded with 5-digit ZIPs,
    so a longer ZIP (decisions.md allows up to 8 digits) is matched on its first five."""
    zip_code = body.zip_code[:5]
    query = (
        select(EligibilityCheck)
        .where(EligibilityCheck.vendor_id == caller.vendor_id, EligibilityCheck.zip_code == zip_code)
        # autoescape: `_` in TPIV_ is a LIKE wildcard
        .where(col(EligibilityCheck.outcome).startswith(TPIV_PREFIX, autoescape=True))
        .order_by(col(EligibilityCheck.checked_at).desc(), col(EligibilityCheck.id).desc())
        .limit(TPIV_LISTING_LIMIT)
    )
    async with sessions() as session:
        checks = (await session.exec(query)).all()
    return {"zip_code": zip_code, "records": [_tpiv_record(check) for check in checks]}


def _tpiv_record(check: EligibilityCheck) -> dict[str, str]:
    return {
        "enrollment_id": check.enrollment_id or "", "failure_code": check.outcome,
        "first_name": check.first_name, "last_initial": check.last_initial,
        "checked_at": check.checked_at.isoformat(timespec="seconds"),
    }  # fmt: skip
