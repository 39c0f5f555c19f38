"""Every workflow the worker runs."""

from __future__ import annotations

from workflows.devices import DeviceCheckWorkflow
from workflows.eligibility import NladCheckWorkflow
from workflows.enrollment import (
    CarrierListWorkflow,
    EnrollmentWorkflow,
    EsimAssignmentWorkflow,
    LineInquiryWorkflow,
    LineWorkflow,
)
from workflows.mail import MailDeliveryWorkflow
from workflows.payment import (
    PaymentGuardWorkflow,
    TaxCollectionWorkflow,
    TaxEstimateWorkflow,
    TaxQuoteWorkflow,
    TaxRegistrationWorkflow,
)
from workflows.porting import PortInWorkflow, PortValidationWorkflow
from workflows.support import SweepWorkflow
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
