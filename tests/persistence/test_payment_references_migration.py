"""Migration 0011 builds the unique index on a vendor's payment references, and stops (saying where to look)
when references were already recorded twice: which record is right is a person's decision."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from models.db import upgrade

OWNERS = (
    "INSERT INTO vendor (id, code, name, active, created_at) VALUES (1, 'DEMO', 'Demo', 1, '2026-11-20 10:00:00')",
    "INSERT INTO plan (plan_id, name, price_cents, carrier, active, plan_code, description) "
    "VALUES (102, 'Everyday 5GB', 2500, 'TMB', 1, 'P102', '')",
    "INSERT INTO enrollment (enrollment_id, vendor_id, zip_code, state, enrollment_type, issued_at) "
    "VALUES ('E1', 1, '30301', 'GA', 'NON_LIFELINE', '2026-11-20 10:00:00')",
)
PAYMENT = (
    "INSERT INTO payment (idempotency_key, vendor_id, enrollment_id, plan_id, invoice_number, transaction_id, "
    "payment_method, status, attempt, amount_cents, tax_cents, created_at) "
    "VALUES (?, 1, 'E1', 102, ?, ?, 'OTHER_PAYMENT_OPTION', 'RECORDED', 0, 2500, 100, '2026-11-20 10:00:00')"
)


def before_0011_with(tmp_path: Path, references: list[str]) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0010")
    with sqlite3.connect(tmp_path / "old.db") as db:
        for statement in OWNERS:
            db.execute(statement)
        for number, reference in enumerate(references):
            db.execute(PAYMENT, (f"key{number}", f"INV{number}", reference))
    return url


def test_references_recorded_once_keep_their_rows_under_the_index(tmp_path):
    url = before_0011_with(tmp_path, ["ch_1", "ch_2", "", ""])  # pending card payments have no reference yet
    upgrade(url)
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT COUNT(*) FROM payment").fetchone() == (4,)
        with pytest.raises(sqlite3.IntegrityError):
            db.execute(PAYMENT, ("key9", "INV9", "ch_1"))


def test_a_reference_recorded_twice_stops_the_upgrade(tmp_path):
    url = before_0011_with(tmp_path, ["ch_1", "ch_1"])
    with pytest.raises(RuntimeError, match="1 payment reference"):
        upgrade(url)
