"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.enrollment import EnrollmentWorkflow
from workflows.line import LineWorkflow
from workflows.lookups import LineInquiryWorkflow, TaxQuoteWorkflow

WORKFLOWS: list[type] = [EnrollmentWorkflow, LineWorkflow, LineInquiryWorkflow, TaxQuoteWorkflow]
