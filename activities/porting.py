"""Port-in activities: poll the carrier, resubmit corrected data, persist the port's state."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from activities.adapters.carrier import CarrierClient
from activities.errors import outside_call
from activities.lines import LineRepository, port_row
from models.db import transaction, utcnow
from models.long_running import PortPoll, PortResubmit, PortView

CORRECTABLE = ("account_number", "account_password", "first_name", "last_name", "address_one", "city", "state", "zip")


def view_of(answer: dict[str, object]) -> PortView:
    def text(key: str) -> str | None:
        value = answer.get(key)
        return None if value is None else str(value)

    return PortView(
        status=str(answer["PORTIN_STATUS"]), resolution_code=text("RESOLUTION_CODE"),
        resolution_description=text("RESOLUTION_DESCRIPTION"), carrier_response=text("DESCRIPTION"),
        request_datetime=text("REQUEST_DATETIME"), response_datetime=text("RESPONSE_DATETIME"),
        mdn=text("MDN"), msid=text("MSID"), msl=text("MSL"),
    )  # fmt: skip


class PortActivities:
    def __init__(self, carrier: CarrierClient, lines: LineRepository, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._carrier, self._lines, self._sessions = carrier, lines, sessions

    @activity.defn
    async def port_status(self, poll: PortPoll) -> PortView:
        async with outside_call():
            return view_of(await self._carrier.port_status(poll.vendor_code, poll.port_id))

    @activity.defn
    async def resubmit_port(self, resubmit: PortResubmit) -> PortView:
        """Sends the corrected old-account data (read from the database) to the carrier."""
        port = await self._lines.port(resubmit.enrollment_id)
        secrets = self._lines.open(port.secrets)
        corrections = {key: secrets[key] for key in CORRECTABLE if key in secrets}
        body = {"vendor_id": resubmit.vendor_code, "port_id": resubmit.port_id, **corrections}
        async with outside_call():
            return view_of(await self._carrier.update_port(body, key=resubmit.idempotency_key))

    @activity.defn
    async def record_port_status(self, enrollment_id: str, view: PortView) -> None:
        async with transaction(self._sessions) as session:
            port = await port_row(session, enrollment_id)
            port.status = view.status
            port.resolution_code, port.resolution_description = view.resolution_code, view.resolution_description
            port.carrier_response = (view.carrier_response or "")[:200] or None
            port.responded_at = utcnow()
            session.add(port)
