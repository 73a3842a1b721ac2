"""Reshaped tools: a tool served under another name, title or description, with arguments hidden
(filled with a fixed value, an environment variable or a claim of the caller's token) and
parameters narrowed (an enum subset, a lower maximum).

Clients see and are checked against the reshaped input schema; the handler still receives its
original arguments.  Every mistake is refused at load, in one line naming the tool.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .errors import ToolError
from .signature import ArgumentError, ToolSignature

if TYPE_CHECKING:
    from .context import Context


@attrs.frozen
class Fixed:
    """Fill a hidden argument with this value (it must fit the argument's schema)."""

    value: Any


@attrs.frozen
class FromEnv:
    """Fill a hidden argument with this environment variable, read once at load (unset: refused)."""

    variable: str


@attrs.frozen
class FromPrincipal:
    """Fill a hidden argument with this claim of the caller's token; a caller without it gets an
    ``isError`` result naming the claim."""

    claim: str


Source = Fixed | FromEnv | FromPrincipal

# Keywords a narrowing may set, and how its value must compare with the original's to narrow it.
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_VALUES = ("enum", "const")
_NEW_ONLY = ("pattern", "format")  # narrow only where the original has none (or the same)
NARROWING_KEYWORDS = (*_UPPER, *_LOWER, *_VALUES, *_NEW_ONLY)


@attrs.frozen
class Reshaping:
    """What a reshaped tool's entry carries: the schema clients see, its check, and the hidden
    arguments with where their values come from (``FromEnv`` already read: a ``Fixed``)."""

    input_schema: dict[str, Any]
    check: ToolSignature
    hidden: Mapping[str, Fixed | FromPrincipal]
    tool: str

    def arguments(self, arguments: dict[str, Any], ctx: Context) -> dict[str, Any]:
        """The client's arguments checked against the reshaped schema, with the hidden ones filled
        in: what the original signature binds (``ArgumentError`` or ``ToolError`` if not)."""
        full = self.check.bind(arguments)
        for name, source in self.hidden.items():
            if isinstance(source, Fixed):
                full[name] = copy.deepcopy(source.value)
                continue
            principal = ctx.principal
            if principal is None or source.claim not in principal.claims:
                raise ToolError(f"tool {self.tool!r} needs the claim {source.claim!r} of the caller's token")
            full[name] = principal.claims[source.claim]
        return full


def reshape(
    tool: str,
    input_schema: dict[str, Any],
    taken: Collection[str],
    *,
    rename: str | None = None,
    hide: Mapping[str, Source] | None = None,
    narrow: Mapping[str, Mapping[str, Any]] | None = None,
) -> Reshaping:
    """How tool ``tool`` (of ``input_schema``) is reshaped; ``taken``: the names of the other
    tools.  A ValueError naming the tool for an argument it does not have, a value that fails its
    schema, a narrowing that widens, or a new name already taken."""
    where = f"reshaping tool {tool!r}"
    if rename is not None:
        if not isinstance(rename, str) or not rename:
            raise ValueError(f"{where}: rename must be a non-empty string, not {rename!r}")
        if rename != tool and rename in taken:
            raise ValueError(f"{where}: rename: a tool {rename!r} exists already")
    properties = input_schema.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    schema = copy.deepcopy(input_schema)
    shaped: dict[str, Any] = schema.setdefault("properties", {})
    hidden: dict[str, Fixed | FromPrincipal] = {}
    for name, source in (hide or {}).items():
        _known(where, name, properties, "hide")
        hidden[name] = _source(f"{where}: hide {name!r}", source, input_schema, name)
        del shaped[name]
    for name, wanted in (narrow or {}).items():
        _known(where, name, properties, "narrow")
        if name in hidden:
            raise ValueError(f"{where}: narrow {name!r}: the argument is hidden")
        shaped[name] = _narrowed(f"{where}: narrow {name!r}", properties[name], wanted, input_schema, name)
    if isinstance(schema.get("required"), list):
        schema["required"] = [name for name in schema["required"] if name not in hidden]
    try:
        check = ToolSignature.for_schema(schema, f"tool {tool!r}")
    except TypeError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return Reshaping(schema, check, hidden, rename or tool)


def _known(where: str, name: object, properties: dict[str, Any], what: str) -> None:
    if name not in properties:
        have = ", ".join(map(repr, properties)) or "none"
        raise ValueError(f"{where}: {what}: no argument {name!r} (it has {have})")


def _fits(original: dict[str, Any], name: str, value: Any, prop: Any = None) -> bool:
    """Would ``value`` pass as argument ``name`` (schema ``prop``, else the original's) in the
    original schema (its ``$defs`` and all)?"""
    probe = {key: item for key, item in original.items() if key not in ("required", "additionalProperties")}
    probe["properties"] = {name: original["properties"][name] if prop is None else prop}
    probe["required"] = [name]
    try:
        ToolSignature.for_schema(probe, name).bind({name: value})
    except ArgumentError:
        return False
    return True


def _source(where: str, source: object, original: dict[str, Any], name: str) -> Fixed | FromPrincipal:
    if isinstance(source, FromEnv):
        if not isinstance(source.variable, str) or not source.variable:
            raise ValueError(f"{where}: the variable must be a non-empty string, not {source.variable!r}")
        value = os.environ.get(source.variable)
        if value is None:
            raise ValueError(f"{where}: the environment variable {source.variable} is not set")
        source = Fixed(value)
    if isinstance(source, FromPrincipal):
        if not isinstance(source.claim, str) or not source.claim:
            raise ValueError(f"{where}: the claim must be a non-empty string, not {source.claim!r}")
        return source
    if not isinstance(source, Fixed):
        raise ValueError(f"{where}: give Fixed(value), FromEnv(variable) or FromPrincipal(claim), not {source!r}")
    if not _fits(original, name, source.value):
        raise ValueError(f"{where}: the value {source.value!r} does not fit the argument's schema")
    return source


def _narrowed(
    where: str, prop: dict[str, Any], wanted: Mapping[str, Any], original: dict[str, Any], name: str
) -> dict[str, Any]:
    """The property's schema with ``wanted`` merged in, if that only narrows it."""
    if not isinstance(wanted, Mapping) or not wanted:
        raise ValueError(f"{where}: give a table of schema keywords, not {wanted!r}")
    merged = dict(prop)
    for key, value in wanted.items():
        if key not in NARROWING_KEYWORDS:
            raise ValueError(f"{where}: {key!r} cannot narrow (use {', '.join(NARROWING_KEYWORDS)})")
        before = prop.get(key)
        if key in _VALUES:
            values = value if key == "enum" else [value]
            if key == "enum" and (not isinstance(value, list) or not value):
                raise ValueError(f"{where}: enum must be a non-empty list, not {value!r}")
            outside = [item for item in values if not _fits(original, name, item)]
            if outside:
                raise ValueError(f"{where}: {outside[0]!r} is not one of the values the argument accepts")
        elif not isinstance(value, int | float) or isinstance(value, bool):
            if key in _UPPER or key in _LOWER:
                raise ValueError(f"{where}: {key} must be a number, not {value!r}")
        elif before is not None and (value > before if key in _UPPER else value < before if key in _LOWER else False):
            raise ValueError(f"{where}: {key} {value!r} widens the argument's {key} {before!r}")
        if key in _NEW_ONLY and before is not None and before != value:
            raise ValueError(f"{where}: the argument has a {key} already ({before!r})")
        merged[key] = value
    if "default" in merged:
        try:
            fits = _fits(original, name, merged["default"], merged)
        except TypeError as exc:  # (a keyword's value of the wrong kind: the schema does not compile)
            raise ValueError(f"{where}: {exc}") from None
        if not fits:
            raise ValueError(f"{where}: the argument's default {merged['default']!r} does not fit the narrowing")
    return merged
