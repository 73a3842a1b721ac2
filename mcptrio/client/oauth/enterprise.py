"""``EnterpriseLogin``: enterprise-managed authorization (SEP-990, an extension): the user's ID
token from the enterprise identity provider is traded there for an ID-JAG (RFC 8693 token
exchange), and the ID-JAG for an access token at the MCP server's authorization server (the
JWT-bearer grant of RFC 7523), the client authenticated there with its own credentials."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ..tls import Verify
from .errors import AuthorizationError
from .grants import Tokens
from .machine import ClientCredentials
from .metadata import ServerMetadata
from .store import TokenStore

if TYPE_CHECKING:
    from .dpop import DPoPKey

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class EnterpriseLogin(ClientCredentials):
    """``id_token``: the user's ID token from the identity provider, whose token endpoint is
    ``idp_token_endpoint`` and which knows this client as ``idp_client_id``; ``client_id`` and
    ``client_secret``: the client at the MCP server's authorization server."""

    def __init__(
        self,
        client_id: str,
        *,
        client_secret: str | None = None,
        id_token: str,
        idp_token_endpoint: str,
        idp_client_id: str,
        scope: str | None = None,
        store: TokenStore | None = None,
        verify: Verify = True,
    ) -> None:
        super().__init__(client_id, client_secret=client_secret, scope=scope, store=store, verify=verify)
        self.id_token = id_token
        self.idp_token_endpoint = idp_token_endpoint
        self.idp_client_id = idp_client_id

    async def obtain(
        self, http: httpx.AsyncClient, server: ServerMetadata, resource: str, scopes: list[str], dpop: DPoPKey | None
    ) -> Tokens:
        form = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "audience": server.issuer,
            "resource": resource,
            "subject_token": self.id_token,
            "subject_token_type": ID_TOKEN,
            "client_id": self.idp_client_id,
        }
        if scopes:
            form["scope"] = " ".join(scopes)
        try:
            response = await http.post(self.idp_token_endpoint, data=form, headers={"accept": "application/json"})
            answer = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise AuthorizationError(f"the identity provider's token exchange failed: {exc}") from exc
        grant = answer.get("access_token") if isinstance(answer, dict) else None
        if response.status_code != 200 or not isinstance(grant, str):
            error = answer.get("error_description") or answer.get("error") if isinstance(answer, dict) else None
            raise AuthorizationError(
                f"the identity provider refused the token exchange: {error or f'HTTP {response.status_code}'}"
            )
        self.assertion = grant
        return await super().obtain(http, server, resource, scopes, dpop)
