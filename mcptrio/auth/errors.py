"""Why a request was not let in; the transports turn each into its challenge (``challenges``)."""

from __future__ import annotations


class AuthError(Exception):
    """A request without valid authorization (the message is safe to show the client)."""


class MissingToken(AuthError):
    """No bearer token: 401 with a challenge and no ``error`` attribute (RFC 6750 §3.1)."""


class InvalidRequest(AuthError):
    """A token sent the wrong way (in the query string, two at once, not ``Bearer``): 400."""


class InvalidToken(AuthError):
    """Malformed, badly signed, expired, not yet valid, another issuer's or another audience's: 401."""


class InsufficientScope(AuthError):
    """A valid token without every scope the operation needs: 403 naming all of them."""

    def __init__(self, needed: frozenset[str], message: str = "") -> None:
        super().__init__(message or f"this operation needs the scope(s) {' '.join(sorted(needed))}")
        self.needed = needed


class AuthUnavailable(AuthError):
    """The authorization server could not be reached to check a token: 503, retry later."""

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after
