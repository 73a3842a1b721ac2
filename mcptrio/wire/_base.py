"""Aliases shared by the wire types, and the rule that names an attribute on the wire.

An attribute's wire name is its camelCase name (``mime_type`` → ``mimeType``), ``meta`` is
``_meta``, and anything else (``$schema``, reverse-DNS ``_meta`` keys) is spelled with :func:`renamed`.
"""

from typing import Any, Literal

import attrs

RequestId = str | int
ProgressToken = str | int
Cursor = str
Role = Literal["user", "assistant"]
LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
CacheScope = Literal["private", "public"]
JSONObject = dict[str, Any]
"""A free JSON object: kept as the plain dict it arrived as."""
MetaObject = dict[str, Any]
"""A ``_meta`` object the schema does not type any further."""

WIRE_NAME = "mcptrio.wire.name"
NULL_IS_ABSENT = "mcptrio.wire.null_is_absent"


def renamed(wire_name: str, *, default: Any = None) -> Any:
    """An attribute whose wire name is not its camelCase name; optional unless given ``attrs.NOTHING``."""
    return attrs.field(default=default, metadata={WIRE_NAME: wire_name})


def null_is_absent() -> Any:
    """An optional attribute that also reads JSON ``null`` as absent (others reject ``null``)."""
    return attrs.field(default=None, metadata={NULL_IS_ABSENT: True})


def wire_name(attribute: "attrs.Attribute[Any]") -> str:
    """The key that carries ``attribute`` on the wire."""
    explicit: str | None = attribute.metadata.get(WIRE_NAME)
    if explicit is not None:
        return explicit
    if attribute.name == "meta":
        return "_meta"
    head, *rest = attribute.name.split("_")
    return head + "".join(part.capitalize() for part in rest)
