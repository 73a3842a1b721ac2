"""The token endpoint: a grant in, tokens out, the client authenticated as it registered.

Client authentication (RFC 6749 §2.3, RFC 7523): ``none`` (the client id in the form),
``client_secret_basic``, ``client_secret_post``, or ``private_key_jwt`` (an assertion signed with
PyJWT).  A DPoP key, when given, puts a proof on the request and answers a ``use_dpop_nonce``
once.  A refused grant is an ``AuthorizationError`` naming the server's error.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import attrs
import httpx

from .errors import AuthorizationError
from .metadata import ServerMetadata
from .signing import pyjwt

if TYPE_CHECKING:
    from .dpop import DPoPKey

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
EXPIRY_LEEWAY = 30.0  # seconds: a token this close to its end is refreshed before it is used


@attrs.frozen
class Tokens:
    """What the token endpoint granted; ``expires_at`` is a ``time.time()`` value."""

    access_token: str = attrs.field(repr=False)
    token_type: str = "Bearer"
    refresh_token: str | None = attrs.field(default=None, repr=False)
    expires_at: float | None = None
    scope: str | None = None

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and (now or time.time()) >= self.expires_at - EXPIRY_LEEWAY

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Tokens | None:
        try:
            value = json.loads(text)
            return cls(**value) if isinstance(value, dict) and isinstance(value.get("access_token"), str) else None
        except (ValueError, TypeError):
            return None


@attrs.frozen
class ClientAuth:
    """Who the client is at the token endpoint, and how it proves it."""

    client_id: str
    client_secret: str | None = attrs.field(default=None, repr=False)
    method: str = "none"  # none | client_secret_basic | client_secret_post | private_key_jwt
    private_key: str | None = attrs.field(default=None, repr=False)  # PEM, for private_key_jwt
    algorithm: str = "ES256"


def authenticate(client: ClientAuth, server: ServerMetadata, form: dict[str, str], headers: dict[str, str]) -> None:
    """Put the client's authentication on a token request."""
    if client.method == "client_secret_basic" and client.client_secret is not None:
        # (RFC 6749 §2.3.1: each part form-urlencoded before the base64)
        credentials = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["authorization"] = "Basic " + _b64(credentials)
    elif client.method == "private_key_jwt" and client.private_key is not None:
        jwt = pyjwt()
        now = int(time.time())
        claims = {
            "iss": client.client_id,
            "sub": client.client_id,
            "aud": server.issuer,
            "iat": now,
            "exp": now + 300,
            "jti": str(uuid.uuid4()),
        }
        form["client_id"] = client.client_id
        form["client_assertion_type"] = ASSERTION_TYPE
        form["client_assertion"] = jwt.encode(claims, client.private_key, algorithm=client.algorithm)
    else:
        form["client_id"] = client.client_id
        if client.method == "client_secret_post" and client.client_secret is not None:
            form["client_secret"] = client.client_secret


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


async def request_tokens(
    http: httpx.AsyncClient,
    server: ServerMetadata,
    client: ClientAuth | None,
    grant: dict[str, str],
    *,
    dpop: DPoPKey | None = None,
    previous: Tokens | None = None,
) -> Tokens:
    """POST a grant to the token endpoint.  ``previous``: the tokens being refreshed (a refresh
    answer without a new refresh token keeps the old one)."""
    for attempt in range(2):
        form = dict(grant)
        headers = {"accept": "application/json"}
        if client is not None:
            authenticate(client, server, form, headers)
        if dpop is not None:
            headers["dpop"] = dpop.proof("POST", server.token_endpoint)
        try:
            response = await http.post(server.token_endpoint, data=form, headers=headers)
        except httpx.HTTPError as exc:
            raise AuthorizationError(f"the token endpoint {server.token_endpoint} failed: {exc}") from exc
        answer = _json(response)
        if (
            dpop is not None
            and response.status_code in (400, 401)
            and answer.get("error") == "use_dpop_nonce"
            and dpop.remember_nonce(server.token_endpoint, response.headers.get("dpop-nonce"))
            and attempt == 0
        ):
            continue  # (RFC 9449 §8: the same request again, its proof carrying the server's nonce)
        if dpop is not None:
            dpop.remember_nonce(server.token_endpoint, response.headers.get("dpop-nonce"))
        if response.status_code != 200 or not isinstance(answer.get("access_token"), str):
            error = answer.get("error") or f"HTTP {response.status_code}"
            description = answer.get("error_description")
            raise AuthorizationError(
                f"the authorization server refused the {grant.get('grant_type')} grant: "
                f"{error}{f' ({description})' if description else ''}"
            )
        expires_in = answer.get("expires_in")
        scope = answer.get("scope") if isinstance(answer.get("scope"), str) else grant.get("scope")
        refresh = answer.get("refresh_token")
        return Tokens(
            access_token=answer["access_token"],
            token_type=str(answer.get("token_type") or "Bearer"),
            refresh_token=refresh if isinstance(refresh, str) else (previous.refresh_token if previous else None),
            expires_at=time.time() + expires_in if isinstance(expires_in, (int, float)) else None,
            scope=scope,
        )
    raise AssertionError("unreachable")  # (the loop returns or raises)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        value = response.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
