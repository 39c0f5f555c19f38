"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.devices import DeviceCheckWorkflow
from workflows.eligibility import NladCheckWorkflow
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.lookups import CarrierListWorkflow, LineInquiryWorkflow
from workflows.enrollment.order import EnrollmentWorkflow
from workflows.lookup import LookupWorkflow
from workflows.mail import MailDeliveryWorkflow
from workflows.payment import PaymentGuardWorkflow, TaxCollectionWorkflow, TaxEstimateWorkflow, TaxQuoteWorkflow
from workflows.porting import PortStatusWorkflow, PortValidationWorkflow
from workflows.support import SweepWorkflow
from workflows.tax_registration import TaxRegistrationWorkflow
from workflows.webhooks import WebhookDeliveryWorkflow, WebhookDispatchWorkflow

WORKFLOWS: list[type] = [
    EnrollmentWorkflow,
    LineWorkflow,
    LineInquiryWorkflow,
    CarrierListWorkflow,
    PortStatusWorkflow,
    PortValidationWorkflow,
    TaxQuoteWorkflow,
    TaxEstimateWorkflow,
    TaxCollectionWorkflow,
    TaxRegistrationWorkflow,
    PaymentGuardWorkflow,
    NladCheckWorkflow,
    DeviceCheckWorkflow,
    MailDeliveryWorkflow,
    SweepWorkflow,
    WebhookDispatchWorkflow,
    WebhookDeliveryWorkflow,
    # Until no LookupWorkflow started by a release before the typed lookups can still run (each lives at most
    # its lookup budget, ~10 s): docs/reliability.md, "Changing a workflow safely".
    LookupWorkflow,
]
