"""Failed and pending customer logins (saved_card_list), per line: throttled as API-user logins are."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class CustomerLogin(SQLModel, table=True):
    __tablename__ = "customer_login"

    enrollment_id: str = Field(primary_key=True, foreign_key="line.enrollment_id", max_length=24)
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None
