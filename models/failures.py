"""The `type` names of Temporal ApplicationErrors: activities raise them, workflow retry policies and the
services that read a workflow's failure match on them. Shared here so neither side imports the other."""

from __future__ import annotations

CARRIER_REJECTED = "CarrierRejected"  # a business "no" from the carrier: final, never retried
NOT_FOUND = "NotFound"  # a row a workflow works from is missing: retrying cannot make it appear
MAIL_REJECTED = "MailRejected"  # the relay refused this message for good (5xx)
UNAVAILABLE = "Unavailable"  # an outside system did not answer usefully: retried
INVALID_TRANSITION = "InvalidTransition"  # a state change the workflow refuses (e.g. temporary after final)
ENDPOINT_DISABLED = "EndpointDisabled"  # a webhook endpoint switched off: its deliveries end
PORT_UNCHANGED = "PortUnchanged"  # a poll found the port as it was: the activity is retried at the poll interval
# Lineup's own database did not answer: the workflow waits for it; it never counts as the carrier's failure.
DATABASE_UNAVAILABLE = "DatabaseUnavailable"
