"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.eligibility import DeviceCheckWorkflow, NladCheckWorkflow
from workflows.enrollment import EnrollmentWorkflow
from workflows.line import LineWorkflow
from workflows.lookups import LineInquiryWorkflow, TaxQuoteWorkflow
from workflows.mail import MailDeliveryWorkflow
from workflows.port_status import PortStatusWorkflow
from workflows.tax_collection import TaxCollectionWorkflow

WORKFLOWS: list[type] = [
    EnrollmentWorkflow, LineWorkflow, LineInquiryWorkflow, TaxQuoteWorkflow, PortStatusWorkflow, TaxCollectionWorkflow,
    NladCheckWorkflow, DeviceCheckWorkflow, MailDeliveryWorkflow,
]  # fmt: skip
