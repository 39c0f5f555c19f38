"""The one clock every layer reads: aware UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Aware UTC; SQLModel's datetime columns store it the same way on SQLite and PostgreSQL."""
    return datetime.now(UTC)
