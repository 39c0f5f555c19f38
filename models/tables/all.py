"""Imports every table so `SQLModel.metadata` is complete (Alembic and tests use it)."""

from models.tables.agent import Agent, AgentLocation
from models.tables.audit import AuditEntry
from models.tables.catalog import Plan
from models.tables.console import ConsoleSession
from models.tables.customer_login import CustomerLogin
from models.tables.eligibility import EligibilityCheck
from models.tables.enrollment import Enrollment, Line, PortIn
from models.tables.mail import MailOutbox
from models.tables.notes import Note
from models.tables.payment import Payment, SavedCard, TaxCalculation
from models.tables.proofs import PasswordChange, ProofImage
from models.tables.session import ApiToken, LoginLog
from models.tables.signature import Signature
from models.tables.vendor import ApiUser, Vendor

__all__ = [
    "Agent", "AgentLocation", "ApiToken", "ApiUser", "AuditEntry", "ConsoleSession", "CustomerLogin",
    "EligibilityCheck", "Enrollment", "Line", "LoginLog", "MailOutbox", "Note", "PasswordChange", "Payment", "Plan",
    "PortIn", "ProofImage", "SavedCard", "Signature", "TaxCalculation", "Vendor",
]  # fmt: skip
