"""Webhook deliveries over HTTP: the signature (`Lineup-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
"t.body">`, the scheme payment processors use), the address policy (https only; http to loopback in dev; in
production only globally routable addresses (adapters.addresses) unless allowed, and the POST sent to the
address that was checked) and the POST itself: a bounded wait, and redirects not followed (a 3xx is an answer
that is not a success)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from adapters.addresses import literal, public
from adapters.bounded_answer import IDENTITY, head_of

SIGNATURE_HEADER = "Lineup-Signature"
ANSWER_BYTES = 4096  # read of any answer, at most
KEPT_CHARACTERS = 300  # of it, kept for support (the delivery's last_answer; the console shows 80)
LOOPBACK_NAMES = frozenset({"localhost"})


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """The header's value for this body at this time."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


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


PRIVATE = (
    "The URL's address is not a public internet address (private, loopback, link-local, shared, reserved or multicast)"
)
UNRESOLVED = "The URL's host does not resolve"


@dataclass(frozen=True)
class Destination:
    """Where a delivery may go: a problem, or the address checked for it (None: the URL's own host, when no
    check applies). A POST connects to that very address, so a name that resolves elsewhere between the check
    and the connection (DNS rebinding) cannot lead it inside."""

    problem: str | None = None
    address: str | None = None


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


async def resolved_problem(url: str, *, production: bool, allow_private: bool) -> str | None:
    """Why this URL cannot be registered; a host that does not resolve yet may be (its deliveries wait)."""
    problem = (await destination(url, production=production, allow_private=allow_private)).problem
    return None if problem == UNRESOLVED else problem


@dataclass(frozen=True)
class Answer:
    """What the receiver said: its HTTP status (None when it did not answer) and the start of its words."""

    status: int | None
    text: str

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


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
            headers={"User-Agent": "Lineup-Webhooks/1", **IDENTITY},
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

    async def close(self) -> None:
        await self._client.aclose()
