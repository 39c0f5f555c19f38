"""Lineup's client for carrier sales channels (docs/clients.md)."""

from lineup_client._calls import Retry
from lineup_client._json import Json
from lineup_client.actions import VERSION as __version__
from lineup_client.client import AsyncLineup, Lineup
from lineup_client.errors import (
    AuthenticationError,
    ClientError,
    ConnectionFailed,
    LineupError,
    TimedOut,
    Unavailable,
    UnexpectedAnswer,
)
from lineup_client.webhooks import SIGNATURE_HEADER, verify_webhook

__all__ = [
    "SIGNATURE_HEADER",
    "AsyncLineup",
    "AuthenticationError",
    "ClientError",
    "ConnectionFailed",
    "Json",
    "Lineup",
    "LineupError",
    "Retry",
    "TimedOut",
    "Unavailable",
    "UnexpectedAnswer",
    "__version__",
    "verify_webhook",
]
