"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.enrollment import EnrollmentWorkflow
from workflows.line import LineWorkflow
from workflows.lookup import LookupWorkflow
from workflows.mail_delivery import MailDeliveryWorkflow
from workflows.nlad_check import NladCheckWorkflow
from workflows.payment_guard import PaymentGuardWorkflow
from workflows.port_status import PortStatusWorkflow
from workflows.sweep import SweepWorkflow
from workflows.tax_collection import TaxCollectionWorkflow
from workflows.tax_quote import TaxQuoteWorkflow

WORKFLOWS: list[type] = [
    EnrollmentWorkflow, LineWorkflow, LookupWorkflow, TaxQuoteWorkflow, PortStatusWorkflow, TaxCollectionWorkflow,
    NladCheckWorkflow, MailDeliveryWorkflow, PaymentGuardWorkflow, SweepWorkflow,
]  # fmt: skip
