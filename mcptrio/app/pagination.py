"""Opaque cursors for the four list methods: a deterministic order, a page at a time.

A cursor is a position in the whole table, so a list filtered per caller (``visibility.py``) is
judged a page at a time, from where the last page stopped, not from the start.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import orjson

from ..protocol import errors

T = TypeVar("T")


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(orjson.dumps({"o": offset})).decode("ascii").rstrip("=")


def decode_cursor(cursor: Any) -> int:
    if not isinstance(cursor, str):
        raise errors.invalid_params('"cursor" must be a string returned by a previous list call')
    try:
        offset = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))["o"]
    except (ValueError, KeyError, TypeError):
        raise errors.invalid_params(f"invalid cursor {cursor[:64]!r}") from None
    if not isinstance(offset, int) or offset < 0:
        raise errors.invalid_params(f"invalid cursor {cursor[:64]!r}")
    return offset


def page(items: Sequence[T], params: dict[str, Any], size: int) -> tuple[Sequence[T], str | None]:
    """The page of ``items`` that ``params["cursor"]`` asks for, and the next cursor (or None)."""
    cursor = params.get("cursor")
    offset = 0 if cursor is None else decode_cursor(cursor)
    chunk = items[offset : offset + size]
    following = offset + size
    return chunk, (encode_cursor(following) if following < len(items) else None)


def page_kept(
    items: Sequence[T], params: dict[str, Any], size: int, keep: Callable[[T], bool]
) -> tuple[list[T], str | None]:
    """Like ``page``, of the items ``keep`` keeps: up to ``size`` of them from the cursor on, and the
    next cursor, at the next one kept (None: no more)."""
    cursor = params.get("cursor")
    index = 0 if cursor is None else decode_cursor(cursor)
    chunk: list[T] = []
    while index < len(items):
        item = items[index]
        if keep(item):
            if len(chunk) == size:
                return chunk, encode_cursor(index)
            chunk.append(item)
        index += 1
    return chunk, None
