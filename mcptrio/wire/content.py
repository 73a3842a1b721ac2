"""Content blocks (text, image, audio, resource links, embedded resources, tool use/result).

The unions are told apart by their ``type`` field; ResourceContents by ``blob`` versus ``text``.
Binary ``data`` and ``blob`` are ``bytes`` here and standard base64 on the wire.
"""

from typing import Any, Literal

import attrs

from ._base import JSONObject, MetaObject
from .common import Annotations, Icon


@attrs.frozen(kw_only=True)
class TextResourceContents:
    """The text of a resource."""

    uri: str
    text: str
    mime_type: str | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class BlobResourceContents:
    """The binary contents of a resource."""

    uri: str
    blob: bytes
    mime_type: str | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


ResourceContents = TextResourceContents | BlobResourceContents


@attrs.frozen(kw_only=True)
class TextContent:
    """Text given to or produced by an LLM."""

    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ImageContent:
    """An image given to or produced by an LLM."""

    type: Literal["image"] = "image"
    data: bytes
    mime_type: str
    annotations: Annotations | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class AudioContent:
    """Audio given to or produced by an LLM."""

    type: Literal["audio"] = "audio"
    data: bytes
    mime_type: str
    annotations: Annotations | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResourceLink:
    """A resource the server can read, referenced from a prompt or tool result."""

    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class EmbeddedResource:
    """The contents of a resource, embedded into a prompt or tool result."""

    type: Literal["resource"] = "resource"
    resource: ResourceContents
    annotations: Annotations | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


@attrs.frozen(kw_only=True)
class ToolUseContent:
    """A request from the LLM to call a tool (sampling with tools)."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: JSONObject
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ToolResultContent:
    """The result of a tool use, handed back to the LLM (sampling with tools)."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: list[ContentBlock]
    structured_content: Any = None
    is_error: bool | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


SamplingMessageContentBlock = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent
SamplingContent = SamplingMessageContentBlock | list[SamplingMessageContentBlock]
"""The ``content`` of a sampling message or result: one block, or an array of them."""
