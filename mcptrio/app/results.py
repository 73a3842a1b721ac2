"""Turning what a handler returns into the result objects MCP puts on the wire."""

from __future__ import annotations

from typing import Any

import attrs
import orjson

CONTENT_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})


def to_json(value: Any) -> Any:
    """attrs wire objects, also inside dicts and lists → plain JSON values."""
    if attrs.has(type(value)):
        from .. import wire

        return wire.unstructure(value)
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


def is_content(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("type") in CONTENT_TYPES
    kind = getattr(value, "type", None)  # first: cheaper than attrs.has for the usual str or dict
    return isinstance(kind, str) and kind in CONTENT_TYPES and attrs.has(type(value))


def is_content_value(value: Any) -> bool:
    """A content block, or a non-empty list of them (strings allowed among them)."""
    if is_content(value):
        return True
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and any(is_content(v) for v in value)
        and all(is_content(v) or isinstance(v, str) for v in value)
    )


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def content_list(value: Any) -> list[dict[str, Any]] | None:
    """``value`` as a list of content blocks, or None when it is not content."""
    if value is None:
        return []
    if isinstance(value, str):
        return [text_block(value)]
    if is_content(value):
        return [to_json(value)]
    if isinstance(value, (list, tuple)) and value and all(is_content(v) or isinstance(v, str) for v in value):
        return [text_block(v) if isinstance(v, str) else to_json(v) for v in value]
    return None


def json_text(value: Any) -> str:
    return orjson.dumps(value).decode()


def is_call_tool_result(value: Any) -> bool:
    return type(value).__name__ == "CallToolResult" and attrs.has(type(value))


# Content types newer than the first revision, and the revision that introduced each.
CONTENT_SINCE = {"audio": "2025-03-26", "resource_link": "2025-06-18"}
NEWEST_CONTENT_VERSION = max(CONTENT_SINCE.values())


def for_version(content: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
    """Content a client of ``version`` can parse: newer block types become a text block saying so."""
    out = []
    for block in content:
        since = CONTENT_SINCE.get(block.get("type"))  # type: ignore[arg-type]  # (no type: None)
        if since is None or version >= since:
            out.append(block)
        elif block["type"] == "resource_link":
            out.append(text_block(f"resource: {block.get('uri')}"))
        else:
            out.append(
                text_block(f"[{block['type']} content ({block.get('mimeType', '?')}) needs protocol {since} or later]")
            )
    return out
