"""Imports every table so `SQLModel.metadata` is complete (Alembic and tests use it)."""

from models.tables.agent import Agent, AgentLocation
from models.tables.audit import AuditEntry
from models.tables.session import ApiToken, LoginLog
from models.tables.vendor import ApiUser, Vendor

__all__ = ["Agent", "AgentLocation", "ApiToken", "ApiUser", "AuditEntry", "LoginLog", "Vendor"]
