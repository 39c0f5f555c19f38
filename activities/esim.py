"""A line's eSIM profile assigned before its activation (assign_esim): the carrier reserves a profile for a
line that has no SIM yet, and the profile is sealed in the line, which its activation then uses."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from models.crypto import FieldCipher
from models.documents import EsimDocument
from models.events import EventType
from models.failures import CARRIER_REJECTED
from models.messages.esim import EsimAssigned, EsimRequest
from persistence import events
from persistence.engine import Database
from persistence.enrollment import get_line

PHYSICAL_SIM = "Line has a physical SIM"


class EsimActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

    @activity.defn
    async def assign_esim_profile(self, request: EsimRequest) -> EsimAssigned:
        """The carrier's reservation under a key of the line's (a retry, or a second request, gets the same
        profile), sealed in the line with its ESIM_ASSIGNED event; nothing for a line that has a profile."""
        async with self._db.transaction() as session:
            line = await get_line(session, request.enrollment_id)
        if line.esim_profile is not None:
            return EsimAssigned(reserved=False)
        if line.physical_sim:  # a SIM attached since the API looked: nothing to assign
            raise ApplicationError(PHYSICAL_SIM, type=CARRIER_REJECTED, non_retryable=True)
        async with outside_call():
            profile = await self._carrier.reserve_esim(
                vendor_id=request.vendor_code, enrollment_id=request.enrollment_id, key=f"esim-{request.enrollment_id}"
            )
        async with self._db.transaction() as session:
            line = await get_line(session, request.enrollment_id)
            if line.esim_profile is None:
                document = EsimDocument(iccid=profile.iccid, activation_code=profile.activation_code)
                line.esim_profile = self._cipher.seal(document)
                # The line's activation then asks for this profile (its ICCID, as an eSIM).
                line.is_esim, line.iccid = True, profile.iccid
                session.add(line)
                await events.record(session, request.enrollment_id, EventType.ESIM_ASSIGNED)
        return EsimAssigned(reserved=True)
