"""``ClientCredentials``: a program's own token, without a user — the client credentials grant with a
secret or a private-key JWT (RFC 7523), or a JWT-bearer assertion a workload was given (RFC 7523
§2.1, workload identity federation)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ..tls import Verify
from .flow import OAuthFlow
from .grants import JWT_BEARER, ClientAuth, Tokens, request_tokens
from .metadata import ServerMetadata
from .registration import auth_method
from .store import MemoryTokenStore, TokenStore

if TYPE_CHECKING:
    from .dpop import DPoPKey


class ClientCredentials(OAuthFlow):
    """Get a token with the client's own credentials when a server asks for one.

    ``client_secret``: authenticate with it (Basic, or the form where the server only takes that);
    ``private_key`` (PEM) and ``algorithm``: sign a ``private_key_jwt`` assertion instead;
    ``assertion``: use the JWT-bearer grant with this assertion (from the workload's identity
    provider) instead of the client credentials grant.  ``store``: default in memory (a machine
    gets a new token at each start).
    """

    def __init__(
        self,
        client_id: str,
        *,
        client_secret: str | None = None,
        private_key: str | None = None,
        algorithm: str = "ES256",
        assertion: str | None = None,
        scope: str | None = None,
        store: TokenStore | None = None,
        dpop: bool = False,
        verify: Verify = True,
    ) -> None:
        super().__init__(
            store=store if store is not None else MemoryTokenStore(), scope=scope, dpop=dpop, verify=verify
        )
        self.client_id = client_id
        self.client_secret = client_secret
        self.private_key = private_key
        self.algorithm = algorithm
        self.assertion = assertion

    def client_auth(self, server: ServerMetadata) -> ClientAuth:
        if self.private_key is not None:
            return ClientAuth(
                self.client_id, method="private_key_jwt", private_key=self.private_key, algorithm=self.algorithm
            )
        method = auth_method(server, has_secret=self.client_secret is not None)
        return ClientAuth(self.client_id, self.client_secret, method)

    async def obtain(
        self, http: httpx.AsyncClient, server: ServerMetadata, resource: str, scopes: list[str], dpop: DPoPKey | None
    ) -> Tokens:
        if self.assertion is not None:
            grant = {"grant_type": JWT_BEARER, "assertion": self.assertion, "resource": resource}
        else:
            grant = {"grant_type": "client_credentials", "resource": resource}
        if scopes:
            grant["scope"] = " ".join(scopes)
        return await request_tokens(http, server, self.client_auth(server), grant, dpop=dpop)
