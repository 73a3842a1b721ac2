"""The answers of a terminal elicitation form, checked against the requested schema.

The MCP form schema is flat: each property a string (with ``minLength``, ``maxLength``, ``format``
and ``enum`` or titled ``oneOf`` choices), a number or integer (``minimum``, ``maximum``), a
boolean, or an array of choices.  A typed answer that does not fit says why, so the form asks
for it again instead of sending the server a value it would refuse.
"""

from __future__ import annotations

import datetime
from typing import Any

YES = ("y", "yes", "true")
NO = ("n", "no", "false")


class Skipped(Exception):
    """An optional field left empty: it is not in the answer."""


def choices(spec: dict[str, Any]) -> list[Any]:
    """The values a field may take, if it names them (``enum``, or ``oneOf``/``anyOf`` consts)."""
    if isinstance(spec.get("enum"), list):
        return list(spec["enum"])
    options = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(options, list):
        return [option["const"] for option in options if isinstance(option, dict) and "const" in option]
    return []


def hint(spec: dict[str, Any]) -> str:
    """What a field accepts, shown after its label: ``(one of red, green)``, ``(1 to 10)``."""
    kind = spec.get("type")
    parts: list[str] = []
    if kind == "boolean":
        parts.append("y/n")
    elif kind == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        parts.append("comma-separated: " + ", ".join(map(str, choices(items or {}))))
    elif choices(spec):
        parts.append("one of " + ", ".join(map(str, choices(spec))))
    elif kind in ("integer", "number"):
        low, high = spec.get("minimum"), spec.get("maximum")
        word = "a whole number" if kind == "integer" else "a number"
        if low is not None and high is not None:
            parts.append(f"{word}, {low:g} to {high:g}")
        elif low is not None:
            parts.append(f"{word} ≥ {low:g}")
        elif high is not None:
            parts.append(f"{word} ≤ {high:g}")
        else:
            parts.append(word)
    elif spec.get("format"):
        parts.append(str(spec["format"]))
    if "default" in spec:
        parts.append(f"default {spec['default']}")
    return f" ({'; '.join(parts)})" if parts else ""


def answer(spec: dict[str, Any], text: str, required: bool) -> Any:
    """The value of one field typed as ``text``; ``ValueError`` saying why it does not fit, or
    ``Skipped`` for an optional field left empty."""
    text = text.strip()
    if not text:
        if "default" in spec:
            return spec["default"]
        if required:
            raise ValueError("an answer is required")
        raise Skipped
    kind = spec.get("type")
    if kind == "boolean":
        if text.lower() in YES:
            return True
        if text.lower() in NO:
            return False
        raise ValueError("answer y or n")
    if kind == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        values = [part.strip() for part in text.split(",") if part.strip()]
        allowed = choices(items or {})
        wrong = [value for value in values if allowed and value not in allowed]
        if wrong:
            raise ValueError(f"{', '.join(wrong)}: not among {', '.join(map(str, allowed))}")
        _check_count(spec, len(values), "minItems", "maxItems", "choices")
        return values
    if kind in ("integer", "number"):
        return _number(spec, text, kind)
    allowed = choices(spec)
    if allowed and text not in allowed:
        raise ValueError(f"choose one of {', '.join(map(str, allowed))}")
    _check_count(spec, len(text), "minLength", "maxLength", "characters")
    _check_format(spec.get("format"), text)
    return text


def _number(spec: dict[str, Any], text: str, kind: str) -> int | float:
    try:
        value: int | float = int(text) if kind == "integer" else float(text)
    except ValueError:
        raise ValueError("a whole number, please" if kind == "integer" else "a number, please") from None
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and value < low:
        raise ValueError(f"at least {low:g}")
    if high is not None and value > high:
        raise ValueError(f"at most {high:g}")
    return value


def _check_count(spec: dict[str, Any], count: int, least: str, most: str, what: str) -> None:
    if least in spec and count < spec[least]:
        raise ValueError(f"at least {spec[least]} {what}")
    if most in spec and count > spec[most]:
        raise ValueError(f"at most {spec[most]} {what}")


def _check_format(fmt: Any, text: str) -> None:
    try:
        if fmt == "email" and ("@" not in text or text.startswith("@") or text.endswith("@")):
            raise ValueError
        if fmt == "date":
            datetime.date.fromisoformat(text)
        if fmt == "date-time":
            datetime.datetime.fromisoformat(text)
        if fmt == "uri" and "://" not in text:
            raise ValueError
    except ValueError:
        raise ValueError(f"not a valid {fmt}") from None
