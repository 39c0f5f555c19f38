"""Plans a channel can sell (seeded; `plan_list` reads them)."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class Plan(SQLModel, table=True):
    __tablename__ = "plan"

    plan_id: int = Field(primary_key=True)
    name: str = Field(max_length=100)
    price_cents: int
    carrier: str = Field(max_length=16)
    talk: str = Field(max_length=32)
    text: str = Field(max_length=32)
    data: str = Field(max_length=32)
    active: bool = True
