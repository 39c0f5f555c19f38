"""Activities of the eligibility domain (NLAD): the ETC check itself, and the record of its answer that
tpiv_listing lists. The subject arrives sealed and is opened only here, next to the call that needs it."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from temporalio import activity

from adapters.http import outside_call
from adapters.nlad import NladClient
from models.crypto import FieldCipher, Subject
from models.db import Database
from models.eligibility import EligibilityCheck, NladAnswer, NladCheck, NladOutcome


class EligibilityActivities:
    def __init__(self, nlad: NladClient, db: Database, cipher: FieldCipher) -> None:
        self._nlad, self._db, self._cipher = nlad, db, cipher

    @activity.defn
    async def check_and_record(self, check: NladCheck) -> NladAnswer:
        """Asks NLAD and records its answer in one activity: one workflow task and one activity task fewer
        than etc_check then record_check, on a call a channel is waiting for. A retry after the answer asks
        NLAD again (a read) and finds the row it wrote."""
        subject, answer = await self._ask(check)
        await self._record(check, subject, answer.result)
        return answer

    # etc_check and record_check: check_and_record's two halves, as NladCheckWorkflow once ran them; no workflow
    # schedules them now (tests/activities/test_eligibility.py runs each).
    @activity.defn
    async def etc_check(self, check: NladCheck) -> NladAnswer:
        return (await self._ask(check))[1]

    @activity.defn
    async def record_check(self, outcome: NladOutcome) -> None:
        await self._record(outcome.check, self._subject(outcome.check), outcome.result)

    def _subject(self, check: NladCheck) -> Subject:
        return self._cipher.open(check.sealed_subject, Subject)

    async def _ask(self, check: NladCheck) -> tuple[Subject, NladAnswer]:
        subject = self._subject(check)
        async with outside_call():
            return subject, NladAnswer(await self._nlad.etc_check(subject))

    async def _record(self, check: NladCheck, subject: Subject, result: str) -> None:
        """One row per check (keyed by its workflow id): a retried activity finds the row it wrote."""
        first, middle, last = subject["first_name"], subject.get("middle_name"), subject["last_name"]
        row = EligibilityCheck(
            check_key=check.check_key,
            vendor_id=check.vendor_id,
            agent_username=check.agent_id,
            enrollment_id=check.enrollment_id,
            zip_code=subject["zip_code"],
            outcome=result[:64],
            first_name=first,
            last_initial=_initial(last),
            initials=_initial(first) + _initial(middle) + _initial(last),
        )
        try:
            async with self._db.transaction() as session:
                session.add(row)
        except IntegrityError:
            activity.logger.info("check %s was already recorded", check.check_key)


def _initial(name: str | None) -> str:
    return next((char.upper() for char in name or "" if char.isalpha()), "")
