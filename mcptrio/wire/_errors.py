"""WireError, and how a cattrs validation error becomes one line that names the field by its wire path."""

from functools import cache
from typing import Any

import attrs
from cattrs import transform_error
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.v import format_exception as cattrs_format_exception

from ._base import wire_name


class WireError(ValueError):
    """Data that does not fit the wire type it was read as.

    ``message`` is one line, ``path: problem`` (several problems joined by ``; ``); ``path`` is the
    wire path of the first problem (``params.arguments.count``, ``content[0].text``), None at the root.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class InvalidValue(ValueError):
    """A leaf problem whose message is already readable (``expected int, got 'abc'``)."""


def describe(value: Any) -> str:
    """A short rendering of a received value, for ``got ...``."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, (str, int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return type(value).__name__


def unexpected(value: Any, expected: str) -> InvalidValue:
    return InvalidValue(f"expected {expected}, got {describe(value)}")


def field_error(cls: Any, field: str, exc: Exception) -> ClassValidationError:
    """Report ``exc`` as a problem of ``field`` of ``cls`` (a class or a union), the way cattrs would."""
    exc.__notes__ = [AttributeValidationNote(f"Structuring {cls!r} @ attribute {field}", field, str)]
    return ClassValidationError(f"While structuring {cls!r}", [exc], cls)


def wire_error(exc: Exception, root: str | None = None) -> WireError:
    """Turn a structuring failure into a WireError, paths prefixed with ``root``."""
    _use_wire_names(exc)
    sep = "\x1f"  # transform_error joins "description @ path"; a separator no description has
    lines = transform_error(exc, path=root or "", format_exception=lambda e, t: _describe(e, t) + sep)
    problems = []
    for line in lines:
        message, _, path = line.partition(sep + " @ ")
        problems.append((path.lstrip("."), message))
    first = problems[0][0] or None
    return WireError("; ".join(f"{p}: {m}" if p else m for p, m in problems), first)


def _describe(exc: BaseException, type_: Any) -> str:
    if isinstance(exc, InvalidValue):
        return str(exc)
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, ForbiddenExtraKeysError):
        names = ", ".join(repr(name) for name in sorted(exc.extra_fields))
        return f"unknown field{'s' if len(exc.extra_fields) > 1 else ''} {names}"
    return cattrs_format_exception(exc, type_)


def _use_wire_names(exc: BaseException) -> None:
    """cattrs notes name attributes by their Python name; rename them to their wire name, in place."""
    if isinstance(exc, ClassValidationError):
        names = _wire_names(exc.cl)
        for sub in exc.exceptions:
            notes = getattr(sub, "__notes__", None)
            if names and notes:
                sub.__notes__ = [
                    AttributeValidationNote(note, names.get(note.name, note.name), note.type)
                    if isinstance(note, AttributeValidationNote)
                    else note
                    for note in notes
                ]
            _use_wire_names(sub)
    elif isinstance(exc, IterableValidationError):
        for sub in exc.exceptions:
            _use_wire_names(sub)


@cache
def _wire_names(cls: Any) -> dict[str, str]:
    if not (isinstance(cls, type) and attrs.has(cls)):
        return {}
    return {a.name: wire_name(a) for a in attrs.fields(cls)}
