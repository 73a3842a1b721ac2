"""Route maps: which operations become tools, which resources (or resource templates), which are left out.

Each map matches by HTTP method, a regular expression searched in the path, and tags (any one of
them); the first map that matches an operation decides, and without one it is a tool.  ``resource``
applies to GETs only: one with path parameters becomes a resource template whose variables are
those parameters (and needs no other required argument), else a resource.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import attrs

from .operations import Operation

KINDS = ("tool", "resource", "exclude")
KEYS = ("kind", "methods", "path", "tags")


class RouteMapError(ValueError):
    """A route map that cannot be used: one line naming it."""


@attrs.frozen
class RouteMap:
    kind: str
    methods: frozenset[str] = frozenset()  # empty: any
    path: re.Pattern[str] | None = None
    tags: frozenset[str] = frozenset()  # empty: any

    def matches(self, operation: Operation) -> bool:
        return (
            (not self.methods or operation.method in self.methods)
            and (self.path is None or self.path.search(operation.path) is not None)
            and (not self.tags or bool(self.tags & operation.tags))
        )

    @classmethod
    def from_table(cls, table: Mapping[str, object], where: str) -> RouteMap:
        unknown = sorted(set(table) - set(KEYS))
        if unknown:
            raise RouteMapError(f"{where}: unknown key(s) {', '.join(unknown)} (a route map has {', '.join(KEYS)})")
        kind = table.get("kind")
        if kind not in KINDS:
            raise RouteMapError(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
        methods = _strings(table.get("methods", []), f"{where}.methods")
        tags = _strings(table.get("tags", []), f"{where}.tags")
        path = table.get("path")
        if path is not None and not isinstance(path, str):
            raise RouteMapError(f"{where}.path must be a regular expression (a string), got {path!r}")
        try:
            pattern = re.compile(path) if path is not None else None
        except re.error as exc:
            raise RouteMapError(f"{where}.path is not a regular expression: {exc}") from None
        return cls(str(kind), frozenset(m.upper() for m in methods), pattern, frozenset(tags))


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RouteMapError(f"{where} must be a string or a list of strings, got {value!r}")
    return value


def kind_of(operation: Operation, maps: Iterable[RouteMap]) -> str:
    """What ``operation`` becomes: ``tool``, ``resource``, ``template`` or ``exclude``."""
    kind = next((each.kind for each in maps if each.matches(operation)), "tool")
    if kind != "resource":
        return kind
    if operation.method != "GET":
        return "tool"
    required = set(operation.input_schema.get("required", []))
    if required - set(operation.path_variables):
        return "tool"  # (a required query parameter or body has no place in a URI)
    return "template" if operation.path_variables else "resource"
