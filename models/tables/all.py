"""Imports every table so `SQLModel.metadata` is complete (Alembic and tests use it)."""

from models.tables.agents import Agent, AgentLocation, Signature
from models.tables.audit import AuditEntry
from models.tables.auth import (
    ApiToken,
    ApiUser,
    CustomerLogin,
    LoginLog,
    PasswordChange,
    ProofBlob,
    ProofImage,
    Vendor,
)
from models.tables.eligibility import EligibilityCheck
from models.tables.enrollment import Enrollment, Line, Plan
from models.tables.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.tables.mail import MailOutbox
from models.tables.notes import Note
from models.tables.payment import Payment, SavedCard, TaxCalculation, TaxRate, TaxRegistration
from models.tables.porting import PortIn, PortPush
from models.tables.support import ConsoleLogin, ConsoleSession
from models.tables.workers import WorkerHeartbeat

__all__ = [
    "Agent",
    "AgentLocation",
    "ApiToken",
    "ApiUser",
    "AuditEntry",
    "ConsoleLogin",
    "ConsoleSession",
    "CustomerLogin",
    "EligibilityCheck",
    "Enrollment",
    "Line",
    "LineEvent",
    "LoginLog",
    "MailOutbox",
    "Note",
    "PasswordChange",
    "Payment",
    "Plan",
    "PortIn",
    "PortPush",
    "ProofBlob",
    "ProofImage",
    "SavedCard",
    "Signature",
    "TaxCalculation",
    "TaxRate",
    "TaxRegistration",
    "Vendor",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WorkerHeartbeat",
]
