"""Small types used everywhere: Icon, Annotations, Implementation, the typed ``_meta`` objects, Result.

The ``_meta`` classes name the reverse-DNS keys of 2026-07-28; in legacy revisions ``_meta`` is a
free object, whose keys all land in ``extra`` except ``progressToken``.
"""

from typing import Any, Literal

import attrs

from ._base import LoggingLevel, ProgressToken, RequestId, Role, renamed
from .capabilities import ClientCapabilities


@attrs.frozen(kw_only=True)
class Icon:
    """An icon for display in a user interface."""

    src: str
    mime_type: str | None = None
    sizes: list[str] | None = None
    theme: Literal["light", "dark"] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Annotations:
    """Hints to the client about how to use or show an object."""

    audience: list[Role] | None = None
    priority: float | None = None
    last_modified: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Implementation:
    """The name and version of an MCP client or server."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    icons: list[Icon] | None = None
    website_url: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class RequestMeta:
    """The ``_meta`` of a client request; 2026-07-28 carries the session-less handshake here."""

    protocol_version: str | None = renamed("io.modelcontextprotocol/protocolVersion")
    client_capabilities: ClientCapabilities | None = renamed("io.modelcontextprotocol/clientCapabilities")
    client_info: Implementation | None = renamed("io.modelcontextprotocol/clientInfo")
    log_level: LoggingLevel | None = renamed("io.modelcontextprotocol/logLevel")
    progress_token: ProgressToken | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class NotificationMeta:
    """The ``_meta`` of a notification; names the ``subscriptions/listen`` stream it belongs to."""

    subscription_id: RequestId | None = renamed("io.modelcontextprotocol/subscriptionId")
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResultMeta:
    """The ``_meta`` of a server result."""

    server_info: Implementation | None = renamed("io.modelcontextprotocol/serverInfo")
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Result:
    """A result with nothing in it but ``_meta`` (and ``resultType`` in 2026-07-28): EmptyResult."""

    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


EmptyResult = Result
