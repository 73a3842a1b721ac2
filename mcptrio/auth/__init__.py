"""Authorization: mcptrio as an OAuth 2.1 resource server (the spec's ``basic/authorization``).

Below the app layer and above the runtime: the transports verify a request's bearer token
(``verifier``), answer challenges (``challenges``) and serve the Protected Resource Metadata
(``metadata``); the app checks scopes per tool, prompt and resource (``scopes``) and hands
handlers the ``Principal``.  Nothing here imports the transports, the app or the runtime.
"""

from .config import AuthConfig
from .errors import AuthError, AuthUnavailable, InsufficientScope, InvalidToken
from .principal import Principal
from .scopes import ScopePolicy
from .verifier import TokenVerifier

__all__ = ["AuthConfig", "AuthError", "AuthUnavailable", "InsufficientScope", "InvalidToken", "Principal",
           "ScopePolicy", "TokenVerifier"]
