"""Standard-library value types a tool may take and return, each as a JSON string: its schema (a JSON
Schema ``format`` where one exists) and how it is parsed and written.

A type is recognised through ``sys.modules``, so nothing here imports ``uuid``, ``decimal`` or
``pathlib``: a hint can only name a class whose module the program has imported.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["ValueType", "iso_duration", "parse_duration", "value_type"]

# A decimal number as a string (exponent allowed), for Decimal arguments sent as strings.
DECIMAL_PATTERN = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"


@attrs.frozen
class ValueType:
    """One class (and its subclasses), found as ``module.name``, and its JSON form."""

    module: str
    name: str
    schema: dict[str, Any]
    parse: Callable[[Any, type], Any]  # (validated JSON value, the hinted class) -> the value
    write: Callable[[Any], Any]  # the value -> JSON

    def cls(self) -> type | None:
        module = sys.modules.get(self.module)
        return None if module is None else getattr(module, self.name, None)


def _iso(kind: str) -> Callable[[Any, type], Any]:
    def parse_iso(value: Any, hint: Any) -> Any:  # (hint: datetime, date or time, or a subclass)
        try:
            return hint.fromisoformat(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not an ISO 8601 {kind}") from None

    return parse_iso


def _isoformat(value: Any) -> str:
    return str(value.isoformat())


# -- durations (ISO 8601, as JSON Schema's "duration" format) -----------------------------------

_NUMBER = r"([0-9]+(?:[.,][0-9]+)?)"
_DURATION = re.compile(rf"([+-])?P(?:{_NUMBER}W)?(?:{_NUMBER}D)?(?:T(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?")
_UNIT_MICROSECONDS = (7 * 86_400_000_000, 86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000)


def parse_duration(value: Any, hint: type | None = None) -> Any:
    """``P1DT2H3M4.5S`` (weeks, days, hours, minutes, seconds; a leading ``-``) as a timedelta."""
    from datetime import timedelta
    from decimal import Decimal

    found = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if found is None or value.endswith(("P", "T")):
        if isinstance(value, str) and re.fullmatch(r"[+-]?P([0-9.,]+[YM])+.*", value):
            raise ValueError(
                f"{value!r}: years and months have no fixed length; give weeks, days, hours, minutes or seconds"
            )
        raise ValueError(f"{value!r} is not an ISO 8601 duration (such as P1DT2H30M or PT0.5S)")
    micros = sum(
        Decimal(part.replace(",", ".")) * unit
        for part, unit in zip(found.groups()[1:], _UNIT_MICROSECONDS)
        if part is not None
    )
    try:
        return timedelta(microseconds=int(-micros if found.group(1) == "-" else micros))
    except OverflowError:
        raise ValueError(f"{value!r} is out of range for a duration") from None


def iso_duration(value: Any) -> str:
    """A timedelta in ISO 8601: ``P1DT2H3M4.5S``, ``-PT1S``, ``PT0S``."""
    micros = value.days * 86_400_000_000 + value.seconds * 1_000_000 + value.microseconds
    sign, micros = ("-" if micros < 0 else ""), abs(micros)
    days, micros = divmod(micros, 86_400_000_000)
    hours, micros = divmod(micros, 3_600_000_000)
    minutes, micros = divmod(micros, 60_000_000)
    seconds, fraction = divmod(micros, 1_000_000)
    time = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or fraction or not (days or time):
        time += f"{seconds}.{fraction:06d}".rstrip("0").rstrip(".") + "S"
    return f"{sign}P{f'{days}D' if days else ''}{'T' + time if time else ''}"


# -- the others -----------------------------------------------------------------------------------


def _uuid(value: Any, hint: type) -> Any:
    try:
        return hint(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a UUID") from None


def _decimal(value: Any, hint: type) -> Any:
    if isinstance(value, float):
        value = repr(value)  # the number as the client wrote it, not its binary expansion
    try:
        return hint(value)
    except Exception:  # decimal.InvalidOperation
        raise ValueError(f"{value!r} is not a decimal number") from None


def _path(value: Any, hint: type) -> Any:
    return hint(value)  # (a path object only: nothing here looks at the disk)


def _bytes(value: Any, hint: type) -> Any:
    import base64
    import binascii

    try:
        return hint(base64.b64decode(value, validate=True))
    except (binascii.Error, TypeError, ValueError):
        raise ValueError(f"{_short(value)} is not base64") from None


def _base64(value: Any) -> str:
    import base64

    return base64.b64encode(value).decode("ascii")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _string(format: str | None = None, **keywords: Any) -> dict[str, Any]:
    return {"type": "string", **({"format": format} if format else {}), **keywords}


# Checked in this order (datetime before date: it is a subclass).
VALUE_TYPES = (
    ValueType("datetime", "datetime", _string("date-time"), _iso("date-time"), _isoformat),
    ValueType("datetime", "date", _string("date"), _iso("date"), _isoformat),
    ValueType("datetime", "time", _string("time"), _iso("time"), _isoformat),
    ValueType("datetime", "timedelta", _string("duration"), parse_duration, iso_duration),
    ValueType("uuid", "UUID", _string("uuid"), _uuid, str),
    # A decimal number: a JSON number or, to keep every digit, a string; written as a string.
    ValueType("decimal", "Decimal", {"anyOf": [{"type": "number"}, _string(pattern=DECIMAL_PATTERN)]}, _decimal, str),
    ValueType("pathlib", "PurePath", _string(), _path, str),
    ValueType("builtins", "bytes", _string(contentEncoding="base64"), _bytes, _base64),
)


def value_type(hint: Any) -> ValueType | None:
    """The ``ValueType`` of ``hint`` (a class), or None."""
    if not isinstance(hint, type):
        return None
    for value in VALUE_TYPES:
        cls = value.cls()
        if cls is not None and issubclass(hint, cls):
            return value
    return None
