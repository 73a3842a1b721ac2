"""The authorization request and its response: PKCE S256, ``state``, RFC 8707 ``resource``, and the
RFC 9207 ``iss`` check — sans-I/O (URLs in, URLs and the code out)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import attrs

from .errors import AuthorizationError
from .metadata import ServerMetadata


@attrs.frozen
class AuthorizationRequest:
    """One authorization request and what its response is checked against."""

    url: str  # what the user's browser opens
    redirect_uri: str
    state: str
    verifier: str = attrs.field(repr=False)  # the PKCE code verifier, for the token request
    issuer: str  # from the validated metadata: the response's iss must be this, character for character
    iss_required: bool


def pkce_pair() -> tuple[str, str]:
    """A code verifier (43 characters of 32 random bytes) and its S256 challenge (RFC 7636)."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorization_request(
    server: ServerMetadata, *, client_id: str, redirect_uri: str, resource: str, scope: str | None
) -> AuthorizationRequest:
    if server.authorization_endpoint is None:
        raise AuthorizationError(f"{server.issuer} has no authorization endpoint")
    if server.discovered and "S256" not in (server.code_challenge_methods_supported or []):
        raise AuthorizationError(
            f"{server.issuer} does not say it supports PKCE with S256 "
            "(code_challenge_methods_supported): refusing to authorize without it"
        )
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(24)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": resource,
    }
    if scope:
        query["scope"] = scope
    separator = "&" if urlsplit(server.authorization_endpoint).query else "?"
    return AuthorizationRequest(
        server.authorization_endpoint + separator + urlencode(query),
        redirect_uri,
        state,
        verifier,
        server.issuer,
        server.iss_parameter_supported,
    )


def code_of(request: AuthorizationRequest, callback_url: str) -> str:
    """The authorization code in the response, once its ``iss`` (RFC 9207 §2.4, compared as a plain
    string and checked first: a mismatched response's error is not acted on) and ``state`` are right."""
    params = {key: values[0] for key, values in parse_qs(urlsplit(callback_url).query).items()}
    iss = params.get("iss")
    if iss is not None and iss != request.issuer:
        raise AuthorizationError(
            f"the authorization response came from issuer {iss!r}, not {request.issuer!r}: refusing it (RFC 9207)"
        )
    if iss is None and request.iss_required:
        raise AuthorizationError(
            f"{request.issuer} says it sends iss in its authorization responses, and this one "
            "has none: refusing it (RFC 9207)"
        )
    if params.get("state") != request.state:
        raise AuthorizationError("the authorization response's state is not the one sent: refusing it")
    if "error" in params:
        description = params.get("error_description")
        raise AuthorizationError(
            f"the authorization was refused: {params['error']}{f' ({description})' if description else ''}"
        )
    code = params.get("code")
    if not code:
        raise AuthorizationError("the authorization response has no code")
    return code
