"""Plans a channel can sell (seeded; `plan_list` and the payment operations read them)."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class Plan(SQLModel, table=True):
    __tablename__ = "plan"

    plan_id: int = Field(primary_key=True)
    plan_code: str = Field(max_length=32, unique=True)  # the carrier's code for the plan
    name: str = Field(max_length=100)
    description: str = Field(default="", max_length=200)  # features, as channels display them
    price_cents: int
    carrier: str = Field(max_length=16)
    # Allowances per month; None is unlimited.
    talk_minutes: int | None = None
    text_messages: int | None = None
    data_mb: int | None = None
    active: bool = True
