"""Authorization: mcptrio as an OAuth 2.1 resource server (the spec's ``basic/authorization``).

Below the app layer and above the runtime: the transports verify a request's bearer token
(``verifier``), answer challenges (``challenges``) and serve the Protected Resource Metadata
(``metadata``); the app checks scopes per tool, prompt and resource (``scopes``) and hands
handlers the ``Principal``.  Nothing here imports the transports, the app or the runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

if TYPE_CHECKING:
    from .config import AuthConfig
    from .errors import AuthError, AuthUnavailable, InsufficientScope, InvalidToken
    from .principal import Principal
    from .scopes import ScopePolicy
    from .verifier import TokenVerifier

__all__ = [
    "AuthConfig",
    "AuthError",
    "AuthUnavailable",
    "InsufficientScope",
    "InvalidToken",
    "Principal",
    "ScopePolicy",
    "TokenVerifier",
]

# Each imported on first use: a server without authorization (every stdio server) loads none.
__getattr__ = lazy_names(
    __name__,
    {
        ".config": ("AuthConfig",),
        ".errors": ("AuthError", "AuthUnavailable", "InsufficientScope", "InvalidToken"),
        ".principal": ("Principal",),
        ".scopes": ("ScopePolicy",),
        ".verifier": ("TokenVerifier",),
    },
)
