"""JSON Schema (2020-12) for Python type hints, and the cattrs converter that matches those schemas.

Object types (attrs classes, dataclasses, TypedDicts) always go under ``$defs`` and are referenced
with local ``$ref``s, so recursive types work; every other type is inlined.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import inspect
import math
import types
import typing
from typing import Annotated, Any, Literal, NotRequired, Required, Union

import attrs

if typing.TYPE_CHECKING:
    import cattrs

NoneType = type(None)

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", NoneType: "null"}
_ARRAYS = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_SETS = (set, frozenset, collections.abc.Set, collections.abc.MutableSet)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_UNIONS = (Union, types.UnionType)


class UnsupportedType(TypeError):
    """A type hint this module cannot express as JSON Schema."""


@attrs.frozen(eq=False)  # identity hash: the metadata may hold lists and dicts
class Param:
    """Metadata for ``Annotated[X, Param(...)]``; ``schema`` holds extra keywords such as ``minimum``."""

    description: str | None = None
    title: str | None = None
    examples: list[Any] | None = None
    schema: dict[str, Any] | None = None

    def keywords(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.schema or {})
        for key in ("title", "description"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.examples is not None:
            out["examples"] = list(self.examples)
        return out


def annotate(schema: dict[str, Any], metadata: tuple[Any, ...]) -> dict[str, Any]:
    """Apply ``Annotated`` metadata: a plain str becomes the description, a Param adds its keywords."""
    for meta in metadata:
        if isinstance(meta, str):
            schema["description"] = meta
        elif isinstance(meta, Param):
            schema.update(meta.keywords())
    return schema


def strip_annotated(hint: Any) -> Any:
    while typing.get_origin(hint) in (Annotated, Required, NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def is_object_class(hint: Any) -> bool:
    return isinstance(hint, type) and (
        attrs.has(hint) or dataclasses.is_dataclass(hint) or typing.is_typeddict(hint))


def is_mapping(hint: Any) -> bool:
    return (typing.get_origin(hint) or hint) in _MAPPINGS


def type_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__qualname__ if hint.__module__ == "builtins" else f"{hint.__module__}.{hint.__qualname__}"
    return repr(hint)


def _json_type(value: Any) -> str | None:
    if value is None:
        return "null"
    for tp in (bool, int, float, str):  # bool first: it is an int subclass
        if isinstance(value, tp):
            return _SCALARS[tp]
    return None


def _enum_schema(values: list[Any], hint: Any) -> dict[str, Any]:
    kinds = {_json_type(v) for v in values}
    if None in kinds or not values:
        raise UnsupportedType(f"{type_name(hint)} has values that are not JSON scalars")
    schema: dict[str, Any] = {"type": kinds.pop()} if len(kinds) == 1 else {}
    schema["enum"] = values
    return schema


def _is_scalar(hint: Any) -> bool:
    hint = strip_annotated(hint)
    if typing.get_origin(hint) is Literal:
        return not any(isinstance(v, enum.Enum) for v in typing.get_args(hint))
    return isinstance(hint, type) and hint in _SCALARS


def is_json(value: Any) -> bool:
    """True for values that serialize to JSON as they are (finite floats, str keys)."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json(v) for k, v in value.items())
    return False


NO_DEFAULT = object()


def json_default(value: Any) -> Any:
    """``value`` as JSON for a schema's ``default``, or ``NO_DEFAULT`` when it has no JSON form."""
    if value is None or type(value) in (str, bool, int) or (type(value) is float and math.isfinite(value)):
        return value  # (exactly these types: an enum member that is also a str or int is unstructured)
    try:
        data = converter().unstructure(value)
    except Exception:
        return NO_DEFAULT
    return data if is_json(data) else NO_DEFAULT


