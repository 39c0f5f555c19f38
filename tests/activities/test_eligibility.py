"""EligibilityActivities with ActivityEnvironment against the sandbox's NLAD: the answer, the outage as a retryable
failure, and a retried record that leaves one row."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlmodel import select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.eligibility import EligibilityActivities
from adapters.nlad import NladClient
from models.crypto import cipher_for
from models.db import Database
from models.eligibility import EligibilityCheck, NladCheck, NladOutcome

SUBJECT = {
    "first_name": "Pat", "middle_name": None, "last_name": "O'Neil", "ssn4": "1111", "dob": "1980-04-12",
    "address_one": "12 Main St", "address_two": None, "city": "Atlanta", "state": "GA", "zip_code": "30301",
}  # fmt: skip


@pytest.fixture
def settings_overrides(sandbox_url: str) -> dict[str, Any]:
    return {"nlad_base_url": f"{sandbox_url}/nlad"}


@pytest.fixture
async def activities(settings: Any) -> AsyncIterator[EligibilityActivities]:
    db = Database(settings)
    client = NladClient(settings.systems.nlad_url)
    yield EligibilityActivities(client, db, cipher_for(settings))
    await client.close()
    await db.dispose()


def sealed(settings: Any, **changes: Any) -> NladCheck:
    subject = json.dumps({**SUBJECT, **changes})
    return NladCheck(
        "nlad-test-1", vendor_id=1, sealed_subject=cipher_for(settings).encrypt(subject), enrollment_id="E1"
    )


async def test_etc_check_returns_nlads_answer(settings, activities):
    answer = await ActivityEnvironment().run(activities.etc_check, sealed(settings))
    assert answer.result == "TPIV_FAIL_IDENTITY_NOT_FOUND"


async def test_etc_check_nlad_down_is_retryable(settings, activities):
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.etc_check, sealed(settings, ssn4="7777"))
    assert failure.value.type == "Unavailable" and not failure.value.non_retryable


async def test_record_check_retried_leaves_one_row(settings, activities):
    outcome = NladOutcome(sealed(settings), "TPIV_FAIL_IDENTITY_NOT_FOUND")
    await ActivityEnvironment().run(activities.record_check, outcome)
    await ActivityEnvironment().run(activities.record_check, outcome)
    db = Database(settings)
    async with db.transaction() as session:
        rows = (await session.exec(select(EligibilityCheck))).all()
    await db.dispose()
    assert [(r.check_key, r.initials, r.first_name, r.last_initial, r.zip_code) for r in rows] == [
        ("nlad-test-1", "PO", "Pat", "O", "30301")
    ]
