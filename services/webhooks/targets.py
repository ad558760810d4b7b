"""Where a webhook may be sent: not inside the platform's own network (SSRF).

A target URL is http(s) with a host and no credentials; every address its host resolves to must be a public one
(not private, loopback, link-local, site-local, shared, multicast, reserved or unspecified; an IPv6 address that
carries an IPv4 one judged by what it carries: ``why_not_public``), unless the operator's allow-list names it:
``BALOOT_WEBHOOK_ALLOW``, networks or addresses separated by commas (e.g. ``10.20.0.0/16,127.0.0.1``). The check
is made at registration and again at each delivery, and the delivery connects to the address that was checked (a
name that resolves to a public address when registered and to a private one later is refused then, and never
reached by a second lookup).
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

ALLOW_ENV = "BALOOT_WEBHOOK_ALLOW"
MAX_URL = 2000
RESOLVE_SECONDS = 5.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class TargetRefused(ValueError):
    """The URL may not be a webhook's target; ``str()`` says why."""


def allow_list(text: str | None = None) -> tuple[Network, ...]:
    """The operator's allow-list (``text``, default ``BALOOT_WEBHOOK_ALLOW``)."""
    text = os.environ.get(ALLOW_ENV, "") if text is None else text
    try:
        return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ValueError(f"{ALLOW_ENV}: {exc}") from None


NAT64 = ipaddress.ip_network("64:ff9b::/96")               # the well-known prefix: the IPv4 address in its last 32 bits
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")       # local-use prefixes (RFC 8215): the operator's own
SITE_LOCAL = ipaddress.ip_network("fec0::/10")             # deprecated, but still routed inside some networks


def _v4_kind(address: ipaddress.IPv4Address) -> str | None:
    for kind in ("loopback", "link_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if address.is_global else "non-public"


def why_not_public(address: Address) -> str | None:
    """What kind of address this is when it is not a public one (None: public).

    An IPv6 address that carries an IPv4 one is judged by what it carries, since a relay or translator on the
    way delivers to that IPv4 address: IPv4-mapped (``::ffff:a.b.c.d``) and NAT64 (``64:ff9b::/96``) as the
    IPv4 address alone; 6to4 (``2002::/16``) and Teredo (``2001::/32``: its server and its client) refused when
    what they embed is not public, and otherwise judged as IPv6 addresses too. The local-use NAT64 prefixes
    (``64:ff9b:1::/48``: where the IPv4 address sits depends on the operator's prefix length, and they lead into
    his network) and site-local addresses (``fec0::/10``, which ``ipaddress`` does not count as private) are
    refused outright."""
    if address.version == 4:
        return _v4_kind(address)
    if address.ipv4_mapped is not None:
        return _v4_kind(address.ipv4_mapped)
    if address in NAT64:
        inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        kind = _v4_kind(inner)
        return None if kind is None else f"NAT64 (to {inner}, {kind})"
    if address in NAT64_LOCAL:
        return "local-use NAT64"
    if address in SITE_LOCAL:
        return "site-local"
    if address.sixtofour is not None:
        kind = _v4_kind(address.sixtofour)
        if kind is not None:
            return f"6to4 (of {address.sixtofour}, {kind})"
    if address.teredo is not None:
        for role, inner in zip(("server", "client"), address.teredo):
            kind = _v4_kind(inner)
            if kind is not None:
                return f"Teredo ({role} {inner}, {kind})"
    for kind in ("loopback", "link_local", "site_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if address.is_global else "non-public"


@dataclass(frozen=True)
class Target:
    """A checked target: ``url`` with the host replaced by the address checked, what to send as Host, and
    the name TLS must verify (for https)."""

    url: str
    host: str
    address: str
    extensions: dict = field(default_factory=dict)


def parse(url: str) -> tuple[str, str, int]:
    """The URL's scheme, host and port, or TargetRefused."""
    if len(url) > MAX_URL:
        raise TargetRefused(f"the URL is longer than {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise TargetRefused(f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise TargetRefused(f"a webhook is sent over http or https, not {parts.scheme or 'no scheme'!r}")
    if not parts.hostname:
        raise TargetRefused("the URL names no host")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("the URL may not carry a user name or password (the deliveries are signed instead)")
    if parts.fragment:
        raise TargetRefused("the URL may not have a fragment (#…)")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def check(url: str, allow: tuple[Network, ...] | None = None) -> Target:
    """Resolve ``url``'s host and check every address it gives; the target to connect to, or TargetRefused."""
    scheme, host, port = parse(url)
    allow = allow_list() if allow is None else allow
    try:
        infos = await asyncio.wait_for(asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM),
                                       RESOLVE_SECONDS)
    except (socket.gaierror, UnicodeError) as exc:
        raise TargetRefused(f"the host {host!r} does not resolve: {exc}") from None
    except TimeoutError:
        raise TargetRefused(f"the host {host!r} did not resolve within {RESOLVE_SECONDS:g} s") from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos))
    for address in addresses:
        kind = why_not_public(address)
        if kind is not None and not any(address in net for net in allow):
            raise TargetRefused(f"{host} resolves to {address}, a {kind} address: webhooks go to public addresses "
                                f"only, unless the operator allows it ({ALLOW_ENV})")
    address = addresses[0]
    parts = urlsplit(url)
    literal = f"[{address}]" if address.version == 6 else str(address)
    netloc = f"{literal}:{port}" if parts.port else literal
    return Target(urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")), parts.netloc, str(address),
                  {"sni_hostname": host} if scheme == "https" else {})
