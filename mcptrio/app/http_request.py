"""What a handler may know of the HTTP request that carried its message (``ctx.http``).

The HTTP transport, which sits above the app, makes one per POST and hands it on with each
request it dispatches (``IncomingRequest.http``); a request that came over stdio, in memory or
over WebSocket has none.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..auth.principal import Principal


@attrs.frozen
class HttpRequest:
    """The HTTP request a message arrived in: its headers (names in lower case, values decoded as
    Latin-1, the last of a repeated header), the client's address (behind a trusted proxy, the one
    it forwarded for) and the principal of its bearer token (None without authorization)."""

    headers: Mapping[str, str]
    client_address: str | None = None
    principal: Principal | None = None
    method: str = "POST"
    path: str = "/mcp"

    @classmethod
    def of(
        cls,
        raw_headers: Mapping[bytes, bytes],
        client_address: str | None,
        principal: Principal | None,
        method: str,
        path: str,
    ) -> HttpRequest:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in raw_headers.items()}
        return cls(headers, client_address, principal, method, path)
