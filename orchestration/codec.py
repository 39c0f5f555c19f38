"""Payload encryption for Temporal: every payload a Lineup client writes (workflow inputs and results, activity
arguments and results, signals, queries, updates, memos) is AES-256-GCM ciphertext under the key that protects
PII at rest (models.crypto), and so is every failure's message and stack trace, so a history, in Temporal's
database or its UI, shows no phone or SIM number, no line-inquiry answer and no carrier's error text. Operators
who hold the key read them through the codec endpoint (api/codec.py). A payload without this codec's encoding
(histories written before it, search attributes) is passed through as it is, so those histories still decode
and replay."""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Sequence

import temporalio.converter
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec

ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
NONCE_BYTES = 12


def key_id(key: bytes) -> bytes:
    """Names the key without revealing it: a payload says which key sealed it, so keys can rotate."""
    return hashlib.sha256(b"lineup-payload-key:" + key).hexdigest()[:16].encode()


class PayloadCipher(PayloadCodec):
    def __init__(self, key: bytes) -> None:
        self._aead, self._key_id = AESGCM(key), key_id(key)

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
