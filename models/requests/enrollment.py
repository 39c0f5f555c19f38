"""`/enrollment` and `/plan`: the supporting operations that issue enrollment ids and list plans."""

from __future__ import annotations

from typing import Literal

from models.requests.base import ActionRequest
from models.types import Numeric, Zip5


class CheckServiceAvailability(ActionRequest):
    """Issues a new, unused enrollment id for a ZIP the service covers."""

    action: Literal["check_service_availability"]
    zip_code: Zip5
    enrollment_type: Literal["NON_LIFELINE"] = "NON_LIFELINE"
    is_enrollment: Literal["Y"] | None = None


class PlanList(ActionRequest):
    """The plans a channel can sell, optionally one plan or the plans sold in a ZIP's state."""

    action: Literal["plan_list"]
    zip_code: Zip5 | None = None
    plan_id: Numeric | None = None


class CompanyCarrierList(ActionRequest):
    """The carriers the company sells on, with the carrier's numeric ids (query_portin takes either)."""

    action: Literal["company_carrier_list"]


EnrollmentAction = CheckServiceAvailability | CompanyCarrierList
PlanAction = PlanList
