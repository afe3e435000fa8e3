"""Where a webhook may be sent: the SSRF rule, in one place.

A webhook URL is `http` or `https`, with a host and no user:password. Every address its host
resolves to must be public (not loopback, private, link-local, shared, multicast, reserved or
unspecified, nor the 6to4 relay anycast 192.88.99.0/24 or the local-use NAT64 prefix
64:ff9b:1::/48), and so must every IPv4 address an IPv6 one carries (IPv4-mapped, 6to4
2002::/16, Teredo 2001::/32, NAT64 64:ff9b::/96), which is where it leads. One that is not is
refused when the endpoint is created or changed, and again at
each send, after resolution, and the request then goes to the very address that was checked, so
a DNS answer that changes in between (rebinding) cannot redirect it.
NOTIFLOW_WEBHOOK_ALLOW_PRIVATE=true lifts the address rule (development and tests).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

SCHEMES = {"http": 80, "https": 443}


class AddressRefused(ValueError):
    """A webhook URL Notiflow will not send to; the message says why."""


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (a resolved address) and what to ask for there."""

    scheme: str
    host: str  # as in the URL (the Host header, TLS server name)
    port: int
    addresses: tuple[str, ...]  # the checked IP addresses to connect to, in resolver order
    path: str  # path and query

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == SCHEMES[self.scheme] else f"{host}:{self.port}"


def _split(url: str) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise AddressRefused(f"not a valid URL: {exc}") from exc
    if parts.scheme not in SCHEMES:
        raise AddressRefused("the URL must be http or https")
    if not parts.hostname:
        raise AddressRefused("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise AddressRefused("the URL may not carry a user name or password")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port or SCHEMES[parts.scheme], path


# Ranges Python's is_global counts as global that a webhook may not reach: the 6to4 relay
# anycast (RFC 7526 deprecated it; it relays to whatever 6to4 address follows), and the NAT64
# prefix for local use (RFC 8215), whose translator is on the sender's own network.
NOT_PUBLIC = (ipaddress.ip_network("192.88.99.0/24"), ipaddress.ip_network("64:ff9b:1::/48"))
# The well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address reached.
NAT64 = ipaddress.ip_network("64:ff9b::/96")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _carried(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, and leads to: IPv4-mapped, 6to4, Teredo (its
    server and its client), NAT64."""
    if isinstance(ip, ipaddress.IPv4Address):
        return []
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    if ip in NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return []


def _global(ip: IPAddress) -> bool:
    if any(ip.version == net.version and ip in net for net in NOT_PUBLIC):
        return False
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def is_public(address: str) -> bool:
    """Whether `address` is globally routable unicast; an IPv6 address that carries IPv4 ones
    (_carried) is judged by those alone."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if any(ip.version == net.version and ip in net for net in NOT_PUBLIC):
        return False
    carried = _carried(ip)
    return all(_global(v4) for v4 in carried) if carried else _global(ip)


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise AddressRefused(f"the host {host!r} does not resolve: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def target_resolve(url: str, *, allow_private: bool | None = None) -> Target:
    """The URL checked and resolved, to connect to. AddressRefused when it may not be used.
    `allow_private` lifts the address rule (None: NOTIFLOW_WEBHOOK_ALLOW_PRIVATE; the chat
    channels pass NOTIFLOW_CHAT_ALLOW_PRIVATE, web push NOTIFLOW_PUSH_ALLOW_PRIVATE)."""
    scheme, host, port, path = _split(url)
    addresses = _resolve(host, port)
    if allow_private is None:
        allow_private = settings.NOTIFLOW_WEBHOOK_ALLOW_PRIVATE
    if not allow_private:
        refused = [a for a in addresses if not is_public(a)]
        if refused:
            raise AddressRefused(
                f"the host {host!r} resolves to a non-public address ({', '.join(refused)}); "
                "webhooks go to public addresses only"
            )
    return Target(scheme=scheme, host=host, port=port, addresses=tuple(addresses), path=path)


def url_check(url: str) -> None:
    """AddressRefused when an endpoint may not have `url` (checked now, and at every send)."""
    target_resolve(url)
