"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.devices import DeviceCheckWorkflow
from workflows.eligibility import NladCheckWorkflow
from workflows.enrollment.esim import EsimAssignmentWorkflow
from workflows.enrollment.line import LineWorkflow
from workflows.enrollment.lookups import CarrierListWorkflow, LineInquiryWorkflow
from workflows.enrollment.order import EnrollmentWorkflow
from workflows.mail import MailDeliveryWorkflow
from workflows.payment import PaymentGuardWorkflow, TaxCollectionWorkflow, TaxEstimateWorkflow, TaxQuoteWorkflow
from workflows.porting import PortInWorkflow, PortValidationWorkflow
from workflows.support import SweepWorkflow
from workflows.tax_registration import TaxRegistrationWorkflow
from workflows.webhooks import WebhookDeliveryWorkflow, WebhookDispatchWorkflow

WORKFLOWS: list[type] = [
    EnrollmentWorkflow,
    LineWorkflow,
    LineInquiryWorkflow,
    CarrierListWorkflow,
    PortInWorkflow,
    EsimAssignmentWorkflow,
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
]
