"""The tests' encryption key and the Temporal data converter built on it (orchestration.codec)."""

from __future__ import annotations

import base64

from temporalio.converter import DataConverter

from models.crypto import data_converter

KEY_BYTES = bytes(range(32))
TEST_ENCRYPTION_KEY = base64.urlsafe_b64encode(KEY_BYTES).decode()


def encrypting_converter() -> DataConverter:
    return data_converter(KEY_BYTES)
