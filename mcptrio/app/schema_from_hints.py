"""JSON Schema (2020-12) for Python type hints, and the cattrs converter that matches those schemas.

Object types (attrs classes, dataclasses, TypedDicts, Pydantic models) are inlined where they are
used, since several clients refuse or mangle ``$ref``s; a recursive one has no finite inline form,
so it stays under ``$defs`` and is referenced with local ``$ref``s (``inline=False`` keeps every
object type there).  Standard-library value types are strings with a JSON Schema ``format``
(``value_types``); Pydantic models and ``Field``s get Pydantic's own schemas (``pydantic_types``).
"""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import enum
import functools
import inspect
import math
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, Required, Union

import attrs

from . import pydantic_types
from .value_types import value_type

if typing.TYPE_CHECKING:
    import cattrs

NoneType = type(None)

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", NoneType: "null"}
_ARRAYS = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_SETS = (set, frozenset, collections.abc.Set, collections.abc.MutableSet)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_UNIONS = (Union, types.UnionType)
_DEFS = "#/$defs/"
# Keywords whose values are data, not schemas (a "$ref" key inside them is not a reference), and
# keywords whose values are maps of names to schemas.
DATA_KEYWORDS = frozenset({"const", "default", "enum", "examples"})
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


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
    """Apply ``Annotated`` metadata: a plain str (or a ``typing_extensions.Doc``) becomes the
    description, a Param adds its keywords."""
    for meta in metadata:
        if isinstance(meta, str):
            schema["description"] = meta
        elif isinstance(meta, Param):
            schema.update(meta.keywords())
        elif _is_doc(meta):
            schema["description"] = meta.documentation
    return schema


def _is_doc(meta: Any) -> bool:
    """``typing_extensions.Doc("...")`` (PEP 727), known by its shape: nothing is imported for it."""
    return (
        type(meta).__name__ == "Doc"
        and type(meta).__module__.startswith("typing")
        and isinstance(getattr(meta, "documentation", None), str)
    )


