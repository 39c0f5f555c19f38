"""What persistence raises (a row a caller works from is missing), and how to tell a database that cannot
be reached from a statement that went wrong."""

from __future__ import annotations

import sqlite3
import traceback

import asyncpg
from sqlalchemy import exc as sql

# A database's own word for "not now": refused, shutting down, starting up, out of connections.
_POSTGRES_DOWN = (
    asyncpg.PostgresConnectionError
    | asyncpg.CannotConnectNowError
    | asyncpg.AdminShutdownError
    | asyncpg.CrashShutdownError
    | asyncpg.TooManyConnectionsError
)
# SQLite says "OperationalError" for syntax errors too: only these mean the file cannot be used now.
_SQLITE_DOWN = ("unable to open", "database is locked", "disk i/o error")
_DRIVERS = ("asyncpg", "sqlalchemy", "sqlite3")


class RecordNotFound(LookupError):
    """A row that must exist (a line, its port order, an outbox message) does not."""


def database_unavailable(error: BaseException) -> bool:
    """True when `error` says the database cannot be reached (refused, timed out, gone, shutting down, a file
    that cannot be opened), not that a statement was wrong: an outage to wait out, not a bug."""
    if isinstance(error, sql.TimeoutError):  # no pooled connection came free in time
        return True
    if isinstance(error, sql.DBAPIError):
        if error.connection_invalidated:  # the driver says the connection dropped
            return True
        cause = error.orig.__cause__ if error.orig is not None else None
        if isinstance(error.orig, sqlite3.OperationalError):
            return any(words in str(error.orig).lower() for words in _SQLITE_DOWN)
        return isinstance(cause, _POSTGRES_DOWN | OSError)
    # Connecting is not wrapped: the driver's own refusal, or the socket's (refused, unreachable, timed out).
    return isinstance(error, _POSTGRES_DOWN) or (isinstance(error, OSError) and _in_driver(error))


def _in_driver(error: BaseException) -> bool:
    """Raised while the database driver was connecting or talking, not by some other client of the process."""
    modules = (frame.f_globals.get("__name__", "") for frame, _ in traceback.walk_tb(error.__traceback__))
    return any(module.split(".")[0] in _DRIVERS for module in modules)
