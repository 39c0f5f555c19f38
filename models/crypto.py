"""Field-level encryption for PII at rest (SSNs, port PINs, account numbers): AES-256-GCM."""

from __future__ import annotations

import base64
import json
import os
import secrets
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from models.settings import Settings

KEY_FILE = "encryption.key"
PREFIX = "v1:"


def load_key(settings: Settings) -> bytes:
    """The configured key, or one generated into the data dir on first use (dev profile only)."""
    if settings.encryption_key is not None:
        return _decode(settings.encryption_key.get_secret_value())
    path = settings.data_dir / KEY_FILE
    if not path.exists():
        _write_new_key(path)
    return _decode(path.read_text().strip())


def _write_new_key(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: two processes starting together must not each write a different key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w") as handle:
        handle.write(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())


def _decode(text: str) -> bytes:
    key = base64.urlsafe_b64decode(text)
    if len(key) != 32:
        raise ValueError("LINEUP_ENCRYPTION_KEY must be 32 bytes, url-safe base64 encoded")
    return key


class FieldCipher:
    """Encrypts one string column value; the prefix names the scheme so keys and schemes can rotate."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def encrypt(self, plaintext: str) -> str:
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, plaintext.encode(), None)
        return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()

    def decrypt(self, stored: str) -> str:
        raw = base64.urlsafe_b64decode(stored.removeprefix(PREFIX))
        return self._aead.decrypt(raw[:12], raw[12:], None).decode()

    def seal(self, document: dict[str, Any]) -> str:
        """A JSON document (a line's PII, a port's secrets) as one encrypted column value."""
        return self.encrypt(json.dumps(document, separators=(",", ":")))

    def open(self, sealed: str) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.decrypt(sealed))
        return document


def cipher_for(settings: Settings) -> FieldCipher:
    return FieldCipher(load_key(settings))
