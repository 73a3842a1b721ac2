"""Pydantic v2 models, and ``Annotated[X, pydantic.Field(...)]`` hints, left to Pydantic: their
schemas, their validation and their JSON form are Pydantic's own.

Found through ``sys.modules``: a program that does not import Pydantic never has it imported here
(mcptrio does not depend on it).
"""

from __future__ import annotations

import sys
import typing
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["ValueRefused", "dump", "is_field_hint", "is_model", "json_schema", "validate"]


class ValueRefused(ValueError):
    """Pydantic refused a value: the first error, at ``path`` inside it."""

    def __init__(self, path: tuple[str, ...], reason: str) -> None:
        super().__init__(f"{'.'.join(path)}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


def is_model(hint: Any) -> bool:
    """True for a subclass of ``pydantic.BaseModel``."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(hint, type) and issubclass(hint, pydantic.BaseModel)


def is_field_hint(hint: Any) -> bool:
    """True for ``Annotated[X, pydantic.Field(...)]``."""
    fields = sys.modules.get("pydantic.fields")
    return (
        fields is not None
        and typing.get_origin(hint) is typing.Annotated
        and any(isinstance(meta, fields.FieldInfo) for meta in hint.__metadata__)
    )


_adapters: dict[Any, TypeAdapter[Any]] = {}


def _adapter(hint: Any) -> TypeAdapter[Any]:
    try:
        return _adapters[hint]
    except KeyError:
        pass
    except TypeError:  # (metadata that cannot be hashed: made each time)
        return _new_adapter(hint)
    adapter = _adapters[hint] = _new_adapter(hint)
    return adapter


def _new_adapter(hint: Any) -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    return TypeAdapter(hint)


def json_schema(hint: Any, mode: typing.Literal["validation", "serialization"]) -> dict[str, Any]:
    """Pydantic's JSON Schema for ``hint``, its own ``$defs`` included (``TypeError`` if it has none)."""
    from pydantic import PydanticUserError
    from pydantic.errors import PydanticSchemaGenerationError

    try:
        return _adapter(hint).json_schema(mode=mode)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(f"pydantic cannot make a schema for {hint!r}: {str(exc).splitlines()[0]}") from None


def validate(value: Any, hint: Any) -> Any:
    """``value`` (JSON) built into ``hint`` by Pydantic, as from JSON text (``ValueRefused`` if not)."""
    import orjson
    from pydantic import ValidationError

    try:
        return _adapter(hint).validate_json(orjson.dumps(value))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueRefused(tuple(str(part) for part in first["loc"]), first["msg"]) from None


def dump(value: Any, hint: Any = None) -> Any:
    """``value`` as JSON data, the way Pydantic writes it."""
    if hint is None or is_model(hint):
        return value.model_dump(mode="json")
    return _adapter(hint).dump_python(value, mode="json")
