"""`data` of the catalogue operations: check_service_availability, company_carrier_list, plan_list."""

from __future__ import annotations

from models.answers.base import Shape


class Availability(Shape):
    enrollment_id: str
    zip_code: str
    city: str
    state: str
    carriers: list[str]


class CarrierItem(Shape):
    carrier_id: str
    carrier: str
    carrier_name: str


class PlanItem(Shape):
    plan_id: str
    plan_code: str
    plan_name: str
    plan_price: str
    total_plan_price: str
    carrier: str
    talk: int
    text: int
    data: int
    minute_unlimited: str
    text_unlimited: str
    data_unlimited: str
    display_features_description: str
