"""The client's address behind a reverse proxy: ``X-Forwarded-For``, believed only from proxies we trust.

Behind nginx or HAProxy every connection comes from the proxy, so the access log, the per-client
rate limit and ``ctx.client_address`` would all see the proxy's address.  When the peer is one of
``HttpConfig.trusted_proxies`` (addresses or networks, e.g. ``10.0.0.0/8``), the client is the
right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy; from anyone else the
header is ignored, since a client can write whatever it likes there.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """``10.0.0.1``, ``10.0.0.0/8``, ``::1``: a ValueError naming a bad one."""
    networks = []
    for spec in specs:
        try:
            networks.append(ipaddress.ip_network(spec.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {spec!r}") from None
    return tuple(networks)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(peer: str | None, forwarded_for: bytes | None, networks: tuple[Network, ...]) -> str | None:
    """The client's address: ``peer`` unless it is a trusted proxy that says who it forwards for."""
    if not networks or peer is None or forwarded_for is None or not _trusted(peer, networks):
        return peer
    hops = [hop.strip() for hop in forwarded_for.decode("latin-1").split(",")]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a malformed list: believe nothing of it
        if not _trusted(hop, networks):
            return hop
    return hops[0] if hops and hops[0] else peer  # every hop a proxy of ours: the first one
