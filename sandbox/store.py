"""The sandbox's state in one SQLite file: lines, ports, tax calculations, mail, idempotency records.

All SQL lives here. One connection is shared by the HTTP app and the SMTP sink thread, so every access
holds one re-entrant lock; writes made inside `transaction()` commit together or not at all.
"""

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

Row = dict[str, Any]

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    endpoint TEXT NOT NULL, key TEXT NOT NULL, response TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (endpoint, key)
);
CREATE TABLE IF NOT EXISTS lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT, vendor_id TEXT NOT NULL, enrollment_id TEXT, mdn TEXT NOT NULL,
    msid TEXT NOT NULL, msl TEXT NOT NULL, iccid TEXT, esn TEXT, plan_id TEXT, status TEXT NOT NULL,
    talk_balance INTEGER NOT NULL, sms_balance INTEGER NOT NULL, data_balance INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS lines_mdn ON lines (mdn);
CREATE INDEX IF NOT EXISTS lines_iccid ON lines (iccid);
CREATE TABLE IF NOT EXISTS ports (
    port_id TEXT PRIMARY KEY, vendor_id TEXT NOT NULL, enrollment_id TEXT, port_number TEXT NOT NULL,
    iccid TEXT, current_carrier TEXT, first_name TEXT, last_name TEXT, address_one TEXT, address_two TEXT,
    city TEXT, state TEXT, zip TEXT,
    account_issue INTEGER NOT NULL, pin_issue INTEGER NOT NULL, stuck INTEGER NOT NULL,
    stage TEXT NOT NULL, submitted_at REAL NOT NULL, completed_at REAL, line_id INTEGER
);
-- Every status read first completes the ports that are due: without it, a scan of every port per read.
CREATE INDEX IF NOT EXISTS ports_due ON ports (stage, stuck, submitted_at);
CREATE TABLE IF NOT EXISTS tax_calcs (
    calc_id TEXT PRIMARY KEY, vendor_id TEXT NOT NULL, state TEXT NOT NULL, amount_cents INTEGER NOT NULL,
    tax_cents INTEGER NOT NULL, rate_bps INTEGER NOT NULL, status TEXT NOT NULL, iccid TEXT,
    ref_temporary TEXT, ref_final TEXT, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS mail (
    id INTEGER PRIMARY KEY AUTOINCREMENT, mail_from TEXT, recipients TEXT NOT NULL, to_header TEXT,
    subject TEXT, message_id TEXT, idempotency_key TEXT, body TEXT, received_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, received_at TEXT NOT NULL, headers TEXT NOT NULL, body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Store:
    """Thread-safe access to the sandbox database."""

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: `transaction()` issues BEGIN/COMMIT itself so nesting is under our control.
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(SCHEMA)
            self._columns = {table: self._table_columns(table) for table in _tables()}
            # An SMTP outage is a test's momentary choice; it must not survive a restart.
            self._conn.execute("DELETE FROM settings WHERE name = 'smtp_available'")

    def close(self) -> None:
        """Close the connection; the store is unusable afterwards."""
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold the lock and make all writes inside commit together (nested uses join the outer one)."""
        with self._lock:
            if self._depth == 0:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if self._depth == 0:
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if self._depth == 0:
                self._conn.execute("COMMIT")

    # -- idempotency ---------------------------------------------------------------------------------

    def idempotent(self, *, endpoint: str, key: str, compute: Callable[[], Row]) -> Row:
        """The stored answer for (endpoint, key), or compute, store and return a first one."""
        with self.transaction():
            found = self._one("SELECT response FROM idempotency WHERE endpoint = ? AND key = ?", endpoint, key)
            if found is not None:
                stored: Row = json.loads(found["response"])
                return stored
            answer = compute()
            self._insert(
                "idempotency",
                {
                    "endpoint": endpoint,
                    "key": key,
                    "response": json.dumps(answer),
                    "created_at": time.time(),
                },
            )
            return answer

    def stored_answer(self, *, endpoint: str, key: str) -> Row | None:
        """The answer stored for (endpoint, key), or None when that key was never used."""
        found = self._one("SELECT response FROM idempotency WHERE endpoint = ? AND key = ?", endpoint, key)
        if found is None:
            return None
        stored: Row = json.loads(found["response"])
        return stored

    def replace_answer(self, *, endpoint: str, key: str, answer: Row) -> None:
        """What (endpoint, key) answers from now on (a voided charge answers as voided)."""
        self._conn.execute(
            "UPDATE idempotency SET response = ? WHERE endpoint = ? AND key = ?", (json.dumps(answer), endpoint, key)
        )

    # -- lines ---------------------------------------------------------------------------------------

    def add_line(self, line: Row) -> int:
        """Insert a line and return its id."""
        return self._insert("lines", line)

    def get_line(self, line_id: int) -> Row | None:
        """The line with this id."""
        return self._one("SELECT * FROM lines WHERE id = ?", line_id)

    def mdn_taken(self, mdn: str) -> bool:
        """True if any line, active or not, ever held this MDN."""
        return self._one("SELECT 1 FROM lines WHERE mdn = ?", mdn) is not None

    def active_line_with_iccid(self, iccid: str) -> Row | None:
        """The ACTIVE line using this SIM, if any."""
        return self._one("SELECT * FROM lines WHERE iccid = ? AND status = 'ACTIVE'", iccid)

    def active_line(self, *, vendor_id: str, mdn: str) -> Row | None:
        """The newest ACTIVE line of this vendor with this MDN."""
        return self._one(
            "SELECT * FROM lines WHERE vendor_id = ? AND mdn = ? AND status = 'ACTIVE' ORDER BY id DESC",
            vendor_id,
            mdn,
        )

    def active_line_with_mdn(self, mdn: str) -> Row | None:
        """The ACTIVE line of any vendor with this MDN."""
        return self._one("SELECT * FROM lines WHERE mdn = ? AND status = 'ACTIVE'", mdn)

    def release_vendor_mdn(self, *, vendor_id: str, mdn: str) -> int:
        """The vendor gives a number back (its line took a ported one): its ACTIVE line on it goes INACTIVE."""
        with self.transaction():
            cursor = self._conn.execute(
                "UPDATE lines SET status = 'INACTIVE' WHERE vendor_id = ? AND mdn = ? AND status = 'ACTIVE'",
                (vendor_id, mdn),
            )
            return cursor.rowcount

    def lines_of_enrollment(self, enrollment_id: str) -> list[Row]:
        return self._all("SELECT mdn, iccid, status FROM lines WHERE enrollment_id = ? ORDER BY id", enrollment_id)

    def release_iccid(self, iccid: str) -> int:
        """Mark ACTIVE lines on this SIM INACTIVE; returns how many changed."""
        with self.transaction():
            cursor = self._conn.execute(
                "UPDATE lines SET status = 'INACTIVE' WHERE iccid = ? AND status = 'ACTIVE'", (iccid,)
            )
            return cursor.rowcount

    def release_mdn(self, mdn: str) -> int:
        """Mark ACTIVE lines with this MDN INACTIVE (the number moved); returns how many changed."""
        with self.transaction():
            cursor = self._conn.execute(
                "UPDATE lines SET status = 'INACTIVE' WHERE mdn = ? AND status = 'ACTIVE'", (mdn,)
            )
            return cursor.rowcount

    # -- ports ---------------------------------------------------------------------------------------

    def add_port(self, port: Row) -> None:
        """Insert a port request."""
        self._insert("ports", port)

    def get_port(self, port_id: str) -> Row | None:
        """The port request with this id."""
        return self._one("SELECT * FROM ports WHERE port_id = ?", port_id)

    def update_port(self, port_id: str, fields: Row) -> None:
        """Set `fields` on one port request."""
        self._update("ports", "port_id", port_id, fields)

    def due_port_ids(self, *, submitted_before: float) -> list[str]:
        """Ports still moving along the default path that were (re)submitted before the cutoff."""
        rows = self._all(
            "SELECT port_id FROM ports WHERE stage = 'SUBMITTED' AND stuck = 0 AND submitted_at <= ?",
            submitted_before,
        )
        return [row["port_id"] for row in rows]

    # -- tax -----------------------------------------------------------------------------------------

    def add_tax_calc(self, calc: Row) -> None:
        """Insert a tax calculation."""
        self._insert("tax_calcs", calc)

    def get_tax_calc(self, calc_id: str) -> Row | None:
        """The tax calculation with this id."""
        return self._one("SELECT * FROM tax_calcs WHERE calc_id = ?", calc_id)

    def update_tax_calc(self, calc_id: str, fields: Row) -> None:
        """Set `fields` on one tax calculation."""
        self._update("tax_calcs", "calc_id", calc_id, fields)

    # -- mail ----------------------------------------------------------------------------------------

    def add_mail(self, message: Row) -> int:
        """Store one received message (recipients as a list)."""
        return self._insert("mail", {**message, "recipients": json.dumps(message["recipients"])})

    def list_mail(self) -> list[Row]:
        """Every stored message, oldest first."""
        rows = self._all("SELECT * FROM mail ORDER BY id")
        return [{**row, "recipients": json.loads(row["recipients"])} for row in rows]

    def clear_mail(self) -> None:
        """Forget every stored message."""
        with self.transaction():
            self._conn.execute("DELETE FROM mail")

    # -- webhooks ------------------------------------------------------------------------------------

    def add_webhook(self, *, received_at: str, headers: dict[str, str], body: str) -> int:
        """Store one delivery as it arrived."""
        return self._insert("webhooks", {"received_at": received_at, "headers": json.dumps(headers), "body": body})

    def list_webhooks(self) -> list[Row]:
        """Every stored delivery, oldest first."""
        rows = self._all("SELECT received_at, headers, body FROM webhooks ORDER BY id")
        return [{**row, "headers": json.loads(row["headers"])} for row in rows]

    def clear_webhooks(self) -> None:
        """Forget every stored delivery."""
        with self.transaction():
            self._conn.execute("DELETE FROM webhooks")

    # -- ledger --------------------------------------------------------------------------------------

    def answers_of(self, endpoint: str) -> list[Row]:
        """Every stored (key, answer) of one endpoint, oldest first: what the stand-in did, once per key."""
        rows = self._all(
            "SELECT key, response, created_at FROM idempotency WHERE endpoint = ? ORDER BY rowid", endpoint
        )
        return [
            {"key": row["key"], "answer": json.loads(row["response"]), "created_at": row["created_at"]} for row in rows
        ]

    def all_lines(self) -> list[Row]:
        """Every line the carrier ever opened (activations and completed ports), oldest first."""
        return self._all(
            "SELECT l.id, l.vendor_id, l.enrollment_id, l.mdn, l.iccid, l.status, l.created_at, p.port_id"
            " FROM lines l LEFT JOIN ports p ON p.line_id = l.id ORDER BY l.id"
        )

    def all_ports(self) -> list[Row]:
        """Every port request, oldest first, without the old account's details."""
        return self._all(
            "SELECT port_id, vendor_id, enrollment_id, port_number, stage, submitted_at, completed_at, line_id"
            " FROM ports ORDER BY rowid"
        )

    # -- settings ------------------------------------------------------------------------------------

    def get_setting(self, name: str, default: str) -> str:
        """A run-time switch shared by the HTTP app and the SMTP thread."""
        row = self._one("SELECT value FROM settings WHERE name = ?", name)
        return default if row is None else str(row["value"])

    def set_setting(self, name: str, value: str) -> None:
        """Set a run-time switch."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO settings (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # -- helpers -------------------------------------------------------------------------------------

    def _one(self, sql: str, *params: Any) -> Row | None:
        with self._lock:
            row = self._conn.execute(sql, params).fetchone()
        return None if row is None else dict(row)

    def _all(self, sql: str, *params: Any) -> list[Row]:
        with self._lock:
            return [dict(row) for row in self._conn.execute(sql, params).fetchall()]

    def _insert(self, table: str, row: Row) -> int:
        columns = self._checked_columns(table, row)
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        with self.transaction():
            cursor = self._conn.execute(sql, [row[column] for column in columns])
            return cursor.lastrowid or 0

    def _update(self, table: str, key_column: str, key: Any, fields: Row) -> None:
        columns = self._checked_columns(table, fields)
        assignments = ", ".join(f"{column} = ?" for column in columns)
        with self.transaction():
            self._conn.execute(
                f"UPDATE {table} SET {assignments} WHERE {key_column} = ?",
                [*(fields[column] for column in columns), key],
            )

    def _checked_columns(self, table: str, row: Row) -> list[str]:
        # Column names are interpolated into SQL, so only the table's real columns are let through.
        unknown = set(row) - self._columns[table]
        if unknown:
            raise ValueError(f"unknown columns for {table}: {sorted(unknown)}")
        return list(row)

    def _table_columns(self, table: str) -> set[str]:
        return {row["name"] for row in self._conn.execute(f"PRAGMA table_info({table})")}


def _tables() -> list[str]:
    return ["idempotency", "lines", "ports", "tax_calcs", "mail", "webhooks", "settings"]
