"""Where a webhook delivery connects in production (issue 21): to the very address its name resolved to when it
was checked, so a name that resolves elsewhere between the check and the connection (DNS rebinding) cannot lead
it inside; the name still goes in Host, in the TLS SNI and to the certificate check. No check applies in
development, and a name resolving to any private address is refused before anything is sent."""

from __future__ import annotations

import socket

import httpx
import pytest

from adapters.webhooks import PRIVATE, UNRESOLVED, WebhookSender, resolved_problem

PUBLIC, INSIDE = "93.184.216.34", "10.0.0.7"


class Receiver:
    """Records what the sender put on the wire (an httpx transport)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(204)


def resolving(monkeypatch: pytest.MonkeyPatch, *answers: list[str]) -> list[str]:
    """getaddrinfo answers each call with the next list of addresses; the names asked are returned."""
    asked: list[str] = []
    replies = iter(answers)

    async def getaddrinfo(self, host, port, **_):
        asked.append(host)
        addresses = next(replies)
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0)) for address in addresses]

    monkeypatch.setattr("asyncio.base_events.BaseEventLoop.getaddrinfo", getaddrinfo)
    return asked


async def send(receiver: Receiver, url: str, *, production: bool = True) -> str | None:
    sender = WebhookSender(
        timeout_seconds=2, production=production, allow_private=False, transport=httpx.MockTransport(receiver.handle)
    )
    try:
        answer = await sender.post(url, b'{"id":"evt_1"}', secret="s", timestamp=1)
    finally:
        await sender.close()
    return None if answer.delivered else answer.text


async def test_a_production_delivery_connects_to_the_address_that_was_checked(monkeypatch):
    asked = resolving(monkeypatch, [PUBLIC], [INSIDE])  # a rebinding name: public when checked, inside after
    receiver = Receiver()
    assert await send(receiver, "https://hooks.example.com:8443/in?x=1") is None
    [request] = receiver.requests
    assert str(request.url) == f"https://{PUBLIC}:8443/in?x=1"
    assert request.headers["host"] == "hooks.example.com:8443"
    assert request.extensions["sni_hostname"] == "hooks.example.com"
    assert asked == ["hooks.example.com"]  # resolved once: the inside answer was never asked for


@pytest.mark.parametrize("inside", ["10.0.0.7", "127.0.0.1", "169.254.169.254", "::ffff:10.0.0.7", "fe80::1"])
async def test_a_name_resolving_to_any_inside_address_is_not_sent_to(monkeypatch, inside):
    resolving(monkeypatch, [PUBLIC, inside])
    receiver = Receiver()
    assert await send(receiver, "https://hooks.example.com/in") == PRIVATE
    assert receiver.requests == []


async def test_a_name_that_does_not_resolve_waits_and_may_still_be_registered(monkeypatch):
    resolving(monkeypatch, [], [])
    receiver = Receiver()
    assert await send(receiver, "https://hooks.example.com/in") == UNRESOLVED
    assert receiver.requests == []
    assert await resolved_problem("https://hooks.example.com/in", production=True, allow_private=False) is None


async def test_in_development_the_url_is_used_as_given(monkeypatch):
    asked = resolving(monkeypatch)
    receiver = Receiver()
    assert await send(receiver, "http://localhost:9000/in", production=False) is None
    assert str(receiver.requests[0].url) == "http://localhost:9000/in" and asked == []


# Issue 27, finding 3: cloud metadata (100.100.100.200), the shared CGNAT range, multicast, and IPv6 forms of an
# inside IPv4 address (IPv4-compatible, mapped, 6to4, NAT64, Teredo) passed the production check.
RESERVED = [
    "100.100.100.200",  # a cloud's metadata service, in the shared range
    "100.64.0.1",  # CGNAT
    "224.0.0.1",  # multicast, which Python 3.11 calls global
    "::a9fe:a9fe",  # IPv4-compatible 169.254.169.254
    "::ffff:100.64.0.1",  # IPv4-mapped CGNAT
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "2001:0:4136:e378:8000:63bf:f5ff:fffe",  # Teredo whose client is 10.0.0.1
    "ff0e::1",  # IPv6 multicast
    "64:ff9b:1::1",  # a network's own NAT64
    # Issue 35, finding 6: still passed. Python 3.11's `is_global` calls the first and the last global, and the
    # second is 169.254.169.254 in the IPv4-translated form (::ffff:0:0:0/96), which nothing unwrapped.
    "192.0.0.192",
    "::ffff:0:a9fe:a9fe",
    "fec0::1",
    "192.0.0.9",  # the rest of 192.0.0.0/24, IETF protocol assignments
    "192.88.99.1",  # the retired 6to4 relay anycast
    "3fff::1",  # IPv6 documentation (RFC 9637)
    "5f00::1",  # outside 2000::/3, the only global unicast space (SRv6 SIDs)
    "::1:0:0:0",  # reserved by the IETF (::/8)
    "::ffff:0:a00:1",  # IPv4-translated 10.0.0.1
    "2002:c000:c0::1",  # 6to4 of 192.0.0.192
    "64:ff9b::c000:c0",  # NAT64 of 192.0.0.192
]
PUBLIC_FORMS = ["93.184.216.34", "::ffff:93.184.216.34", "2002:5db8:d822::1", "64:ff9b::5db8:d822", "2606:4700::1"]
PUBLIC_FORMS += ["::ffff:0:5db8:d822", "2a00:1450:4001:800::200e", "8.8.8.8", "1.1.1.1", "2001:4860:4860::8888"]


def bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


@pytest.mark.parametrize("address", RESERVED)
async def test_reserved_and_embedded_addresses_are_refused_at_registration(monkeypatch, address):
    url = f"https://{bracketed(address)}/in"
    assert await resolved_problem(url, production=True, allow_private=False) == PRIVATE
    resolving(monkeypatch, [PUBLIC, address])  # or behind a name
    assert await resolved_problem("https://hooks.example.com/in", production=True, allow_private=False) == PRIVATE


@pytest.mark.parametrize("address", RESERVED)
async def test_reserved_and_embedded_addresses_are_refused_at_delivery(monkeypatch, address):
    receiver = Receiver()
    assert await send(receiver, f"https://{bracketed(address)}/in") == PRIVATE
    resolving(monkeypatch, [address])  # a name that pointed outside when it was registered, inside now
    assert await send(receiver, "https://hooks.example.com/in") == PRIVATE
    assert receiver.requests == []


@pytest.mark.parametrize("address", PUBLIC_FORMS)
async def test_public_addresses_in_any_form_are_delivered_to(address):
    receiver = Receiver()
    assert await send(receiver, f"https://{bracketed(address)}/in") is None
    assert len(receiver.requests) == 1
