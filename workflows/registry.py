"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.eligibility import NladCheckWorkflow
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.order import EnrollmentWorkflow
from workflows.lookup import LookupWorkflow
from workflows.mail import MailDeliveryWorkflow
from workflows.payment import PaymentGuardWorkflow, TaxCollectionWorkflow, TaxQuoteWorkflow
from workflows.porting import PortStatusWorkflow
from workflows.support import SweepWorkflow

WORKFLOWS: list[type] = [
    EnrollmentWorkflow, LineWorkflow, LookupWorkflow, TaxQuoteWorkflow, PortStatusWorkflow, TaxCollectionWorkflow,
    NladCheckWorkflow, MailDeliveryWorkflow, PaymentGuardWorkflow, SweepWorkflow,
]  # fmt: skip
