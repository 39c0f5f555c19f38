"""Webhook deliveries over HTTP: each POST signed (`Lineup-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
"<t>.<body>">`), sent in production to globally routable unicast addresses only, and only the start of its
answer read (a huge or compressed body costs no more than none).

`ipaddress`'s own `is_private` lets through the shared range 100.64.0.0/10 (CGNAT, and cloud metadata services
such as 100.100.100.200), multicast, and IPv6 addresses that only carry an IPv4 address (`::a9fe:a9fe` is
169.254.169.254 to a stack that routes IPv4-compatible addresses). So an address must be `is_global`, and an IPv6
address that embeds an IPv4 one is judged by that IPv4 address: IPv4-mapped (`::ffff:0:0/96`), IPv4-translated
(`::ffff:0:0:0/96`: `::ffff:0:a9fe:a9fe` is 169.254.169.254 too), IPv4-compatible (`::/96`), 6to4, NAT64
(`64:ff9b::/96`) and Teredo (its server and its client). Python 3.11's `is_global` is older than IANA's registries:
it calls 192.0.0.192 and the site-local `fec0::1` global, so an IPv6 address must also be in 2000::/3, the only
global unicast space, and the ranges it misses are refused by name (NOT_GLOBAL)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import socket
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

SIGNATURE_HEADER = "Lineup-Signature"
ANSWER_BYTES = 4096  # read of any answer, at most
KEPT_CHARACTERS = 300  # of it, kept for support (the delivery's last_answer; the console shows 80)
LOOPBACK_NAMES = frozenset({"localhost"})
PRIVATE = (
    "The URL's address is not a public internet address (private, loopback, link-local, shared, reserved or multicast)"
)
UNRESOLVED = "The URL's host does not resolve"
COMPATIBLE = ipaddress.IPv6Network("::/96")  # the deprecated IPv4-compatible form (and :: and ::1)
# RFC 2765's IPv4-translated form (SIIT, ::ffff:0:a.b.c.d): the IPv4 address in the last 32 bits, as in NAT64's
TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix, the IPv4 address in the last 32 bits
LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: a network's own translator, never public
GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")  # IANA's global unicast space: no internet host is outside it
# Not globally reachable by IANA's special-purpose registries, and global to Python 3.11's `is_global`: the whole of
# 192.0.0.0/24 (IETF protocol assignments; 3.11 knew 192.0.0.0/29 and .170/31), the retired 6to4 relay anycast, and
# the IPv6 documentation prefix of RFC 9637.
NOT_GLOBAL = (
    ipaddress.IPv4Network("192.0.0.0/24"),
    ipaddress.IPv4Network("192.88.99.0/24"),
    ipaddress.IPv6Network("3fff::/20"),
)
# zlib's window bits: 32 + 15 reads a gzip or a zlib stream (told apart by their header); -15 a raw deflate one.
GZIP_OR_ZLIB, RAW_DEFLATE = 47, -15


@dataclass(frozen=True)
class Answer:
    """What the receiver said: its HTTP status (None when it did not answer) and the start of its words."""

    status: int | None
    text: str

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


@dataclass(frozen=True)
class Destination:
    """Where a delivery may go: a problem, or the address checked for it (None: the URL's own host, when no
    check applies). A POST connects to that very address, so a name that resolves elsewhere between the check
    and the connection (DNS rebinding) cannot lead it inside."""

    problem: str | None = None
    address: str | None = None


class WebhookSender:
    def __init__(
        self,
        *,
        timeout_seconds: float,
        production: bool,
        allow_private: bool,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._production, self._allow_private = production, allow_private
        self._deadline = timeout_seconds
        pinned = production and not allow_private
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_seconds),
            follow_redirects=False,
            headers={"User-Agent": "Lineup-Webhooks/1", "Accept-Encoding": "identity"},
            # A pinned POST connects to an address, not a name: a kept connection to one address could serve
            # another name on it without that name's certificate check, so none is kept.
            limits=httpx.Limits(max_keepalive_connections=0) if pinned else httpx.Limits(),
            transport=transport,
        )

    async def post(self, url: str, body: bytes, *, secret: str, timestamp: int) -> Answer:
        """One attempt; never raises for the receiver's failures, which the answer describes. The whole of it
        (resolving, connecting, sending, reading) has one deadline: httpx's timeouts bound each read, and a
        receiver sending a byte every few seconds never let one expire."""
        try:
            async with asyncio.timeout(self._deadline):
                return await self._attempt(url, body, secret=secret, timestamp=timestamp)
        except TimeoutError:
            return Answer(None, f"no answer within {self._deadline:g} s")

    async def close(self) -> None:
        await self._client.aclose()

    async def _attempt(self, url: str, body: bytes, *, secret: str, timestamp: int) -> Answer:
        target = await destination(url, production=self._production, allow_private=self._allow_private)
        if target.problem:
            return Answer(None, target.problem)
        headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(secret, body, timestamp)}
        named, extensions = httpx.URL(url), {}
        if target.address is not None:  # to the checked address, with the name for Host, SNI and the certificate
            headers["Host"] = named.netloc.decode()
            extensions = {"sni_hostname": named.host}
            named = named.copy_with(host=target.address)
        request = self._client.build_request("POST", named, content=body, headers=headers, extensions=extensions)
        try:
            response = await self._client.send(request, stream=True)
            try:
                return Answer(response.status_code, (await head_of(response, ANSWER_BYTES))[:KEPT_CHARACTERS])
            finally:
                await response.aclose()  # what was not read is not read: the connection goes with it
        except httpx.HTTPError as exc:
            return Answer(None, f"no answer: {type(exc).__name__}")


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """The header's value for this body at this time."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


