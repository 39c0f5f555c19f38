"""Field-level encryption for PII at rest (SSNs, port PINs, account numbers): AES-256-GCM."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar, cast

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from pydantic import TypeAdapter

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


D = TypeVar("D")
# Built once per shape: a TypeAdapter costs far more to build than to use.
_ADAPTERS: dict[object, TypeAdapter[object]] = {}


class FieldCipher:
    """Encrypts one string column value; the prefix names the scheme so keys and schemes can rotate."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)
        # The keyed digests' own key, derived: one secret to keep, and no key serving two schemes.
        self._mac = hmac.new(key, b"lineup keyed digest v1", hashlib.sha256).digest()

    def digest(self, purpose: str, text: str) -> str:
        """HMAC-SHA256 (hex) of `text` for a column looked up by equality (a customer's e-mail, a login OTP):
        equal texts give equal digests, and without the key a digest cannot be tested against guesses."""
        return hmac.new(self._mac, f"{purpose}:{text}".encode(), hashlib.sha256).hexdigest()

    def encrypt(self, plaintext: str) -> str:
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, plaintext.encode(), None)
        return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()

    def decrypt(self, stored: str) -> str:
        raw = base64.urlsafe_b64decode(stored.removeprefix(PREFIX))
        return self._aead.decrypt(raw[:12], raw[12:], None).decode()

    def seal(self, document: Mapping[str, object]) -> str:
        """A JSON document (a line's PII, a port's secrets: models.documents) as one encrypted column value."""
        return self.encrypt(json.dumps(document, separators=(",", ":")))

    def open(self, sealed: str, shape: type[D]) -> D:
        """The document sealed in `sealed`, validated as `shape` (models.documents)."""
        adapter = _ADAPTERS.get(shape)
        if adapter is None:
            adapter = _ADAPTERS[shape] = TypeAdapter(shape)
        return cast(D, adapter.validate_json(self.decrypt(sealed)))  # the adapter of `shape`, as built above


def cipher_for(settings: Settings) -> FieldCipher:
    return FieldCipher(load_key(settings))
