"""Whether a tool's ``x-mcp-header`` annotations are ones a client over HTTP may mirror
(2026-07-28 ``server/tools.mdx``): a tool that breaks a rule is left out of the list, with a
warning naming it and the rule."""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 §5.1: 1*tchar
HEADER_TYPES = ("string", "integer", "boolean")


def header_problem(schema: Any) -> str | None:
    """What is wrong with the ``x-mcp-header`` annotations of an input schema; None if nothing."""
    seen: set[str] = set()

    def walk(node: Any, path: str) -> str | None:
        properties = node.get("properties") if isinstance(node, dict) else None
        for key, prop in (properties or {}).items():
            if not isinstance(prop, dict):
                continue
            where = f"{path}{key}"
            if "x-mcp-header" in prop:
                name = prop["x-mcp-header"]
                if not isinstance(name, str) or not name:
                    return f"the x-mcp-header of {where} is empty"
                if not _TOKEN.fullmatch(name):
                    return f"the x-mcp-header of {where} ({name!r}) is not an HTTP header token"
                if name.lower() in seen:
                    return f"the x-mcp-header {name!r} is used twice"
                seen.add(name.lower())
                declared = prop.get("type")
                kinds = [t for t in ([declared] if isinstance(declared, str) else declared or []) if t != "null"]
                if len(kinds) != 1 or kinds[0] not in HEADER_TYPES:
                    return (
                        f"the x-mcp-header of {where} is on a parameter of type {declared!r} "
                        "(only string, integer and boolean ones, or null, may be mirrored)"
                    )
            found = walk(prop, where + ".")
            if found:
                return found
        return None

    return walk(schema, "")
