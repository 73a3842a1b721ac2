"""Opaque access tokens, checked by asking the authorization server (RFC 7662 introspection).

The resource server authenticates to the introspection endpoint as an OAuth client (HTTP Basic,
``client_secret_basic``).  An answer is cached under a hash of the token, never longer than the
token lives nor than ``max_cache`` seconds, so a revoked token stops working within that time.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

import httpx

from .cache import PrincipalCache
from .errors import AuthUnavailable, InvalidToken
from .jwt_verifier import principal_from_claims
from .principal import Principal

log = logging.getLogger("mcptrio.auth")


class IntrospectionVerifier:
    """Verifies opaque tokens at ``url`` for ``audience``, authenticating as ``client_id``."""

    def __init__(
        self,
        url: str,
        client_id: str,
        client_secret: str,
        audience: str,
        *,
        issuer: str | None = None,
        leeway: float = 30.0,
        max_cache: float = 60.0,
        cache_size: int = 10_000,
        timeout: float = 5.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = url
        self.audience = audience
        self.issuer = issuer
        self.leeway = leeway
        self._auth = (client_id, client_secret)
        self._http = http or httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self._cache = PrincipalCache(max_cache, cache_size)  # by sha256(token)
        self.introspections = 0  # requests made to the endpoint (for operators and tests)

    async def verify(self, token: str) -> Principal:
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        principal = self._cache.get(digest)
        if principal is None:
            principal = self._check(await self._introspect(token), time.time())
            self._cache.put(digest, principal)
        return principal

    async def _introspect(self, token: str) -> dict[str, Any]:
        self.introspections += 1
        try:
            response = await self._http.post(
                self.url,
                data={"token": token, "token_type_hint": "access_token"},
                auth=self._auth,
                headers={"accept": "application/json"},
            )
        except httpx.HTTPError as exc:
            log.warning("introspection at %s failed: %s", self.url, exc)
            raise AuthUnavailable("the authorization server could not be reached") from None
        if response.status_code != 200:
            # 401/403: our own client credentials are wrong; 5xx: the server's trouble.  Neither
            # says anything about the token, so neither lets it through nor calls it invalid.
            log.warning("introspection at %s answered %s: %s", self.url, response.status_code, response.text[:200])
            raise AuthUnavailable("the authorization server could not check the token")
        try:
            answer = response.json()
        except ValueError:
            raise AuthUnavailable("the authorization server's introspection answer is not JSON") from None
        if not isinstance(answer, dict):
            raise AuthUnavailable("the authorization server's introspection answer is not an object")
        return answer

    def _check(self, answer: dict[str, Any], now: float) -> Principal:
        if answer.get("active") is not True:
            raise InvalidToken("the token is not active (unknown, revoked or expired)")
        audiences = answer.get("aud")
        audiences = [audiences] if isinstance(audiences, str) else audiences if isinstance(audiences, list) else []
        if self.audience not in audiences:
            raise InvalidToken("the token is for another audience (resource)")
        issuer = answer.get("iss")
        if self.issuer is not None and issuer is not None and issuer != self.issuer:
            raise InvalidToken("the token was issued by another issuer")
        exp, nbf = answer.get("exp"), answer.get("nbf")
        if isinstance(exp, (int, float)) and exp < now - self.leeway:
            raise InvalidToken("the token has expired")
        if isinstance(nbf, (int, float)) and nbf > now + self.leeway:
            raise InvalidToken("the token is not valid yet")
        return principal_from_claims(answer, self.issuer or (issuer if isinstance(issuer, str) else ""))

    async def aclose(self) -> None:
        await self._http.aclose()
