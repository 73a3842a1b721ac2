"""JWT access tokens (RFC 9068), verified locally against the issuer's published keys.

Keys come from the JWKS the issuer's metadata names (RFC 8414, falling back to OpenID discovery)
or from an explicit JWKS URL, and are cached by ``kid``.  A token signed with a key not in the
cache refetches the JWKS, but at most once per ``refetch_interval``: a flood of made-up ``kid``s
costs the authorization server one request per interval, not one per token.

Only the asymmetric algorithms of the allow-list are accepted (never ``none``, never an HMAC,
so a public key can't be used as a shared secret); ``typ`` must be ``at+jwt``; ``iss`` must be
the issuer, ``aud`` must contain this resource (RFC 8707: a token minted for another server is
refused, so it can't be passed through), ``exp`` and ``nbf`` are checked with a small leeway.
The signature and claims are checked by PyJWT with ``cryptography``; nothing here is crypto.

A token that verified is remembered (by its text) until it expires, for at most ``cache_for``
seconds: a client sends the same token with every request, and checking an RS256 signature
again each time would cost more than the rest of the request's handling.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import jwt
import trio

from .cache import PrincipalCache
from .errors import AuthUnavailable, InvalidToken
from .principal import Principal

log = logging.getLogger("mcptrio.auth")

ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")

# PyJWT's verdicts, as the client reads them in error_description
REASONS: list[tuple[type[Exception], str]] = [
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet"),
    (jwt.InvalidIssuerError, "the token was issued by another issuer"),
    (jwt.InvalidAudienceError, "the token is for another audience (resource)"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.InvalidAlgorithmError, "the token's algorithm is not accepted"),
    (jwt.DecodeError, "the token is malformed"),
]


class JwtVerifier:
    """Verifies RFC 9068 JWT access tokens of ``issuer`` for ``audience`` (this server's URL)."""

    def __init__(
        self,
        issuer: str,
        audience: str,
        *,
        jwks_url: str | None = None,
        algorithms: tuple[str, ...] = ASYMMETRIC,
        leeway: float = 30.0,
        refetch_interval: float = 30.0,
        timeout: float = 5.0,
        http: httpx.AsyncClient | None = None,
        cache_for: float = 60.0,
        cache_size: int = 10_000,
    ) -> None:
        unsafe = [a for a in algorithms if a not in ASYMMETRIC]
        if unsafe:
            raise ValueError(f"only asymmetric algorithms may verify access tokens, not {', '.join(unsafe)}")
        self.issuer = issuer
        self.audience = audience
        self.jwks_url = jwks_url
        self.algorithms = algorithms
        self.leeway = leeway
        self.refetch_interval = refetch_interval
        self._http = http or httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._last_attempt: float | None = None  # Trio clock of the last JWKS fetch (ok or not)
        self._last_failed = False
        self._lock = trio.Lock()
        self.jwks_fetches = 0  # how many times the JWKS was requested (for operators and tests)
        self._verified = PrincipalCache(cache_for, cache_size)

    async def verify(self, token: str) -> Principal:
        principal = self._verified.get(token)
        if principal is None:
            principal = await self._verify(token)
            self._verified.put(token, principal)
        return principal

    async def _verify(self, token: str) -> Principal:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the token is malformed (not a JWT)") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise InvalidToken(f"the token's algorithm {str(alg)[:20]!r} is not accepted")
        if str(header.get("typ", "")).lower() not in ACCESS_TOKEN_TYPES:
            raise InvalidToken("the token is not a JWT access token (typ must be at+jwt)")
        kid = header.get("kid")
        key = await self._key(kid if isinstance(kid, str) else None)
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidToken(f"the token lacks the {exc.claim} claim") from None
        except jwt.PyJWTError as exc:
            raise InvalidToken(
                next((why for kind, why in REASONS if isinstance(exc, kind)), "the token is invalid")
            ) from None
        return principal_from_claims(claims, self.issuer)

    async def _key(self, kid: str | None) -> jwt.PyJWK:
        key = self._known(kid)
        if key is not None:
            return key
        async with self._lock:  # one fetch at a time; who waited finds the new keys
            key = self._known(kid)
            if key is not None:
                return key
            now = trio.current_time()
            recent = self._last_attempt is not None and now - self._last_attempt < self.refetch_interval
            if not recent:
                self._last_attempt = now
                await self._fetch()
                key = self._known(kid)
                if key is not None:
                    return key
            if self._last_failed or not self._keys:
                wait = self.refetch_interval - (now - (self._last_attempt or now))
                raise AuthUnavailable(
                    "the authorization server's keys could not be fetched", retry_after=max(1, int(wait) + 1)
                )
            raise InvalidToken("the token is signed with an unknown key")

    def _known(self, kid: str | None) -> jwt.PyJWK | None:
        if kid is None:  # no kid: acceptable only when the issuer has a single key
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _fetch(self) -> None:
        self.jwks_fetches += 1
        try:
            url = self.jwks_url or await self._discover_jwks_url()
            response = await self._http.get(url, headers={"accept": "application/json"})
            response.raise_for_status()
            keys = jwt.PyJWKSet.from_dict(response.json()).keys
        except (httpx.HTTPError, ValueError, jwt.PyJWTError) as exc:
            log.warning("cannot fetch the JWKS of %s: %s", self.issuer, exc)
            self._last_failed = True
            return
        self._keys = {
            key.key_id: key
            for key in keys
            if key.key_type in ("RSA", "EC", "OKP") and key.public_key_use in (None, "sig")
        }
        self._last_failed = False

    async def _discover_jwks_url(self) -> str:
        for url in metadata_urls(self.issuer):
            response = await self._http.get(url, headers={"accept": "application/json"})
            if response.status_code >= 500:
                response.raise_for_status()
            if response.status_code != 200:
                continue
            document = response.json()
            if document.get("issuer") != self.issuer:  # RFC 8414 §3.3
                raise ValueError(f"metadata at {url} names another issuer: {document.get('issuer')!r}")
            jwks_uri = document.get("jwks_uri")
            if isinstance(jwks_uri, str):
                self.jwks_url = jwks_uri
                return jwks_uri
        raise ValueError(f"no authorization server metadata with a jwks_uri for {self.issuer}")

    async def aclose(self) -> None:
        await self._http.aclose()


def metadata_urls(issuer: str) -> list[str]:
    """RFC 8414's path-inserted metadata URL, then OpenID discovery's appended one."""
    parsed = httpx.URL(issuer)
    path = parsed.path.rstrip("/")
    origin = f"{parsed.scheme}://{parsed.netloc.decode()}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{issuer.rstrip('/')}/.well-known/openid-configuration",
    ]


def principal_from_claims(claims: dict[str, Any], issuer: str) -> Principal:
    """RFC 9068 claims (or an introspection answer) as a Principal."""
    client_id = claims.get("client_id") or claims.get("azp")
    subject = claims.get("sub") or client_id
    if not isinstance(subject, str) or not subject:
        raise InvalidToken("the token names no subject (sub) or client (client_id)")
    exp = claims.get("exp")
    return Principal(
        subject=subject,
        client_id=client_id if isinstance(client_id, str) else None,
        scopes=scopes_of(claims),
        expires_at=float(exp) if isinstance(exp, (int, float)) else None,
        issuer=issuer,
        claims=claims,
    )


def scopes_of(claims: dict[str, Any]) -> frozenset[str]:
    """``scope`` (space-separated, RFC 9068) or ``scp`` (a list or a string, some issuers)."""
    value = claims.get("scope", claims.get("scp"))
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(s for s in value if isinstance(s, str))
    return frozenset()
