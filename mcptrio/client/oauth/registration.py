"""Who the client is at an authorization server: a Client ID Metadata Document's URL, or a
client registered dynamically (RFC 7591) — each bound to the issuer that knows it.

The spec's order is the caller's (``flow``): pre-registered credentials first, then a metadata
document when the server supports them, then dynamic registration when it offers it.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import httpx

from .errors import AuthorizationError
from .grants import ClientAuth
from .metadata import ServerMetadata

PUBLIC_FIRST = ("none", "client_secret_basic", "client_secret_post")


@attrs.frozen
class Registration:
    """A client known to one authorization server (``issuer``)."""

    issuer: str
    client: ClientAuth
    redirect_uris: list[str] = attrs.field(factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {"issuer": self.issuer, "client": attrs.asdict(self.client), "redirect_uris": self.redirect_uris}
        )

    @classmethod
    def from_json(cls, text: str) -> Registration | None:
        try:
            value = json.loads(text)
            return cls(value["issuer"], ClientAuth(**value["client"]), list(value.get("redirect_uris") or []))
        except (ValueError, TypeError, KeyError):
            return None


def auth_method(server: ServerMetadata, *, has_secret: bool) -> str:
    """How to authenticate at this server's token endpoint: a public client prefers ``none``; one
    with a secret Basic, then the form (RFC 8414's default list is Basic alone)."""
    offered = server.token_endpoint_auth_methods_supported
    preference = ("client_secret_basic", "client_secret_post") if has_secret else PUBLIC_FIRST
    if offered is None:
        return preference[0]
    for method in preference:
        if method in offered:
            return method
    return offered[0] if offered else preference[0]


def metadata_document_client(server: ServerMetadata, url: str) -> Registration:
    """A client whose id is the URL of its metadata document (no request needed)."""
    return Registration(server.issuer, ClientAuth(client_id=url, method="none"))


async def register_client(
    http: httpx.AsyncClient,
    server: ServerMetadata,
    *,
    client_name: str,
    redirect_uris: list[str],
    grant_types: list[str],
    scope: str | None = None,
) -> Registration:
    """Dynamic client registration (RFC 7591) as a native application (SEP-837)."""
    if server.registration_endpoint is None:
        raise AuthorizationError(
            f"{server.issuer} offers no client registration, and no client id was given: "
            "pass the client_id (and secret) registered with it"
        )
    method = auth_method(server, has_secret=False)
    body: dict[str, Any] = {
        "client_name": client_name,
        "redirect_uris": redirect_uris,
        "grant_types": grant_types,
        "response_types": ["code"] if "authorization_code" in grant_types else [],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    }
    if scope:
        body["scope"] = scope
    try:
        response = await http.post(server.registration_endpoint, json=body, headers={"accept": "application/json"})
    except httpx.HTTPError as exc:
        raise AuthorizationError(f"client registration at {server.registration_endpoint} failed: {exc}") from exc
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    if (
        response.status_code not in (200, 201)
        or not isinstance(answer, dict)
        or not isinstance(answer.get("client_id"), str)
    ):
        detail = answer.get("error_description") or answer.get("error") if isinstance(answer, dict) else None
        raise AuthorizationError(
            f"{server.issuer} refused to register the client: HTTP {response.status_code}"
            f"{f' ({detail})' if detail else ''}"
        )
    secret = answer.get("client_secret")
    granted = answer.get("token_endpoint_auth_method")
    if not isinstance(granted, str):
        granted = method if method != "none" or not isinstance(secret, str) else "client_secret_basic"
    client = ClientAuth(
        client_id=answer["client_id"], client_secret=secret if isinstance(secret, str) else None, method=granted
    )
    return Registration(server.issuer, client, list(answer.get("redirect_uris") or redirect_uris))
