"""Which IP addresses a production webhook may be sent to: globally routable unicast ones only (issue 27,
finding 3). `ipaddress`'s own `is_private` let through the shared range 100.64.0.0/10 (CGNAT, and cloud
metadata services such as 100.100.100.200), multicast, and IPv6 addresses that only carry an IPv4 address
(`::a9fe:a9fe` is 169.254.169.254 to a stack that routes IPv4-compatible addresses). An IPv6 address that
embeds an IPv4 one is therefore judged by that IPv4 address: IPv4-mapped (`::ffff:0:0/96`), IPv4-compatible
(`::/96`), 6to4 (`2002::/16`), NAT64 (`64:ff9b::/96`) and Teredo (`2001::/32`, its server and its client)."""

from __future__ import annotations

import ipaddress

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

COMPATIBLE = ipaddress.IPv6Network("::/96")  # the deprecated IPv4-compatible form (and :: and ::1)
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix, the IPv4 address in the last 32 bits
LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: a network's own translator, never public


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (none for a native IPv6 address)."""
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)  # (server, client): traffic reaches both
    if address in COMPATIBLE or address in NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    return []


def _global_unicast(address: Address) -> bool:
    # Python 3.11 calls multicast addresses global: they are not a receiver's address.
    return address.is_global and not address.is_multicast


def public(address: Address) -> bool:
    """True when a delivery may go to this address in production."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in LOCAL_NAT64:
            return False
        if embedded := embedded_ipv4(address):
            return all(_global_unicast(inner) for inner in embedded)
    return _global_unicast(address)


def literal(host: str) -> Address | None:
    """The host as an IP address, when it is one (`[…]` brackets already removed by urlsplit)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None
