"""What a handler may know of the HTTP request that carried its message (``ctx.http``).

The HTTP transport, which sits above the app, makes one per POST that dispatches a request and
hands it on with each (``IncomingRequest.http``).  A request that came over stdio, WebSocket, the
2024-11-05 HTTP+SSE transport (its messages reach a stream, not a request) or in memory has none.
The headers are decoded when a handler first reads them, so a request whose handler never looks
costs the transport one small object.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import attrs

from ..auth.principal import Principal
from ..protocol.errors import McpError


@attrs.frozen
class HttpRequest:
    """The HTTP request a message arrived in: its headers, the client's address (behind a trusted
    proxy, the one it forwarded for) and the principal of its bearer token (None without
    authorization)."""

    raw_headers: Mapping[bytes, bytes]  # as the server read them: lower-case names, the last of a repeated one
    client_address: str | None = None
    principal: Principal | None = None
    # A tools/call whose Mcp-Param-* headers do not match its tool's arguments, where the tool may be
    # hidden from the caller: the app answers it once it has found the tool there for the caller.
    param_mismatch: McpError | None = attrs.field(default=None, repr=False)

    @functools.cached_property
    def headers(self) -> Mapping[str, str]:
        """The headers as text: lower-case names, values decoded as Latin-1 (HTTP's own)."""
        return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in self.raw_headers.items()}
