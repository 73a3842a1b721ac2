"""Tools: their definition (Tool, ToolAnnotations) and the results of ``tools/list`` and ``tools/call``.

``inputSchema``, ``outputSchema`` and ``structuredContent`` are free JSON and stay plain Python values.
"""

from typing import Any

import attrs

from ._base import CacheScope, JSONObject, MetaObject
from .common import Icon, ResultMeta
from .content import ContentBlock


@attrs.frozen(kw_only=True)
class ToolAnnotations:
    """Hints about a tool's behaviour; never to be trusted from an untrusted server."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Tool:
    """A tool the client can call."""

    name: str
    input_schema: JSONObject
    title: str | None = None
    description: str | None = None
    output_schema: JSONObject | None = None
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListToolsResult:
    """The server's answer to ``tools/list``."""

    tools: list[Tool]
    next_cursor: str | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CallToolResult:
    """The server's answer to ``tools/call``; tool errors are reported here with ``is_error``."""

    content: list[ContentBlock]
    structured_content: Any = None
    is_error: bool | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
