"""One row per answered NLAD check: what tpiv_listing lists. Never the SSN or the date of birth; of the
name only the initials, the first name and the last initial (what the listing shows)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class EligibilityCheck(SQLModel, table=True):
    __tablename__ = "eligibility_check"

    id: int | None = Field(default=None, primary_key=True)
    check_key: str = Field(max_length=120, unique=True)  # the check's workflow id: one row, retries or not
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    agent_username: str | None = Field(default=None, max_length=100)
    enrollment_id: str | None = Field(default=None, max_length=24, index=True)  # as the channel sent it
    zip_code: str = Field(max_length=5, index=True)
    outcome: str = Field(max_length=64)  # NLAD's answer, e.g. SUBSCRIBER_NOT_FOUND, TPIV_FAIL_DOB
    initials: str = Field(max_length=3)
    first_name: str = Field(max_length=50)
    last_initial: str = Field(max_length=1)
    checked_at: datetime = Field(default_factory=utcnow)
