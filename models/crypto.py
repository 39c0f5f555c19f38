"""Secrets at rest and in flight: field-level encryption of PII (SSNs, port PINs, account numbers) with AES-256-GCM
under the deployment's key, the JSON documents sealed in encrypted columns, argon2id for passwords and PINs (off
the event loop), and the payload codec that encrypts every Temporal payload the API, the worker and the CLI write."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import TypeVar, cast

import temporalio.converter
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from pydantic import TypeAdapter
from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec
from typing_extensions import TypedDict

from models.settings import Settings

KEY_FILE = "encryption.key"
PREFIX = "v1:"
NONCE_BYTES = 12
ENCODING = b"binary/encrypted"  # a Temporal payload's, sealed
KEY_ID = "encryption-key-id"
D = TypeVar("D")


def load_key(settings: Settings) -> bytes:
    """The configured key, or one generated into the data dir on first use (dev profile only)."""
    if settings.encryption_key is not None:
        return _decode(settings.encryption_key.get_secret_value())
    path = settings.data_dir / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: two processes starting together must not each write a different key (the second reads the first's).
        with suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())
    return _decode(path.read_text().strip())


def _decode(text: str) -> bytes:
    key = base64.urlsafe_b64decode(text)
    if len(key) != 32:
        raise ValueError("LINEUP_ENCRYPTION_KEY must be 32 bytes, url-safe base64 encoded")
    return key


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
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, plaintext.encode(), None)
        return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()

    def decrypt(self, stored: str) -> str:
        raw = base64.urlsafe_b64decode(stored.removeprefix(PREFIX))
        return self._aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], None).decode()

    def seal(self, document: Mapping[str, object]) -> str:
        """A JSON document (a line's PII, a port's secrets: the documents below) as one encrypted column value."""
        return self.encrypt(json.dumps(document, separators=(",", ":")))

    def open(self, sealed: str, shape: type[D]) -> D:
        """The document sealed in `sealed`, validated as `shape` (one of the documents below)."""
        adapter = _ADAPTERS.get(shape)
        if adapter is None:
            adapter = _ADAPTERS[shape] = TypeAdapter(shape)
        return cast(D, adapter.validate_json(self.decrypt(sealed)))  # the adapter of `shape`, as built above


def cipher_for(settings: Settings) -> FieldCipher:
    return FieldCipher(load_key(settings))


# argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): ~50 ms a hash here, so a 10-line
# request with customer passwords stays interactive. Parameters live in each hash: raising them later
# only needs `check_needs_rehash` on the next login.
_hasher = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
# Verifying against this when the user does not exist keeps a wrong username as slow as a wrong password.
_DUMMY = _hasher.hash("no-such-user")


def hash_secret(secret: str) -> str:
    return _hasher.hash(secret)


def verify_secret(stored: str | None, offered: str) -> bool:
    try:
        return _hasher.verify(stored or _DUMMY, offered) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify_secret_async(stored: str | None, offered: str) -> bool:
    return await asyncio.to_thread(verify_secret, stored, offered)


async def hash_secret_async(secret: str) -> str:
    return await asyncio.to_thread(hash_secret, secret)


def login_secret(password: str, pin: str) -> str:
    """What an API user's login_hash is the hash of: password and PIN, one argon2 for both. The password's
    length goes first, so no two pairs give one secret."""
    return f"{len(password)}:{password}{pin}"


# A line's PII, a port's old-account secrets, a saved card's holder: text fields by name.
Fields = dict[str, str]


class Subject(TypedDict):
    """Whom NLAD is asked about (nlad_etc_check's fields)."""

    first_name: str
    middle_name: str | None
    last_name: str
    dob: str
    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str
    ssn4: str


class MailContent(TypedDict):
    sender_name: str
    sender_email: str
    subject: str
    body: str
    recipients: list[tuple[str, str]]  # (name, address)


class CardOnFile(TypedDict):
    """What a card payment keeps for the card it saves once paid (the gateway keeps the number)."""

    exp_month: str
    exp_year: str
    holder: Fields


class EsimDocument(TypedDict):
    iccid: str
    activation_code: str


class PayloadCipher(PayloadCodec):
    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)
        # Names the key without revealing it: a payload says which key sealed it, so keys can rotate.
        self._key_id = hashlib.sha256(b"lineup-payload-key:" + key).hexdigest()[:16].encode()

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.seal(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.open(payload) for payload in payloads]

    def seal(self, payload: Payload) -> Payload:
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, payload.SerializeToString(), None)
        return Payload(metadata={"encoding": ENCODING, KEY_ID: self._key_id}, data=nonce + sealed)

    def open(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return payload  # written before payloads were encrypted, or never encrypted (search attributes)
        if payload.metadata.get(KEY_ID) != self._key_id:
            raise ValueError(f"payload sealed with key {payload.metadata.get(KEY_ID, b'?').decode()}, not ours")
        plain = self._aead.decrypt(payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:], None)
        return Payload.FromString(plain)


def data_converter(key: bytes) -> DataConverter:
    """The SDK's default converter with the payloads encrypted: the API, the worker, the CLI and the tests all
    build their clients with it, so each reads what the others wrote. A failure's message and stack trace move
    into its encoded attributes, encrypted too (a carrier's refusal may quote what the line sent); the Temporal
    UI shows them through the codec endpoint, and failures written before decode as they are."""
    return dataclasses.replace(
        temporalio.converter.default(),
        payload_codec=PayloadCipher(key),
        failure_converter_class=temporalio.converter.DefaultFailureConverterWithEncodedAttributes,
    )
