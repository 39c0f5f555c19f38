"""Imports every table so `SQLModel.metadata` is complete (Alembic and tests use it)."""

from models.tables.agent import Agent, AgentLocation
from models.tables.audit import AuditEntry
from models.tables.catalog import Plan
from models.tables.enrollment import Enrollment, Line, PortIn
from models.tables.payment import Payment, SavedCard, TaxCalculation
from models.tables.session import ApiToken, LoginLog
from models.tables.vendor import ApiUser, Vendor

__all__ = [
    "Agent", "AgentLocation", "ApiToken", "ApiUser", "AuditEntry", "Enrollment", "Line", "LoginLog", "Payment",
    "Plan", "PortIn", "SavedCard", "TaxCalculation", "Vendor",
]  # fmt: skip
