"""The door of a network transport: who is knocking, and the answer when they may not come in.

A transport asks ``authenticate`` with the request's headers and query string before it reads
anything else, and turns an ``AuthError`` into ``challenge(error)``: a status, a
``WWW-Authenticate`` header after RFC 6750 §3 and the spec's authorization chapter, and a small
JSON body saying the same.  The same failure is always answered the same way, and an answer
never tells whether a session, a stream or a state exists.

It also holds the Protected Resource Metadata (RFC 9728), built from the configured public URL,
never from the Host header a client sends.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from .config import AuthConfig
from .errors import AuthError, AuthUnavailable, InsufficientScope, InvalidRequest, InvalidToken, MissingToken
from .principal import Principal
from .scopes import ScopePolicy
from .verifier import TokenVerifier

log = logging.getLogger("mcptrio.auth")

WELL_KNOWN = "/.well-known/oauth-protected-resource"


class Gate:
    """Token checks and challenges for the endpoint at ``resource_url`` (its canonical URL)."""

    def __init__(self, config: AuthConfig, resource_url: str) -> None:
        self.config = config
        self.resource_url = resource_url
        self.policy: ScopePolicy = config.policy()
        self.verifier: TokenVerifier = config.make_verifier(config.audience or resource_url)
        parts = urlsplit(resource_url)
        origin = f"{parts.scheme}://{parts.netloc}"
        path = parts.path.rstrip("/")
        # RFC 9728 §3.1: the well-known segment goes between the host and the resource's path.
        self.metadata_url = f"{origin}{WELL_KNOWN}{path}"
        self.metadata_paths = (f"{WELL_KNOWN}{path}", WELL_KNOWN)
        self._metadata = orjson.dumps(self._metadata_document())
        self._base_scope = " ".join(sorted(self.policy.required))

    def _metadata_document(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "resource": self.resource_url,
            "authorization_servers": [self.config.issuer],
            "bearer_methods_supported": ["header"],
        }
        if self.policy.required:
            document["scopes_supported"] = sorted(self.policy.required)
        if self.config.resource_name:
            document["resource_name"] = self.config.resource_name
        if self.config.resource_documentation:
            document["resource_documentation"] = self.config.resource_documentation
        return document

    @property
    def metadata(self) -> bytes:
        """The Protected Resource Metadata document, as JSON."""
        return self._metadata

    async def authenticate(self, authorization: bytes | None, query_string: bytes = b"") -> Principal:
        """The principal of the request's bearer token, or the ``AuthError`` saying why not."""
        if query_string and any(key == "access_token" for key, _ in parse_qsl(query_string.decode("latin-1"))):
            raise InvalidRequest("send the access token in the Authorization header, not the query string")
        if not authorization:
            raise MissingToken("this server needs an access token")
        scheme, _, token = authorization.decode("latin-1").strip().partition(" ")
        if scheme.lower() != "bearer":
            raise MissingToken("this server needs a Bearer access token")
        token = token.strip()
        if not token or " " in token:
            raise InvalidToken("the Authorization header holds no single token")
        return await self.verifier.verify(token)

    def check_scopes(self, principal: Principal, needed: frozenset[str]) -> None:
        """Raise ``InsufficientScope`` naming every scope needed when the token lacks any."""
        if self.policy.missing(principal.scopes, needed):
            raise InsufficientScope(needed)

    def challenge(self, error: AuthError) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """(status, headers, body) of the answer to ``error``."""
        params: list[tuple[str, str]] = []
        headers: list[tuple[bytes, bytes]] = []
        if isinstance(error, MissingToken):
            status, code = 401, None
        elif isinstance(error, InvalidRequest):
            status, code = 400, "invalid_request"
        elif isinstance(error, InvalidToken):
            status, code = 401, "invalid_token"
        elif isinstance(error, InsufficientScope):
            status, code = 403, "insufficient_scope"
        elif isinstance(error, AuthUnavailable):
            headers.append((b"retry-after", str(error.retry_after).encode()))
            body: dict[str, Any] = {"error": "temporarily_unavailable", "error_description": str(error)}
            return 503, headers + [(b"content-type", b"application/json")], orjson.dumps(body)
        else:  # pragma: no cover - every AuthError is one of the above
            status, code = 401, "invalid_token"
        if code is not None:
            params.append(("error", code))
            params.append(("error_description", _quotable(str(error))))
        scope = " ".join(sorted(error.needed)) if isinstance(error, InsufficientScope) else self._base_scope
        if scope:
            params.append(("scope", scope))
        params.append(("resource_metadata", self.metadata_url))
        challenge = "Bearer " + ", ".join(f'{key}="{value}"' for key, value in params)
        headers.append((b"www-authenticate", challenge.encode("latin-1", "replace")))
        headers.append((b"content-type", b"application/json"))
        body = {"error": code or "unauthorized", "error_description": str(error)}
        if isinstance(error, InsufficientScope):
            body["scope"] = scope
        return status, headers, orjson.dumps(body)

    async def aclose(self) -> None:
        await self.verifier.aclose()


def _quotable(text: str) -> str:
    """RFC 6750 limits error_description to printable ASCII without ``"`` and ``\\``."""
    return "".join(c for c in text if 0x20 <= ord(c) <= 0x7E and c not in '"\\')
