"""Content helpers for handler results: text, image, audio, embedded resources, resource links.

Each returns the wire object (``mcptrio.wire``); return one, or a list of them, from a tool or
as a prompt message's content.  Binary data is given as ``bytes`` and sent base64-encoded.
"""

from __future__ import annotations

from typing import Any

from ..wire import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)


def text(value: str) -> TextContent:
    return TextContent(text=value)


def image(data: bytes, mime_type: str = "image/png") -> ImageContent:
    return ImageContent(data=data, mime_type=mime_type)


def audio(data: bytes, mime_type: str = "audio/wav") -> AudioContent:
    return AudioContent(data=data, mime_type=mime_type)


def embedded_text(uri: str, value: str, mime_type: str | None = "text/plain") -> EmbeddedResource:
    return EmbeddedResource(resource=TextResourceContents(uri=uri, text=value, mime_type=mime_type))


def embedded_blob(uri: str, data: bytes, mime_type: str | None = "application/octet-stream") -> EmbeddedResource:
    return EmbeddedResource(resource=BlobResourceContents(uri=uri, blob=data, mime_type=mime_type))


def resource_link(uri: str, name: str, **fields: Any) -> ResourceLink:
    """A link the client may read later; ``fields``: title, description, mime_type, size."""
    return ResourceLink(uri=uri, name=name, **fields)


__all__ = ["audio", "embedded_blob", "embedded_text", "image", "resource_link", "text"]