def strip_annotated(hint: Any) -> Any:
    while typing.get_origin(hint) in (Annotated, Required, NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def is_object_class(hint: Any) -> bool:
    return isinstance(hint, type) and (attrs.has(hint) or dataclasses.is_dataclass(hint) or typing.is_typeddict(hint))


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
    """Builds schemas for type hints, collecting object classes under ``defs``; ``finish`` inlines
    those that are not recursive (all of them with ``inline=True``, the default).  ``mode``: the
    schema of what a client sends (``"validation"``) or of what a tool returns (``"serialization"``),
    which differ for some Pydantic types."""

    def __init__(self, *, inline: bool = True, mode: Literal["validation", "serialization"] = "validation") -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self.inline = inline
        self.mode: Literal["validation", "serialization"] = mode
        self._refs: dict[type, str] = {}
        self._pydantic_schemas: dict[Any, dict[str, Any]] = {}

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` with the collected ``$defs``: inlined where they are used, but for recursive
        ones (and all of them with ``inline=False``), which stay under ``$defs``."""
        if not self.defs:
            return schema
        if not self.inline:
            return {**schema, "$defs": self.defs}
        return inline_defs(schema, self.defs)

    def root_object(self, cls: type) -> dict[str, Any]:
        """The schema of ``cls`` inlined at the root; a recursive reference to it becomes ``#``."""
        if pydantic_types.is_model(cls):
            schema = self._pydantic(cls)
            ref = schema.get("$ref")
            if isinstance(ref, str) and ref.startswith(_DEFS):  # Pydantic's form of a recursive model
                body = self.defs.pop(ref[len(_DEFS) :])
                renamed = {ref: "#"}
                self.defs = {name: _renamed_refs(d, renamed) for name, d in self.defs.items()}
                schema = {**_renamed_refs(body, renamed), **{k: v for k, v in schema.items() if k != "$ref"}}
            return schema
        self._refs[cls] = "#"
        return self._object(cls)

    def schema(self, hint: Any) -> dict[str, Any]:
        if hint is None:
            hint = NoneType
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Annotated:
            if pydantic_types.is_field_hint(hint):
                return self._pydantic(hint)
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
        if (value := value_type(hint)) is not None:
            return copy.deepcopy(value.schema)
        if origin in _UNIONS:
            others = [a for a in args if a is not NoneType]
            if len(others) > 1 and not all(_is_scalar(a) for a in others):
                raise UnsupportedType(
                    f"unsupported union {hint!r}: only X | None and unions of str, "
                    "int, float, bool and Literal are supported"
                )
            return {"anyOf": [self.schema(a) for a in args]}
        base = origin or hint
        if base in _ARRAYS:
            return self._array(args[0] if args else Any)
        if base is tuple:
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                return self._array(args[0] if args else Any)
            return {
                "type": "array",
                "prefixItems": [self.schema(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
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
        if pydantic_types.is_model(hint):
            return self._pydantic(hint)
        if is_object_class(hint):
            return {"$ref": self._ref(hint)}
        raise UnsupportedType(f"unsupported type {type_name(hint)}")

    def _pydantic(self, hint: Any) -> dict[str, Any]:
        """Pydantic's schema for ``hint``, its ``$defs`` merged into ours (renamed on a clash)."""
        if (known := self._pydantic_schemas.get(hint)) is not None:
            return copy.deepcopy(known)
        try:
            schema = pydantic_types.json_schema(hint, self.mode)
        except TypeError as exc:
            raise UnsupportedType(str(exc)) from None
        defs = schema.pop("$defs", {})
        renamed: dict[str, str] = {}
        for name, body in defs.items():
            new, n = name, 2
            while new in self.defs and self.defs[new] != body:
                new, n = f"{name}{n}", n + 1
            renamed[_DEFS + name] = _DEFS + new
        for name, body in defs.items():
            self.defs[renamed[_DEFS + name][len(_DEFS) :]] = _renamed_refs(body, renamed)
        schema = self._pydantic_schemas[hint] = _renamed_refs(schema, renamed)
        return copy.deepcopy(schema)

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
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        doc = cls.__dict__.get("__doc__")
        if doc and not (dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}(")):
            schema["description"] = inspect.cleandoc(doc)
        return schema


_REQUIRED = object()


def _rebuild(node: Any, on_ref: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Any:
    """A copy of schema ``node`` in which each subschema with a ``$ref`` becomes ``on_ref(ref, its
    other keywords)`` (those rebuilt first)."""
    if isinstance(node, list):
        return [_rebuild(item, on_ref) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DATA_KEYWORDS or key == "$ref":
            out[key] = value
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _rebuild(sub, on_ref) for name, sub in value.items()}
        else:
            out[key] = _rebuild(value, on_ref)
    ref = out.pop("$ref", None)
    return on_ref(ref, out) if isinstance(ref, str) else out if ref is None else {"$ref": ref, **out}


def _renamed_refs(node: Any, renamed: dict[str, str]) -> Any:
    """A copy of schema ``node`` with its ``$ref``s renamed (``renamed``: old ref → new ref)."""
    return _rebuild(node, lambda ref, rest: {"$ref": renamed.get(ref, ref), **rest})


def inline_defs(schema: dict[str, Any], defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``schema`` with every ``$ref`` to a non-recursive entry of ``defs`` replaced by that entry;
    the recursive ones, where still referenced, stay under ``$defs``."""
    uses = {name: _refs_in(body) for name, body in defs.items()}
    recursive = {name for name in defs if name in _reachable(uses, uses[name])}

    def expand(ref: str, rest: dict[str, Any]) -> dict[str, Any]:
        name = ref[len(_DEFS) :] if ref.startswith(_DEFS) else None
        if name is None or name not in defs or name in recursive:
            return {"$ref": ref, **rest}
        return {**_rebuild(defs[name], expand), **rest}  # (keywords beside the $ref, e.g. a description, win)

    root = _rebuild(schema, expand)
    kept_names = _reachable(uses, _refs_in(root))
    kept = {name: _rebuild(defs[name], expand) for name in defs if name in kept_names and name in recursive}
    return {**root, "$defs": kept} if kept else root


def _refs_in(node: Any) -> set[str]:
    """The names of the ``$defs`` entries ``node`` refers to directly."""
    found: set[str] = set()

    def note(ref: str, rest: dict[str, Any]) -> dict[str, Any]:
        if ref.startswith(_DEFS):
            found.add(ref[len(_DEFS) :])
        return rest

    _rebuild(node, note)
    return found


def _reachable(uses: dict[str, set[str]], start: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(uses.get(name, ()))
    return seen


def _fields(cls: type) -> list[tuple[str, Any, Any]]:
    """``(name, hint, default)`` per init field; default is ``_REQUIRED`` or ``NO_DEFAULT`` (a factory)."""
    try:
        if attrs.has(cls):
            attrs.resolve_types(cls)  # so that cattrs, too, sees resolved forward references
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        raise UnsupportedType(f"cannot resolve the type hints of {cls.__qualname__}: {exc}") from None
    if typing.is_typeddict(cls):
        required: frozenset[str] = getattr(cls, "__required_keys__")  # noqa: B009 - is_typeddict does not narrow
        return [(name, hint, _REQUIRED if name in required else NO_DEFAULT) for name, hint in hints.items()]
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
    made.register_structure_hook_factory(lambda t: value_type(t) is not None, _value_parser)
    made.register_unstructure_hook_factory(lambda t: value_type(t) is not None, _value_writer)
    made.register_structure_hook(bytes, _value_parser(bytes))  # (cattrs has a hook of its own for bytes)
    made.register_unstructure_hook(bytes, _value_writer(bytes))
    made.register_structure_hook_func(
        lambda t: pydantic_types.is_model(t) or pydantic_types.is_field_hint(t), pydantic_types.validate
    )
    made.register_unstructure_hook_func(pydantic_types.is_model, pydantic_types.dump)
    return made


def _value_parser(hint: type) -> Callable[[Any, type], Any]:
    parse = value_type(hint).parse  # type: ignore[union-attr]  # (asked only for value types)
    return lambda value, _: parse(value, hint)


def _value_writer(hint: type) -> Callable[[Any], Any]:
    return value_type(hint).write  # type: ignore[union-attr]  # (asked only for value types)


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
