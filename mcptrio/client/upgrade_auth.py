"""Authorization on a WebSocket's upgrade request, the one HTTP request a WebSocket connection makes.

A bearer token (or the callable giving one) goes in its ``Authorization`` header.  An ``httpx.Auth``
(``mcptrio.client.oauth.OAuth``, ``ClientCredentials``, a user's own) is driven as httpx would drive
it, with the upgrade as its request at the ``http(s)://`` twin of the ``ws(s)://`` URL: its headers
go on the upgrade, and a refusal (401, or 403 ``insufficient_scope``) goes back to it, so the same
discovery, login, refresh and step-up as over HTTP give the next upgrade its token.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..protocol.errors import McpError
from .oauth.metadata import http_twin

if TYPE_CHECKING:
    import httpx

Token = str | Callable[[], Awaitable[str]]
SENT = ("authorization", "dpop")  # the auth's headers that go on the upgrade


class UpgradeAuth:
    def __init__(self, url: str, token: Token | httpx.Auth | None) -> None:
        self.url = url
        self.token = token
        self._flow: AsyncGenerator[httpx.Request, httpx.Response] | None = None
        self._request: httpx.Request | None = None

    async def headers(self) -> list[tuple[bytes, bytes]]:
        """The headers of the next upgrade request."""
        token = self.token
        if token is None:
            return []
        if isinstance(token, str):
            return [(b"authorization", f"Bearer {token}".encode())]
        if callable(token):
            return [(b"authorization", f"Bearer {await token()}".encode())]
        if self._request is None:
            import httpx

            self._flow = token.async_auth_flow(httpx.Request("GET", http_twin(self.url)))
            self._request = await self._step(self._flow.__anext__())
        assert self._request is not None
        return [(name.encode(), value.encode()) for name, value in self._request.headers.items() if name in SENT]

    async def refused(self, refusal: Any) -> bool:
        """The upgrade was refused (a trio-websocket ``HandshakeError``): True when the auth has
        new headers for another one (it got a token, refreshed one, or stepped up)."""
        status = getattr(refusal, "status_code", None)
        if self._flow is None or self._request is None or status not in (401, 403):
            return False
        import httpx

        response = httpx.Response(
            status, headers=getattr(refusal, "headers", None) or [], content=refusal.body or b"", request=self._request
        )
        try:
            self._request = await self._step(self._flow.asend(response))
        except StopAsyncIteration:
            return False
        return True

    async def accepted(self) -> None:
        """The upgrade went through: the auth's flow is over."""
        if self._flow is not None:
            await self._flow.aclose()

    async def _step(self, step: Awaitable[httpx.Request]) -> httpx.Request:
        """A step of the auth's flow; a token that could not be had is the error an HTTP request
        gets for it (``data.authorization``), as ``connect`` raises it; a login needed names the
        ``ws(s)://`` URL to log in to."""
        from .oauth.errors import AuthorizationError, LoginRequired

        try:
            return await step
        except AuthorizationError as exc:
            message = str(LoginRequired(self.url)) if isinstance(exc, LoginRequired) else str(exc)
            raise McpError(-32000, message, {"authorization": True}) from exc
