"""Where a protected MCP server's authorization server is, and what it supports.

RFC 9728 protected resource metadata (the challenge's ``resource_metadata``, else the well-known
paths in the spec's order), then RFC 8414 / OpenID Connect discovery of the authorization server
(in the spec's order for issuers with and without a path).  A 2025-03-26 server has no resource
metadata: its own origin is then the authorization server, with RFC 8414 metadata or, lacking
that, the default ``/authorize``, ``/token`` and ``/register`` endpoints.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import attrs
import httpx

from .errors import AuthorizationError

log = logging.getLogger("mcptrio.client.oauth")


@attrs.frozen
class ResourceMetadata:
    """The protected resource (RFC 9728): its identifier, its authorization servers, its scopes."""

    resource: str
    authorization_servers: list[str]
    scopes_supported: list[str] | None = None
    url: str | None = None  # where it was read (None: a 2025-03-26 server, which has none)


@attrs.frozen
class ServerMetadata:
    """An authorization server's metadata (RFC 8414), the fields the client uses."""

    issuer: str
    authorization_endpoint: str | None
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    iss_parameter_supported: bool = False
    client_id_metadata_document_supported: bool = False
    dpop_signing_alg_values_supported: list[str] | None = None
    discovered: bool = True  # False: the 2025-03-26 default endpoints, no document behind them

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> ServerMetadata:
        def strings(name: str) -> list[str] | None:
            value = document.get(name)
            return [v for v in value if isinstance(v, str)] if isinstance(value, list) else None

        token_endpoint = document.get("token_endpoint")
        if not isinstance(token_endpoint, str):
            raise AuthorizationError("the authorization server's metadata has no token_endpoint")
        authorization_endpoint = document.get("authorization_endpoint")
        registration_endpoint = document.get("registration_endpoint")
        return cls(
            issuer=str(document.get("issuer")),
            token_endpoint=token_endpoint,
            authorization_endpoint=authorization_endpoint if isinstance(authorization_endpoint, str) else None,
            registration_endpoint=registration_endpoint if isinstance(registration_endpoint, str) else None,
            scopes_supported=strings("scopes_supported"),
            token_endpoint_auth_methods_supported=strings("token_endpoint_auth_methods_supported"),
            code_challenge_methods_supported=strings("code_challenge_methods_supported"),
            grant_types_supported=strings("grant_types_supported"),
            iss_parameter_supported=document.get("authorization_response_iss_parameter_supported") is True,
            client_id_metadata_document_supported=document.get("client_id_metadata_document_supported") is True,
            dpop_signing_alg_values_supported=strings("dpop_signing_alg_values_supported"),
        )

    @classmethod
    def defaults(cls, origin: str) -> ServerMetadata:
        """A 2025-03-26 server that publishes no metadata: the default endpoints at its origin."""
        return cls(
            issuer=origin,
            authorization_endpoint=f"{origin}/authorize",
            token_endpoint=f"{origin}/token",
            registration_endpoint=f"{origin}/register",
            code_challenge_methods_supported=["S256"],
            discovered=False,
        )


def canonical(url: str) -> str:
    """A server URL as a resource identifier (RFC 8707 §2): scheme and host lowercased, no default
    port, no fragment, no trailing slash."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if parts.port in (None, default) else f"{host}:{parts.port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def http_twin(url: str) -> str:
    """A ``ws://`` / ``wss://`` URL as ``http://`` / ``https://`` (its upgrade request's URL, at
    whose origin the resource metadata is); any other URL as it is."""
    scheme, colon, rest = url.partition(":")
    twin = {"ws": "http", "wss": "https"}.get(scheme.lower())
    return f"{twin}{colon}{rest}" if twin is not None else url


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def resource_metadata_urls(server_url: str) -> list[str]:
    """The well-known places of a server's resource metadata, in the spec's order: at its path, then
    at the root (the first is skipped for a server at the root)."""
    parts = urlsplit(server_url)
    origin = origin_of(server_url)
    path = parts.path.rstrip("/")
    urls = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
    return urls + [f"{origin}/.well-known/oauth-protected-resource"]


def server_metadata_urls(issuer: str) -> list[str]:
    """The well-known places of an authorization server's metadata, in the spec's order."""
    origin = origin_of(issuer)
    path = urlsplit(issuer).path.rstrip("/")
    if not path:
        return [f"{origin}/.well-known/oauth-authorization-server", f"{origin}/.well-known/openid-configuration"]
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]


def covers(resource: str, server_url: str) -> bool:
    """Does the resource identifier name this server: the same URL, or a parent path of it?"""
    resource, server = canonical(resource), canonical(server_url)
    if resource == server:
        return True
    if origin_of(resource) != origin_of(server):
        return False
    base = urlsplit(resource).path.rstrip("/")
    return urlsplit(server).path.startswith(base + "/")


async def _json(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    for attempt in range(2):  # (a GET: asked again once if the connection failed under it)
        try:
            response = await http.get(url, headers={"accept": "application/json"})
            break
        except httpx.HTTPError as exc:
            if attempt or not isinstance(exc, httpx.TransportError):
                raise AuthorizationError(f"could not read {url}: {exc}") from exc
    if response.status_code != 200:
        log.debug("no metadata at %s: HTTP %s", url, response.status_code)
        return None
    try:
        document = response.json()
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


async def discover_resource(
    http: httpx.AsyncClient, server_url: str, challenge_url: str | None
) -> ResourceMetadata | None:
    """The server's resource metadata, checked to name this server; None when it publishes none."""
    for url in [challenge_url] if challenge_url else resource_metadata_urls(server_url):
        document = await _json(http, url)
        if document is None:
            continue
        resource = document.get("resource")
        servers = document.get("authorization_servers")
        if not isinstance(resource, str) or not isinstance(servers, list) or not servers:
            raise AuthorizationError(f"the resource metadata at {url} names no resource or authorization server")
        if not covers(resource, server_url):
            raise AuthorizationError(
                f"the resource metadata at {url} is for {resource}, not {server_url}: "
                "refusing to ask for a token for another server"
            )
        scopes = document.get("scopes_supported")
        return ResourceMetadata(
            resource,
            [s for s in servers if isinstance(s, str)],
            [s for s in scopes if isinstance(s, str)] if isinstance(scopes, list) else None,
            url,
        )
    return None


async def discover_server(http: httpx.AsyncClient, issuer: str, *, fallback: bool = False) -> ServerMetadata:
    """The authorization server's metadata, its ``issuer`` checked against the one asked for
    (RFC 8414 §3.3).  ``fallback``: a 2025-03-26 server, whose default endpoints serve if it
    publishes no metadata."""
    for url in server_metadata_urls(issuer):
        document = await _json(http, url)
        if document is None:
            continue
        found = document.get("issuer")
        if not isinstance(found, str) or found.rstrip("/") != issuer.rstrip("/"):
            raise AuthorizationError(
                f"the authorization server metadata at {url} is for issuer {found!r}, "
                f"not {issuer!r}: refusing to use it"
            )
        return ServerMetadata.from_document(document)
    if fallback:
        return ServerMetadata.defaults(origin_of(issuer))
    raise AuthorizationError(
        f"no authorization server metadata for {issuer} (tried {', '.join(server_metadata_urls(issuer))})"
    )
