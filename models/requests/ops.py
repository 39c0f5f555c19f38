"""`/ops`: support staff's view of stuck enrollments, and the retry that resumes one."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from models.requests.base import ALL_SOURCES, ActionRequest
from models.types import Alnum


class ListStuckEnrollments(ActionRequest):
    """Lines waiting in STUCK for support, oldest first."""

    SOURCES = ALL_SOURCES
    ROLE = "support"

    action: Literal["list_stuck_enrollments"]
    limit: int = Field(default=100, ge=1, le=500)


class RetryEnrollment(ActionRequest):
    """Resumes a stuck line: its workflow tries the failed step again."""

    SOURCES = ALL_SOURCES
    ROLE = "support"

    action: Literal["retry_enrollment"]
    enrollment_id: Alnum


OpsAction = ListStuckEnrollments | RetryEnrollment
