"""OAuth for the client: a token got, kept and renewed when an MCP server asks for one.

    auth = mcptrio.client.oauth.OAuth()            # a user's login (browser, loopback redirect)
    auth = mcptrio.client.oauth.ClientCredentials("my-service", client_secret="...")   # a machine
    auth = mcptrio.client.oauth.EnterpriseLogin(...)  # an enterprise IdP's ID token (SEP-990)
    async with mcptrio.client.connect(url, auth=auth) as client: ...

Per the 2025-11-25 and 2026-07-28 authorization pages: RFC 9728 and RFC 8414 / OpenID discovery,
Client ID Metadata Documents, pre-registration or RFC 7591 registration, PKCE S256, RFC 8707
resource indicators, RFC 9207 issuer checks, refresh, step-up on ``insufficient_scope``, DPoP
(RFC 9449) where asked for.  JOSE by PyJWT, HTTP by httpx.
"""

from .enterprise import EnterpriseLogin
from .errors import AuthorizationError, LoginRequired
from .flow import OAuthFlow
from .login import OAuth
from .loopback import open_browser
from .machine import ClientCredentials
from .store import FileTokenStore, MemoryTokenStore, TokenStore

__all__ = [
    "AuthorizationError",
    "ClientCredentials",
    "EnterpriseLogin",
    "FileTokenStore",
    "LoginRequired",
    "MemoryTokenStore",
    "OAuth",
    "OAuthFlow",
    "TokenStore",
    "open_browser",
]
