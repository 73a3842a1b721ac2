"""How a server checks tokens: the same settings from flags, the TOML file or the embedding API."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import attrs

from .scopes import ScopePolicy
from .secret import SECRET_ENV
from .verifier import TokenVerifier


def _scope_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    return tuple(value)


@attrs.frozen(kw_only=True)
class AuthConfig:
    """Authorization for the network transports (stdio is never authenticated).

    ``issuer`` turns it on.  Tokens are JWTs checked against the issuer's keys (``jwks_url``
    overrides discovery), or opaque ones checked by ``introspection_url`` as ``client_id`` with
    ``client_secret`` (default: the ``MCPTRIO_AUTH_CLIENT_SECRET`` environment variable), or
    whatever ``verifier`` says.  ``public_url`` is the endpoint's canonical URL as clients use it
    (behind a proxy it differs from the bind address); it is the ``resource`` of the metadata and
    the default ``audience`` tokens must name.
    """

    issuer: str
    audience: str | None = None
    jwks_url: str | None = None
    introspection_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = attrs.field(default=None, repr=False)
    scopes: tuple[str, ...] = attrs.field(default=(), converter=_scope_list)
    public_url: str | None = None
    implied_scopes: Mapping[str, Any] = attrs.field(factory=dict)
    tool_scopes: Mapping[str, Any] = attrs.field(factory=dict)
    prompt_scopes: Mapping[str, Any] = attrs.field(factory=dict)
    resource_scopes: Mapping[str, Any] = attrs.field(factory=dict)
    resource_name: str | None = None
    resource_documentation: str | None = None
    leeway: float = 30.0  # seconds of clock skew allowed on exp and nbf
    verifier: TokenVerifier | None = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        for url, what in (
            (self.issuer, "issuer"),
            (self.audience, "audience"),
            (self.jwks_url, "jwks_url"),
            (self.introspection_url, "introspection_url"),
            (self.public_url, "public_url"),
        ):
            if url is not None and not (url.startswith("https://") or url.startswith("http://")):
                raise ValueError(f"auth {what} must be an http(s) URL, got {url!r}")
        if self.introspection_url is not None and not self.client_id:
            raise ValueError("auth introspection_url needs a client_id (and MCPTRIO_AUTH_CLIENT_SECRET)")
        if "offline_access" in self.scopes:
            raise ValueError("offline_access is not a resource scope (the spec says not to require it)")

    def policy(self) -> ScopePolicy:
        return ScopePolicy(
            frozenset(self.scopes), self.tool_scopes, self.prompt_scopes, self.resource_scopes, self.implied_scopes
        )

    def make_verifier(self, audience: str) -> TokenVerifier:
        """The verifier for tokens naming ``audience`` (this server's canonical URL)."""
        if self.verifier is not None:
            return self.verifier
        if self.introspection_url is not None:
            from .introspection import IntrospectionVerifier

            secret = self.client_secret if self.client_secret is not None else os.environ.get(SECRET_ENV)
            if not secret:
                raise ValueError(f"auth introspection needs the client secret in {SECRET_ENV}")
            assert self.client_id is not None
            return IntrospectionVerifier(
                self.introspection_url, self.client_id, secret, audience, issuer=self.issuer, leeway=self.leeway
            )
        from .jwt_verifier import JwtVerifier

        return JwtVerifier(self.issuer, audience, jwks_url=self.jwks_url, leeway=self.leeway)
