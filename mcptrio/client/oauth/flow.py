"""The part every OAuth client of an MCP server shares: an ``httpx.Auth`` that puts the token on
each request, and on a ``401`` discovers the authorization server and gets one; refreshes a token
before it expires, or when the server says it has; and steps up on ``403 insufficient_scope``.

How a token is got is the subclass's (``OAuth``: a user's login; ``ClientCredentials``: a
machine's own credentials).  One lock serialises logins and refreshes, so requests that meet a
401 together cause one login.  Tokens are kept in the ``TokenStore`` per (authorization server,
resource): two servers that are one resource of one authorization server share a login.  An index
entry per server URL names the pair its tokens are under, so a later run sends them without a
discovery round trip; a server whose resource metadata now names another authorization server is
given a token of that one (the index follows), never the old one's again.  Registrations are kept
per authorization server (never reused with another).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

import attrs
import httpx
import trio

from ..pooling import KEEPALIVE_EXPIRY
from ..tls import Verify, ssl_context
from .challenge import Challenge, challenge_of
from .errors import AuthorizationError
from .grants import Tokens, request_tokens
from .metadata import (
    ResourceMetadata,
    ServerMetadata,
    canonical,
    discover_resource,
    discover_server,
    http_twin,
    origin_of,
)
from .registration import Registration
from .store import MemoryTokenStore, TokenStore

if TYPE_CHECKING:
    from .dpop import DPoPKey

log = logging.getLogger("mcptrio.client.oauth")
MAX_STEP_UPS = 2  # re-authorizations for the same challenged scopes (the 401's login not counted)
STEP_UP_WINDOW = 300.0  # seconds they are remembered


@attrs.define
class Session:
    """What the client knows of one server's authorization, as kept in the store."""

    issuer: str
    resource: str
    tokens: Tokens
    scopes: list[str] = attrs.field(factory=list)  # what was asked for (step-up asks for these and more)
    dpop_key: str | None = attrs.field(default=None, repr=False)

    def to_json(self) -> str:
        return json.dumps(
            {
                "issuer": self.issuer,
                "resource": self.resource,
                "tokens": json.loads(self.tokens.to_json()),
                "scopes": self.scopes,
                "dpop_key": self.dpop_key,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Session | None:
        try:
            value = json.loads(text)
            tokens = Tokens.from_json(json.dumps(value["tokens"]))
            if tokens is None:
                return None
            return cls(
                value["issuer"], value["resource"], tokens, list(value.get("scopes") or []), value.get("dpop_key")
            )
        except (ValueError, TypeError, KeyError):
            return None


def tokens_key(issuer: str, resource: str) -> str:
    """Where the tokens one authorization server issued for one resource are kept."""
    return f"tokens {issuer} {canonical(resource)}"


def server_key(server_url: str) -> str:
    """Where the index entry of a server URL is kept: the (issuer, resource) its tokens are under
    (a ``ws(s)://`` URL as its ``http(s)://`` twin, whose origin has the resource metadata)."""
    return f"server {canonical(http_twin(server_url))}"


async def indexed(store: TokenStore, server_url: str) -> tuple[str, str] | None:
    """The (issuer, resource) a server URL's tokens are kept under, if it has an index entry."""
    stored = await store.get(server_key(server_url))
    try:
        value = json.loads(stored) if stored else None
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("issuer"), str) and isinstance(value.get("resource"), str):
        return value["issuer"], value["resource"]
    return None


async def kept_session(store: TokenStore, issuer: str, resource: str) -> Session | None:
    stored = await store.get(tokens_key(issuer, resource))
    session = Session.from_json(stored) if stored else None
    if session is None or session.issuer != issuer or canonical(session.resource) != canonical(resource):
        return None
    return session


def client_key(issuer: str) -> str:
    return f"client {issuer}"


class OAuthFlow(httpx.Auth):
    """Base of ``OAuth`` and ``ClientCredentials``; see the module's docstring."""

    def __init__(
        self, *, store: TokenStore | None = None, scope: str | None = None, dpop: bool = False, verify: Verify = True
    ) -> None:
        self.store: TokenStore = store if store is not None else MemoryTokenStore()
        self.scope = scope  # scopes the caller asks for besides what the server says it needs
        self.dpop = dpop
        self.verify = verify
        self.server_url: str | None = None
        self.session: Session | None = None
        self._loaded = False
        self._lock = trio.Lock()
        self._dpop_key: DPoPKey | None = None
        self._step_ups: dict[frozenset[str], list[float]] = {}  # challenged scopes -> when they were asked

    # -- what a subclass provides ------------------------------------------------------------------

    async def obtain(
        self, http: httpx.AsyncClient, server: ServerMetadata, resource: str, scopes: list[str], dpop: DPoPKey | None
    ) -> Tokens:
        """A new token for ``resource`` with ``scopes`` from this authorization server."""
        raise NotImplementedError

    def wants_offline_access(self) -> bool:
        return False

    # -- the httpx.Auth ----------------------------------------------------------------------------

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if self.server_url is None:
            self.server_url = str(request.url.copy_with(query=None, fragment=None))
        await self._load()
        if self.session is not None and self.session.tokens.expired():
            await self._refresh_or_obtain(self.session.tokens, None)
        used = self._sign(request)
        response = yield request
        unauthorized = 0
        while True:
            if response.status_code in (401, 403):
                # (read the refusal now, so its connection goes back to the pool before a login that
                # may take a while, and is dropped there as idle rather than reused once stale)
                await response.aread()
            challenge = challenge_of(response.headers.get_list("www-authenticate"))
            if response.status_code == 401:
                if (
                    self._dpop_key is not None
                    and challenge is not None
                    and challenge.error == "use_dpop_nonce"
                    and self._dpop_key.remember_nonce(str(request.url), response.headers.get("dpop-nonce"))
                ):
                    pass  # (RFC 9449 §9: the same request again with the server's nonce)
                else:
                    unauthorized += 1
                    if unauthorized > 2:
                        return
                    # (a refreshed token refused too: the authorization server may have changed)
                    await self._refresh_or_obtain(used, challenge, refresh=unauthorized == 1)
            elif response.status_code == 403 and challenge is not None and challenge.error == "insufficient_scope":
                if not self._may_step_up(challenge):
                    log.warning(
                        "%s still refuses the token after %d wider authorizations for %s: giving up",
                        self.server_url,
                        MAX_STEP_UPS,
                        " ".join(challenge.scopes) or "its scopes",
                    )
                    return
                await self._step_up(challenge)
            else:
                if self._dpop_key is not None:
                    self._dpop_key.remember_nonce(str(request.url), response.headers.get("dpop-nonce"))
                return
            used = self._sign(request)
            response = yield request

    def _may_step_up(self, challenge: Challenge) -> bool:
        """The spec's retry limit, kept per challenged scope set (not per request, which may be sent
        again): at most MAX_STEP_UPS wider authorizations for it within STEP_UP_WINDOW seconds."""
        now = time.monotonic()
        key = frozenset(challenge.scopes)
        recent = [t for t in self._step_ups.get(key, []) if now - t < STEP_UP_WINDOW]
        if len(recent) >= MAX_STEP_UPS:
            return False
        self._step_ups[key] = recent + [now]
        return True

    def _sign(self, request: httpx.Request) -> Tokens | None:
        tokens = self.session.tokens if self.session is not None else None
        if tokens is None:
            request.headers.pop("authorization", None)
            return None
        if tokens.token_type.lower() == "dpop" and self._dpop_key is not None:
            request.headers["authorization"] = f"DPoP {tokens.access_token}"
            request.headers["dpop"] = self._dpop_key.proof(
                request.method, str(request.url), access_token=tokens.access_token
            )
        else:
            request.headers["authorization"] = f"Bearer {tokens.access_token}"
        return tokens

    # -- tokens ------------------------------------------------------------------------------------

    async def _load(self) -> None:
        if self._loaded or self.server_url is None:
            return
        self._loaded = True
        where = await indexed(self.store, self.server_url)
        if where is not None:
            self._adopt(await kept_session(self.store, *where))

    def _adopt(self, session: Session | None) -> None:
        self.session = session
        if session is not None and session.dpop_key:
            from .dpop import DPoPKey

            self._dpop_key = DPoPKey(session.dpop_key)

    async def _save(self) -> None:
        """Keep the session's tokens under its (issuer, resource), and point the server's index there."""
        assert self.server_url is not None and self.session is not None
        session = self.session
        await self.store.set(tokens_key(session.issuer, session.resource), session.to_json())
        index = json.dumps({"issuer": session.issuer, "resource": canonical(session.resource)})
        if await self.store.get(server_key(self.server_url)) != index:
            await self.store.set(server_key(self.server_url), index)

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=30,
            trust_env=False,
            verify=ssl_context(self.verify),
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY),
        )

    async def _refresh_or_obtain(
        self, failed: Tokens | None, challenge: Challenge | None, *, refresh: bool = True
    ) -> None:
        async with self._lock:
            current = self.session.tokens if self.session is not None else None
            if current is not None and current is not failed:
                return  # (another request got a new token meanwhile)
            if refresh and failed is not None and failed.refresh_token and self.session is not None:
                try:
                    await self._refresh(self.session)
                    return
                except AuthorizationError as exc:
                    log.info("refreshing the token for %s failed (%s): logging in again", self.server_url, exc)
            await self._authorize(challenge, widen=False, failed=failed)

    async def _refresh(self, session: Session) -> None:
        async with self._client() as http:
            server = await discover_server(http, session.issuer, fallback=True)
            registration = await self._stored_registration(server.issuer)
            grant = {
                "grant_type": "refresh_token",
                "refresh_token": session.tokens.refresh_token or "",
                "resource": session.resource,
            }
            tokens = await request_tokens(
                http,
                server,
                registration.client if registration else None,
                grant,
                dpop=self._dpop_key if session.tokens.token_type.lower() == "dpop" else None,
                previous=session.tokens,
            )
        self.session = attrs.evolve(session, tokens=tokens)
        await self._save()
        log.info("refreshed the token for %s", self.server_url)

    async def _step_up(self, challenge: Challenge) -> None:
        async with self._lock:
            await self._authorize(challenge, widen=True)

    async def _authorize(self, challenge: Challenge | None, *, widen: bool, failed: Tokens | None = None) -> None:
        """Discover, choose the scopes, and get a token (under the lock): the one kept for this
        (authorization server, resource) when there is one not just refused, else a new one."""
        assert self.server_url is not None
        async with self._client() as http:
            resource = await discover_resource(
                http, self.server_url, challenge.resource_metadata if challenge else None
            )
            if resource is None:  # a 2025-03-26 server: its origin is its authorization server
                resource = ResourceMetadata(canonical(self.server_url), [origin_of(self.server_url)])
                server = await discover_server(http, resource.authorization_servers[0], fallback=True)
            else:
                server = await self._first_server(http, resource)
            if not widen and await self._reuse(server.issuer, resource.resource, failed):
                return
            previous = self.session.scopes if widen and self.session is not None else []
            scopes = choose_scopes(
                challenge,
                resource,
                server,
                previous=previous,
                extra=self.scope,
                offline_access=self.wants_offline_access(),
            )
            dpop = self._dpop_for(server)
            tokens = await self.obtain(http, server, resource.resource, scopes, dpop)
        self.session = Session(
            server.issuer,
            resource.resource,
            tokens,
            scopes,
            dpop.pem() if dpop is not None and tokens.token_type.lower() == "dpop" else None,
        )
        await self._save()

    async def _reuse(self, issuer: str, resource: str, failed: Tokens | None) -> bool:
        """Take the tokens kept for (issuer, resource) — another server's login, or this one's
        before its index pointed elsewhere — unless they are those just refused; refreshed if
        they have expired.  True when they are in use."""
        kept = await kept_session(self.store, issuer, resource)
        if kept is None or (failed is not None and kept.tokens.access_token == failed.access_token):
            return False
        self._adopt(kept)
        if kept.tokens.expired():
            if not kept.tokens.refresh_token:
                return False
            try:
                await self._refresh(kept)
            except AuthorizationError as exc:
                log.info("refreshing the kept token for %s failed (%s): logging in again", self.server_url, exc)
                return False
        else:
            await self._save()
        log.info("using the login kept for %s at %s", resource, issuer)
        return True

    async def _first_server(self, http: httpx.AsyncClient, resource: ResourceMetadata) -> ServerMetadata:
        errors = []
        for issuer in resource.authorization_servers:
            try:
                return await discover_server(http, issuer)
            except AuthorizationError as exc:
                errors.append(str(exc))
        raise AuthorizationError("; ".join(errors))

    def _dpop_for(self, server: ServerMetadata) -> DPoPKey | None:
        if not self.dpop:
            return None
        if "ES256" not in (server.dpop_signing_alg_values_supported or []):
            log.info("%s does not offer DPoP with ES256: using bearer tokens", server.issuer)
            return None
        if self._dpop_key is None:
            from .dpop import DPoPKey

            self._dpop_key = DPoPKey()
        return self._dpop_key

    async def _stored_registration(self, issuer: str) -> Registration | None:
        stored = await self.store.get(client_key(issuer))
        registration = Registration.from_json(stored) if stored else None
        return registration if registration is not None and registration.issuer == issuer else None

    async def logout(self, server_url: str | None = None) -> bool:
        """Forget the tokens the server's index entry points to (``server_url``, else the server in
        use), and the entry; True if there were any.  Servers sharing that login lose it too."""
        url = server_url or self.server_url
        if url is None:
            return False
        where = await indexed(self.store, url)
        if where is None:
            return False
        found = await self.store.get(tokens_key(*where)) is not None
        await self.store.delete(tokens_key(*where))
        await self.store.delete(server_key(url))
        if self.server_url is not None and server_key(url) == server_key(self.server_url):
            self.session = None
        return found


def choose_scopes(
    challenge: Challenge | None,
    resource: ResourceMetadata,
    server: ServerMetadata,
    *,
    previous: list[str],
    extra: str | None,
    offline_access: bool,
) -> list[str]:
    """The spec's scope selection: the challenge's ``scope``, else the resource's
    ``scopes_supported``, else none; on step-up, with what was asked before (SEP-2350); the
    caller's own; ``offline_access`` when the authorization server lists it (SEP-2207)."""
    chosen = list(previous)
    wanted = challenge.scopes if challenge is not None and challenge.scopes else (resource.scopes_supported or [])
    for scope in wanted + (extra.split() if extra else []):
        if scope not in chosen:
            chosen.append(scope)
    if offline_access and "offline_access" in (server.scopes_supported or []) and "offline_access" not in chosen:
        chosen.append("offline_access")
    return chosen
