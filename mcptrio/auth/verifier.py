"""The ``TokenVerifier`` protocol: a bearer token in, a ``Principal`` out, or why not."""

from __future__ import annotations

from typing import Protocol

from .principal import Principal


class TokenVerifier(Protocol):
    """Checks an access token for this resource server.

    ``verify`` returns the principal, raises ``InvalidToken`` (with a description the client may
    see) for a token that is not good here, or ``AuthUnavailable`` when it cannot tell (the
    authorization server is down).  It never lets a token through on doubt.
    """

    async def verify(self, token: str) -> Principal: ...

    async def aclose(self) -> None: ...
