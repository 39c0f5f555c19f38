"""Imports every table so `SQLModel.metadata` is complete (Alembic and tests use it)."""

from models.tables.agents import Agent, AgentLocation, Signature
from models.tables.audit import AuditEntry
from models.tables.auth import ApiToken, ApiUser, CustomerLogin, LoginLog, PasswordChange, ProofImage, Vendor
from models.tables.eligibility import EligibilityCheck
from models.tables.enrollment import Enrollment, Line, Plan
from models.tables.mail import MailOutbox
from models.tables.notes import Note
from models.tables.payment import Payment, SavedCard, TaxCalculation
from models.tables.porting import PortIn
from models.tables.support import ConsoleSession

__all__ = [
    "Agent", "AgentLocation", "ApiToken", "ApiUser", "AuditEntry", "ConsoleSession", "CustomerLogin",
    "EligibilityCheck", "Enrollment", "Line", "LoginLog", "MailOutbox", "Note", "PasswordChange", "Payment", "Plan",
    "PortIn", "ProofImage", "SavedCard", "Signature", "TaxCalculation", "Vendor",
]  # fmt: skip
