"""Issue 19's hardening of logins and stored secrets: one argon2 a login (api_user.login_hash), the console
sign-in's own throttle (console_login), proof images stored once by content (proof_blob), and keyed digests
(HMAC with the PII key) for login OTPs and customers' e-mails, the rows already there re-hashed in place.

Revision ID: 0014_security
Revises: 0013
Create Date: 2026-11-26 04:00:00.000000
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # autogenerate renders column types by this path
from alembic import op
from cryptography.exceptions import InvalidTag

from models.crypto import FieldCipher, Fields, cipher_for
from models.settings import get_settings

revision: str = "0014_security"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


@cache
def _cipher() -> FieldCipher:
    """The PII key, read only when there are rows to re-hash (an empty database needs none)."""
    return cipher_for(get_settings())


def upgrade() -> None:
    with op.batch_alter_table("api_user") as batch:
        batch.add_column(sa.Column("login_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True))
    op.create_table(
        "console_login",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("pending_logins", sa.Integer(), nullable=False),
        sa.Column("pending_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["agent_id"], ["agent.id"]),
        sa.PrimaryKeyConstraint("agent_id"),
    )
    _proofs_once()
    _login_otps_keyed()
    _emails_keyed()


def _proofs_once() -> None:
    op.create_table(
        "proof_blob",
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    bind = op.get_bind()
    blobs = sa.table(
        "proof_blob", sa.column("sha256"), sa.column("media_type"), sa.column("image"), sa.column("created_at")
    )
    seen: set[str] = set()
    rows = bind.execute(
        sa.text(
            "SELECT p.sha256, p.media_type, p.image, c.changed_at FROM proof_image p "
            "JOIN password_change c ON c.id = p.password_change_id ORDER BY p.id"
        )
    )
    for sha256, media_type, image, changed_at in rows.all():
        if sha256 not in seen:
            seen.add(sha256)
            bind.execute(
                blobs.insert().values(sha256=sha256, media_type=media_type, image=image, created_at=changed_at)
            )
    with op.batch_alter_table("proof_image") as batch:
        batch.drop_column("image")
        batch.create_index(batch.f("ix_proof_image_sha256"), ["sha256"], unique=False)
        batch.create_foreign_key("fk_proof_image_sha256_proof_blob", "proof_blob", ["sha256"], ["sha256"])


def _login_otps_keyed() -> None:
    with op.batch_alter_table("login_log") as batch:
        batch.alter_column(
            "otp",
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=6),
            type_=sqlmodel.sql.sqltypes.AutoString(length=64),
            existing_nullable=False,
        )
    bind = op.get_bind()
    entries = bind.execute(sa.text("SELECT id, otp FROM login_log WHERE length(otp) <= 6")).all()
    for entry_id, otp in entries:
        digest = _cipher().digest("login-otp", otp)
        bind.execute(sa.text("UPDATE login_log SET otp = :otp WHERE id = :id"), {"otp": digest, "id": entry_id})


def _emails_keyed() -> None:
    """A line's email_hash was the unkeyed SHA-256 of the address; it becomes the keyed digest, read from the
    line's sealed PII (which holds the address)."""
    bind = op.get_bind()
    for enrollment_id, pii, stored in bind.execute(sa.text("SELECT enrollment_id, pii, email_hash FROM line")).all():
        try:
            email = str(_cipher().open(pii, Fields).get("email", ""))
        except (ValueError, InvalidTag):  # sealed under another key (or a test's stand-in): left as it was
            continue
        normalized = email.strip().lower()
        if not normalized or stored != hashlib.sha256(normalized.encode()).hexdigest():
            continue  # already keyed, or not this address's
        keyed = _cipher().digest("email", normalized)
        bind.execute(
            sa.text("UPDATE line SET email_hash = :hash WHERE enrollment_id = :id"),
            {"hash": keyed, "id": enrollment_id},
        )


def downgrade() -> None:
    # The keyed digests cannot be turned back into plain ones: open OTPs and customer logins made before the
    # upgrade stop matching (a new /authenticate gives a new OTP).
    with op.batch_alter_table("proof_image") as batch:
        batch.drop_constraint("fk_proof_image_sha256_proof_blob", type_="foreignkey")
        batch.drop_index(batch.f("ix_proof_image_sha256"))
        batch.add_column(sa.Column("image", sa.LargeBinary(), nullable=True))
    op.execute("UPDATE proof_image SET image = (SELECT image FROM proof_blob b WHERE b.sha256 = proof_image.sha256)")
    op.drop_table("proof_blob")
    op.drop_table("console_login")
    with op.batch_alter_table("api_user") as batch:
        batch.drop_column("login_hash")
