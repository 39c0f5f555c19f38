"""Messages of a line's eSIM profile assignment (assign_esim): ids only. The profile's activation code downloads
it to any phone, so it is sealed in the line's row by the activity and never enters a workflow's history."""

from __future__ import annotations

from dataclasses import dataclass

from models.messages.lookups import Budget


@dataclass(frozen=True)
class EsimRequest(Budget):
    """A profile for a line that has no SIM yet, asked of the carrier within the lookup budget."""

    enrollment_id: str
    vendor_code: str


@dataclass(frozen=True)
class EsimAssigned:
    """The line has its profile (sealed in its row); `reserved`: this run asked the carrier for it."""

    reserved: bool