class SchemaBuilder:
    """Builds schemas for type hints, collecting object classes under ``defs``."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self._refs: dict[type, str] = {}

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` with the collected ``$defs`` attached (when there are any)."""
        return {**schema, "$defs": self.defs} if self.defs else schema

    def root_object(self, cls: type) -> dict[str, Any]:
        """The schema of ``cls`` inlined at the root; a recursive reference to it becomes ``#``."""
        self._refs[cls] = "#"
        return self._object(cls)

    def schema(self, hint: Any) -> dict[str, Any]:
        if hint is None:
            hint = NoneType
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Annotated:
            return annotate(self.schema(args[0]), hint.__metadata__)
        if origin in (Required, NotRequired):
            return self.schema(args[0])
        if hint is Any:
            return {}
        if isinstance(hint, type) and hint in _SCALARS:
            return {"type": _SCALARS[hint]}
        if origin is Literal:
            return _enum_schema([v.value if isinstance(v, enum.Enum) else v for v in args], hint)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return _enum_schema([m.value for m in hint], hint)
        if origin in _UNIONS:
            others = [a for a in args if a is not NoneType]
            if len(others) > 1 and not all(_is_scalar(a) for a in others):
                raise UnsupportedType(f"unsupported union {hint!r}: only X | None and unions of str, "
                                      "int, float, bool and Literal are supported")
            return {"anyOf": [self.schema(a) for a in args]}
        base = origin or hint
        if base in _ARRAYS:
            return self._array(args[0] if args else Any)
        if base is tuple:
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                return self._array(args[0] if args else Any)
            return {"type": "array", "prefixItems": [self.schema(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        if base in _SETS:
            return {**self._array(args[0] if args else Any), "uniqueItems": True}
        if base in _MAPPINGS:
            schema: dict[str, Any] = {"type": "object"}
            if args:
                if args[0] is not str:
                    raise UnsupportedType(f"{hint!r}: JSON object keys are strings, use dict[str, ...]")
                if values := self.schema(args[1]):
                    schema["additionalProperties"] = values
            return schema
        if is_object_class(hint):
            return {"$ref": self._ref(hint)}
        raise UnsupportedType(f"unsupported type {type_name(hint)}")

    def _array(self, item: Any) -> dict[str, Any]:
        items = self.schema(item)
        return {"type": "array", "items": items} if items else {"type": "array"}

    def _ref(self, cls: type) -> str:
        if (ref := self._refs.get(cls)) is None:
            name, n = cls.__name__, 2
            while name in self.defs:
                name, n = f"{cls.__name__}{n}", n + 1
            ref = self._refs[cls] = f"#/$defs/{name}"
            self.defs[name] = {}  # reserve the name while the class (maybe recursive) is built
            self.defs[name] = self._object(cls)
        return ref

    def _object(self, cls: type) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, hint, default in _fields(cls):
            try:
                prop = self.schema(hint)
            except UnsupportedType as exc:
                raise UnsupportedType(f"{cls.__qualname__}.{name}: {exc}") from None
            if default is _REQUIRED:
                required.append(name)
            elif default is not NO_DEFAULT and (data := json_default(default)) is not NO_DEFAULT:
                prop["default"] = data
            properties[name] = prop
        schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required,
                                  "additionalProperties": False}
        doc = cls.__dict__.get("__doc__")
        if doc and not (dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}(")):
            schema["description"] = inspect.cleandoc(doc)
        return schema


_REQUIRED = object()


def _fields(cls: type) -> list[tuple[str, Any, Any]]:
    """``(name, hint, default)`` per init field; default is ``_REQUIRED`` or ``NO_DEFAULT`` (a factory)."""
    try:
        if attrs.has(cls):
            attrs.resolve_types(cls)  # so that cattrs, too, sees resolved forward references
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        raise UnsupportedType(f"cannot resolve the type hints of {cls.__qualname__}: {exc}") from None
    if typing.is_typeddict(cls):
        required: frozenset[str] = getattr(cls, "__required_keys__")  # (is_typeddict does not narrow)
        return [(name, hint, _REQUIRED if name in required else NO_DEFAULT)
                for name, hint in hints.items()]
    out = []
    if attrs.has(cls):
        for a in attrs.fields(cls):
            if a.init:
                default = a.default
                if default is attrs.NOTHING:
                    default = _REQUIRED
                elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]  # (a class, typed as a function)
                    default = NO_DEFAULT
                out.append((a.name, hints.get(a.name, a.type if a.type is not None else Any), default))
        return out
    for f in dataclasses.fields(cls):
        if f.init:
            if f.default is not dataclasses.MISSING:
                default = f.default
            else:
                default = _REQUIRED if f.default_factory is dataclasses.MISSING else NO_DEFAULT
            out.append((f.name, hints.get(f.name, Any), default))
    return out


# -- conversion ------------------------------------------------------------------------------

@functools.cache
def converter() -> cattrs.Converter:
    """Structures validated JSON into the hinted Python types and back (sets become lists).
    Made on first use: a server whose tools take and return plain JSON never imports cattrs."""
    import cattrs

    made = cattrs.Converter(unstruct_collection_overrides={collections.abc.Set: list})
    made.register_structure_hook_func(lambda t: _scalar_members(t) is not None, _structure_scalar_union)
    return made


def _scalar_members(hint: Any) -> list[Any] | None:
    if typing.get_origin(hint) not in _UNIONS:
        return None
    members = [strip_annotated(a) for a in typing.get_args(hint) if a is not NoneType]
    return members if len(members) > 1 and all(_is_scalar(a) for a in members) else None


def _structure_scalar_union(value: Any, hint: Any) -> Any:
    # The value already passed schema validation, so only int/float need adjusting.
    members = _scalar_members(hint) or []
    if type(value) is int and int not in members and float in members:
        return float(value)
    if type(value) is float and value.is_integer() and int in members and float not in members:
        return int(value)
    return value