async def resolved_problem(url: str, *, production: bool, allow_private: bool) -> str | None:
    """Why this URL cannot be registered; a host that does not resolve yet may be (its deliveries wait)."""
    problem = (await destination(url, production=production, allow_private=allow_private)).problem
    return None if problem == UNRESOLVED else problem


async def destination(url: str, *, production: bool, allow_private: bool) -> Destination:
    """url_problem, then in production every address the host resolves to (a public name may point inside)."""
    if problem := url_problem(url, production=production, allow_private=allow_private):
        return Destination(problem)
    host = urlsplit(url).hostname or ""
    if not production or allow_private or literal(host) is not None:
        return Destination()
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return Destination(UNRESOLVED)
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    if not addresses:
        return Destination(UNRESOLVED)
    if not all(public(address) for address in addresses):
        return Destination(PRIVATE)
    return Destination(address=str(addresses[0]))


def url_problem(url: str, *, production: bool, allow_private: bool) -> str | None:
    """Why this URL cannot be an endpoint, judged without the network (None: it may be)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host or parts.scheme not in ("https", "http"):
        return "The URL must be an https:// URL"
    found = literal(host)
    loopback = host.lower() in LOOPBACK_NAMES or (found is not None and found.is_loopback)
    if parts.scheme == "http" and (production or not loopback):
        return "The URL must use https (http only to loopback in development)"
    if production and not allow_private and (loopback or (found is not None and not public(found))):
        return PRIVATE
    return None


def public(address: Address) -> bool:
    """True when a delivery may go to this address in production."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in LOCAL_NAT64:
            return False
        if embedded := embedded_ipv4(address):
            return all(_global_unicast(inner) for inner in embedded)
        if address not in GLOBAL_UNICAST:  # site-local fec0::/10 and every other reserved range
            return False
    return _global_unicast(address)


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (none for a native IPv6 address)."""
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)  # (server, client): traffic reaches both
    if address in COMPATIBLE or address in TRANSLATED or address in NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    return []


def _global_unicast(address: Address) -> bool:
    # Python 3.11 calls multicast addresses global: they are not a receiver's address.
    if not address.is_global or address.is_multicast:
        return False
    return not any(address in network for network in NOT_GLOBAL if network.version == address.version)


def literal(host: str) -> Address | None:
    """The host as an IP address, when it is one (`[…]` brackets already removed by urlsplit)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


async def head_of(response: httpx.Response, limit: int) -> str:
    """The answer's first `limit` bytes as text (a streamed response; the caller closes it)."""
    if response.is_stream_consumed:  # a transport that read it already (httpx's MockTransport), decoded
        return _text(response, response.content[:limit])
    raw = b""
    async for chunk in response.aiter_raw():
        raw += chunk[: limit + 1 - len(raw)]
        if len(raw) > limit:
            break
    encoding = response.headers.get("content-encoding", "identity").strip().lower() or "identity"
    if encoding != "identity":
        if len(raw) > limit:
            return f"(a {encoding}-compressed answer of more than {limit} bytes, not read)"
        raw = _inflated(raw, encoding, limit)
        if not raw:
            return f"(a {encoding}-compressed answer, not read)"
    return _text(response, raw[:limit])


def _text(response: httpx.Response, raw: bytes) -> str:
    try:
        return raw.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return raw.decode("utf-8", errors="replace")


def _inflated(raw: bytes, encoding: str, limit: int) -> bytes:
    """At most `limit` bytes of a gzip or deflate body; nothing for another encoding or a broken one."""
    if encoding not in ("gzip", "x-gzip", "deflate"):
        return b""
    for window in (GZIP_OR_ZLIB, RAW_DEFLATE):  # `deflate` is zlib by the RFC, raw deflate in practice
        try:
            return zlib.decompressobj(window).decompress(raw, limit)
        except zlib.error:
            continue
    return b""
