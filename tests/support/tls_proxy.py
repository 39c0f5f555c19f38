"""A TLS endpoint in front of the dev server (whose CLI has no TLS flags): certificates made for the test, and an
asyncio proxy that terminates TLS (optionally requiring a client certificate) and relays the plaintext HTTP/2
to the dev server. Having decrypted it, the proxy also decodes the request headers the client sent, so a test
can see the gRPC metadata on the wire (the API key's `authorization`)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import hpack
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SERVER_NAME = "temporal.lineup.test"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, CONTINUATION = 0x1, 0x9
END_HEADERS, PADDED, PRIORITY = 0x4, 0x8, 0x20


@dataclass(frozen=True)
class Pki:
    """PEM files: a CA, a server certificate for SERVER_NAME and a client certificate, both signed by it."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write(path: Path, key: ec.EllipticCurvePrivateKey | None, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    if key is not None:
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.with_suffix(".key").write_bytes(pem)


def _certificate(
    name: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Name | None, signer: ec.EllipticCurvePrivateKey
) -> x509.CertificateBuilder:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer or subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), critical=False)
    )


def make_pki(directory: Path) -> Pki:
    ca_key = _key()
    ca_builder = _certificate("Lineup test CA", ca_key, None, ca_key)
    ca = (
        ca_builder.add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    _write(directory / "ca.pem", None, ca)
    leaves = {"server": (SERVER_NAME, ExtendedKeyUsageOID.SERVER_AUTH), "client": ("lineup-worker", None)}
    for role, (name, usage) in leaves.items():
        key = _key()
        builder = _certificate(name, key, ca.subject, ca_key).add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True
        )
        if role == "server":
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(SERVER_NAME)]), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage or ExtendedKeyUsageOID.CLIENT_AUTH]), False)
        _write(directory / f"{role}.pem", key, builder.sign(ca_key, hashes.SHA256()))
    return Pki(
        ca=directory / "ca.pem",
        server_cert=directory / "server.pem",
        server_key=directory / "server.key",
        client_cert=directory / "client.pem",
        client_key=directory / "client.key",
    )


@dataclass
class HeaderLog:
    """Request headers decoded from the client's side of each connection."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.seen if key == name]


class _Http2Headers:
    """Reads HTTP/2 frames from the client's bytes as they pass and decodes each header block (HPACK keeps a
    table per connection, so every block of the connection goes through one decoder, in order)."""

    def __init__(self, log: HeaderLog) -> None:
        self.log, self.buffer, self.block = log, b"", b""
        self.decoder = hpack.Decoder()
        self.preface_seen = False

    def feed(self, data: bytes) -> None:
        self.buffer += data
        if not self.preface_seen:
            if len(self.buffer) < len(PREFACE):
                return
            self.buffer, self.preface_seen = self.buffer[len(PREFACE) :], True
        while len(self.buffer) >= 9:
            length, kind, flags = int.from_bytes(self.buffer[:3]), self.buffer[3], self.buffer[4]
            if len(self.buffer) < 9 + length:
                return
            payload, self.buffer = self.buffer[9 : 9 + length], self.buffer[9 + length :]
            if kind == HEADERS:
                if flags & PADDED:
                    payload = payload[1 : len(payload) - payload[0]]
                if flags & PRIORITY:
                    payload = payload[5:]
            if kind in (HEADERS, CONTINUATION):
                self.block += payload
                if flags & END_HEADERS:
                    self.log.seen.extend((str(k), str(v)) for k, v in self.decoder.decode(self.block))
                    self.block = b""


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, headers: _Http2Headers | None) -> None:
    try:
        while data := await reader.read(65536):
            if headers is not None:
                headers.feed(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        with contextlib.suppress(Exception):  # the other side may already be gone
            writer.close()


@asynccontextmanager
async def tls_proxy(upstream: str, pki: Pki, *, client_ca: Path | None = None) -> AsyncIterator[tuple[str, HeaderLog]]:
    """Yields the proxy's `host:port` and the headers it saw. With `client_ca`, a client certificate signed by it
    is required (mutual TLS)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    context.set_alpn_protocols(["h2"])  # gRPC clients insist on it
    if client_ca is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    host, port = upstream.rsplit(":", 1)
    log = HeaderLog()
    tasks: set[asyncio.Task[None]] = set()

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        both = asyncio.gather(
            _pump(client_reader, server_writer, _Http2Headers(log)), _pump(server_reader, client_writer, None)
        )
        await both

    def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(relay(reader, writer))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=context)
    try:
        yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}", log
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await server.wait_closed()
