"""How an upstream's names are served: tools and prompts ``PREFIX_name``, resource URIs and URI
templates ``PREFIX+scheme://…`` (the prefix put before the URI's scheme, which RFC 3986 allows:
every MCP resource URI has a scheme, so the upstream's URI is always got back)."""

from __future__ import annotations


def prefixed_name(prefix: str, name: str) -> str:
    return f"{prefix}_{name}" if prefix else name


def prefixed_uri(prefix: str, uri: str) -> str:
    return f"{prefix}+{uri}" if prefix else uri


def own_uri(prefix: str, uri: str) -> str | None:
    """The upstream's URI of a URI served with ``prefix``; None if it is not one of them."""
    if not prefix:
        return uri
    head = f"{prefix}+"
    return uri[len(head) :] if uri.startswith(head) else None
