"""PortingActivities with ActivityEnvironment against the sandbox's carrier: a submission a retry repeats
without a second port or event, a number the carrier will not port, a poll with no news and one with news, the
port's end giving the line its number once, and a number's validation."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.porting import PortingActivities
from models.enrollment.lines import CarrierCall, LineStatus
from models.porting import PortCheck, PortFinish, PortOutcome, PortStatus, PortView, PortWatchPoll
from tests.support.builders import PORT_FIELDS, new_iccid
from tests.support.lines import event_types, stored_line
from tests.support.ports import port_number
from tests.support.received import received, retried

NEVER_COMPLETES = "96"  # the sandbox leaves such a port SUBMITTED


@pytest.fixture
def activities(carrier, db, cipher) -> PortingActivities:
    return PortingActivities(carrier, db, cipher)


async def porting_line(api, number: str) -> str:
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": new_iccid()}
    [enrollment_id] = await received(api, fields)
    return enrollment_id


def submission(enrollment_id: str) -> CarrierCall:
    return CarrierCall(enrollment_id, "DEMO", f"port-{enrollment_id}:port:0")


async def test_submit_and_record_retried_submits_one_port(api, activities):
    enrollment_id = await porting_line(api, port_number(NEVER_COMPLETES))
    submitted = await ActivityEnvironment().run(activities.submit_and_record, submission(enrollment_id))
    assert submitted.port_id and submitted.view is None
    assert await retried().run(activities.submit_and_record, submission(enrollment_id)) == submitted
    assert (await stored_line(api, enrollment_id)).status == LineStatus.PORT_PENDING
    assert (await event_types(api, enrollment_id)).count("port.submitted") == 1


async def test_a_number_the_carrier_will_not_port_is_a_final_refusal(api, activities):
    enrollment_id = await porting_line(api, port_number("98"))
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.submit_and_record, submission(enrollment_id))
    assert (failure.value.type, failure.value.non_retryable) == ("CarrierRejected", True)
    assert (await event_types(api, enrollment_id))[-1] == "line.carrier_refused"


async def test_watch_port_is_retried_while_nothing_changes_and_records_news(api, activities):
    enrollment_id = await porting_line(api, port_number(NEVER_COMPLETES))
    submitted = await ActivityEnvironment().run(activities.submit_and_record, submission(enrollment_id))
    assert submitted.port_id is not None
    as_known = PortWatchPoll(enrollment_id, "DEMO", submitted.port_id, PortView(PortStatus.SUBMITTED))
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.watch_port, as_known)
    assert (failure.value.type, failure.value.non_retryable) == ("PortUnchanged", False)
    news = PortWatchPoll(enrollment_id, "DEMO", submitted.port_id, PortView(PortStatus.RECEIVED))
    assert (await ActivityEnvironment().run(activities.watch_port, news)).status == PortStatus.SUBMITTED


async def test_finish_port_gives_the_line_its_number_once(api, activities):
    number = port_number(NEVER_COMPLETES)
    enrollment_id = await porting_line(api, number)
    await ActivityEnvironment().run(activities.submit_and_record, submission(enrollment_id))
    finish = PortFinish(enrollment_id, "DEMO", PortView(PortStatus.COMPLETED, mdn=number, msid="M-PORTED"))
    done = await ActivityEnvironment().run(activities.finish_port, finish)
    assert done == PortOutcome(LineStatus.ACTIVE, number)
    assert await retried().run(activities.finish_port, finish) == done
    line = await stored_line(api, enrollment_id)
    assert (line.status, line.mdn, line.msid) == (LineStatus.ACTIVE, number, "M-PORTED")
    assert (await event_types(api, enrollment_id)).count("line.activated") == 1


async def test_validate_port_names_the_carrier_or_why_not(activities):
    eligible = await ActivityEnvironment().run(activities.validate_port, PortCheck("DEMO", "4045550120"))
    assert (eligible.eligible, eligible.current_carrier) == (True, "ATT")
    refused = await ActivityEnvironment().run(activities.validate_port, PortCheck("DEMO", "4045550198"))
    assert (refused.eligible, refused.reason) == (False, "Number is not portable")
