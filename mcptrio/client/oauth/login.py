"""``OAuth``: a user's login to an MCP server — the authorization code grant with PKCE through a
loopback redirect, the client registered as the spec orders it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import httpx

from ..tls import Verify
from .authorization import authorization_request, code_of
from .errors import AuthorizationError, LoginRequired
from .flow import OAuthFlow, client_key
from .grants import ClientAuth, Tokens, request_tokens
from .loopback import loopback_redirect, open_browser
from .metadata import ServerMetadata
from .registration import Registration, auth_method, metadata_document_client, register_client
from .store import FileTokenStore, TokenStore

if TYPE_CHECKING:
    from .dpop import DPoPKey

log = logging.getLogger("mcptrio.client.oauth")
UserAgent = Callable[[str], Awaitable[None]]


class OAuth(OAuthFlow):
    """Log the user in when a server asks for a token (pass it as ``connect(url, auth=...)``).

    ``store``: where tokens and registrations are kept (default: ``FileTokenStore()``, files 0600
    in the user's config folder).  ``client_id`` / ``client_secret``: credentials registered with
    the authorization server beforehand (used first; with ``client_issuer``, only with that
    authorization server: another one is an error, not a leak); ``client_metadata_url``: the HTTPS URL of
    this client's Client ID Metadata Document, used where the server supports them; otherwise the
    client registers itself (RFC 7591) where the server allows it.  ``scope``: scopes to ask for
    besides those the server says it needs.  ``user_agent(url)``: sends the user to the
    authorization page (default: the browser, and the URL printed on stderr); the answer comes back
    to a listener on 127.0.0.1 (``redirect_port``, 0 for a free one) within ``timeout`` seconds.
    ``interactive=False``: never start a login; a server that needs one raises ``LoginRequired``
    (stored tokens are still used and refreshed).  ``dpop``: ask for DPoP-bound tokens where the
    authorization server offers them (RFC 9449).
    """

    def __init__(
        self,
        *,
        store: TokenStore | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_issuer: str | None = None,
        client_metadata_url: str | None = None,
        client_name: str = "mcptrio",
        scope: str | None = None,
        user_agent: UserAgent | None = None,
        redirect_port: int = 0,
        timeout: float = 300.0,
        interactive: bool = True,
        dpop: bool = False,
        offline_access: bool = True,
        verify: Verify = True,
    ) -> None:
        super().__init__(store=store if store is not None else FileTokenStore(), scope=scope, dpop=dpop, verify=verify)
        self.client_id = client_id
        self.client_secret = client_secret
        self.client_issuer = client_issuer
        self.client_metadata_url = client_metadata_url
        self.client_name = client_name
        self.user_agent = user_agent or open_browser
        self.redirect_port = redirect_port
        self.timeout = timeout
        self.interactive = interactive
        self.offline_access = offline_access

    def wants_offline_access(self) -> bool:
        return self.offline_access

    async def obtain(
        self, http: httpx.AsyncClient, server: ServerMetadata, resource: str, scopes: list[str], dpop: DPoPKey | None
    ) -> Tokens:
        if not self.interactive:
            raise LoginRequired(self.server_url or resource)
        async with loopback_redirect(self.redirect_port) as loopback:
            registration = await self.registration(http, server, loopback.redirect_uri)
            request = authorization_request(
                server,
                client_id=registration.client.client_id,
                redirect_uri=loopback.redirect_uri,
                resource=resource,
                scope=" ".join(scopes) or None,
            )
            log.info("logging in to %s at %s", self.server_url, server.issuer)
            await self.user_agent(request.url)
            callback = await loopback.callback(self.timeout)
        code = code_of(request, callback)
        grant = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": request.redirect_uri,
            "code_verifier": request.verifier,
            "resource": resource,
        }
        return await request_tokens(http, server, registration.client, grant, dpop=dpop)

    async def registration(self, http: httpx.AsyncClient, server: ServerMetadata, redirect_uri: str) -> Registration:
        """The spec's order: pre-registered credentials, a stored registration with this issuer, a
        Client ID Metadata Document, dynamic registration."""
        if self.client_id is not None:
            if self.client_issuer is not None and server.issuer != self.client_issuer:
                raise AuthorizationError(
                    f"the client id was registered with {self.client_issuer}, and the server now "
                    f"names {server.issuer} as its authorization server: not sending it there"
                )
            method = auth_method(server, has_secret=self.client_secret is not None)
            return Registration(server.issuer, ClientAuth(self.client_id, self.client_secret, method), [redirect_uri])
        stored = await self._stored_registration(server.issuer)
        if stored is not None:
            return stored
        if self.client_metadata_url is not None and server.client_id_metadata_document_supported:
            return metadata_document_client(server, self.client_metadata_url)
        if server.registration_endpoint is None:
            raise AuthorizationError(
                f"{server.issuer} offers neither Client ID Metadata Documents "
                f"{'' if self.client_metadata_url else '(and none was given) '}nor client "
                "registration: pass the client_id registered with it"
            )
        grant_types = ["authorization_code", "refresh_token"]
        registration = await register_client(
            http, server, client_name=self.client_name, redirect_uris=[redirect_uri], grant_types=grant_types
        )
        await self.store.set(client_key(server.issuer), registration.to_json())
        log.info("registered with %s as client %s", server.issuer, registration.client.client_id)
        return registration
