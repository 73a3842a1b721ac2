"""The one cattrs converter for MCP's wire types.

Per attrs class, cattrs generates a structure and an unstructure function once (wire names, None
left off the wire); a thin wrapper adds ``extra``: unknown keys of an open object (one with an
``extra`` attribute) are kept there and written back verbatim, while a class without ``extra`` is
closed and rejects unknown keys.  Primitives are checked strictly, ``bytes`` is standard base64,
free JSON (``JSONObject``, ``Any``) passes through untouched, and unions are structured by their
discriminator.
"""

import binascii
from base64 import b64decode, b64encode
from collections.abc import Callable, Mapping
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import attrs
from cattrs.errors import IterableValidationError, IterableValidationNote
from cattrs.fns import identity
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, mapping_structure_factory, override
from cattrs.preconf.orjson import make_converter

from ._base import NULL_IS_ABSENT, JSONObject, wire_name
from ._errors import InvalidValue, field_error, unexpected
from .completion import CompletionReference
from .content import (
    BlobResourceContents,
    ContentBlock,
    ResourceContents,
    SamplingContent,
    SamplingMessageContentBlock,
    TextResourceContents,
)
from .elicitation import (
    BooleanSchema,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ElicitValue,
    EnumSchema,
    LegacyTitledEnumSchema,
    MultiSelectEnumSchema,
    NumberSchema,
    PrimitiveSchemaDefinition,
    SingleSelectEnumSchema,
    StringSchema,
    TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
)
from .input import InputRequest, InputResponse
from .jsonrpc import (
    JSONRPCErrorResponse,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    JSONRPCResultResponse,
)
from .roots import ListRootsResult
from .sampling import CreateMessageResult

converter = make_converter()
"""Structures wire JSON into the wire types and back; ``mcptrio.wire.structure``/``unstructure`` wrap it."""

# -- leaves: strict primitives, base64 bytes, free JSON -------------------------------------------


def _exactly(cls: type, expected: str, also: type | None = None) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if value.__class__ is cls or value.__class__ is also:
            return value
        raise unexpected(value, expected)

    return structure


converter.register_structure_hook(str, _exactly(str, "str"))
converter.register_structure_hook(int, _exactly(int, "int"))
converter.register_structure_hook(float, _exactly(float, "number", also=int))  # JSON 50 stays 50
converter.register_structure_hook(bool, _exactly(bool, "bool"))


def _structure_bytes(value: Any, _: Any) -> bytes:
    if value.__class__ is not str:
        raise unexpected(value, "a base64 str")
    try:
        return b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidValue(f"expected base64, got {value[:40]!r}") from None


converter.register_structure_hook(bytes, _structure_bytes)
converter.register_unstructure_hook(bytes, lambda value: b64encode(value).decode("ascii"))


def _structure_json_object(value: Any, _: Any) -> dict[str, Any]:
    if value.__class__ is dict:
        return value
    raise unexpected(value, "object")


def _structure_elicit_value(value: Any, _: Any) -> Any:
    if value.__class__ in (str, int, float, bool):
        return value
    if value.__class__ is list and all(item.__class__ is str for item in value):
        return value
    raise unexpected(value, "str, number, bool or array of str")


# -- containers: lists, dicts and literals, checked strictly ---------------------------------------


def _list_factory(type_: Any) -> Callable[[Any, Any], list[Any]]:
    (item_type,) = get_args(type_) or (Any,)
    item = converter.get_structure_hook(item_type)

    def structure_list(value: Any, _: Any) -> list[Any]:
        if value.__class__ is not list:
            raise unexpected(value, "array")
        try:
            return [item(element, item_type) for element in value]
        except Exception:
            pass
        errors = []  # again, slowly, to report every bad element with its index
        for index, element in enumerate(value):
            try:
                item(element, item_type)
            except Exception as exc:
                note = IterableValidationNote(f"Structuring {type_!r} @ index {index}", index, item_type)
                exc.__notes__ = [*getattr(exc, "__notes__", ()), note]
                errors.append(exc)
        raise IterableValidationError(f"While structuring {type_!r}", errors, type_)

    return structure_list


def _dict_factory(type_: Any) -> Callable[[Any, Any], dict[Any, Any]]:
    structure_mapping: Callable[[Any, Any], dict[Any, Any]] = mapping_structure_factory(type_, converter)

    def structure_dict(value: Any, _: Any) -> dict[Any, Any]:
        if value.__class__ is not dict:
            raise unexpected(value, "object")
        return structure_mapping(value, type_)

    return structure_dict


def _one_of(values: tuple[Any, ...]) -> str:
    listed = ", ".join(repr(value) for value in values)
    return listed if len(values) == 1 else f"one of {listed}"


def _literal_factory(type_: Any) -> Callable[[Any, Any], Any]:
    allowed = get_args(type_)
    classes = {value.__class__ for value in allowed}
    expected = _one_of(allowed)

    def structure_literal(value: Any, _: Any) -> Any:
        if value.__class__ in classes and value in allowed:
            return value
        raise unexpected(value, expected)

    return structure_literal


def _origin_is(origin: Any) -> Callable[[Any], bool]:
    """Is a type ``origin[...]``?  (A def: in a lambda passed straight to cattrs, mypy misreads get_origin.)"""
    return lambda t: get_origin(t) is origin


converter.register_structure_hook_factory(_origin_is(list), _list_factory)
converter.register_structure_hook_factory(_origin_is(dict), _dict_factory)
converter.register_structure_hook_factory(_origin_is(Literal), _literal_factory)
converter.register_structure_hook_func(lambda t: t == JSONObject, _structure_json_object)
converter.register_structure_hook_func(lambda t: t == ElicitValue, _structure_elicit_value)
converter.register_unstructure_hook_func(lambda t: t == JSONObject, identity)


def _unstructure_any(value: Any) -> Any:
    """A free JSON value passes through; a wire object put there (``Error.data``) is written out."""
    return converter.unstructure(value) if attrs.has(value.__class__) else value


converter.register_unstructure_hook_func(lambda t: t is Any, _unstructure_any)

# -- attrs classes: generated by cattrs, plus ``extra`` ---------------------------------------------


def _is_open(cls: type) -> bool:
    return "extra" in attrs.fields_dict(cls)


def _without_none(type_: Any) -> Any:
    """``X`` for ``X | None``, else None."""
    if get_origin(type_) in (Union, UnionType) and NoneType in get_args(type_):
        rest = tuple(arg for arg in get_args(type_) if arg is not NoneType)
        return rest[0] if len(rest) == 1 else Union[rest]  # noqa: UP007 - a union of types known only here
    return None


def _structure_factory(cls: type) -> Callable[[Any, Any], Any]:
    attrs.resolve_types(cls)
    overrides: dict[str, Any] = {}  # (AttributeOverride: Any, or mypy matches ** to the bool parameters)
    known = set()
    for a in attrs.fields(cls):
        if a.name == "extra":
            overrides[a.name] = override(omit=True)
            continue
        key = wire_name(a)
        known.add(key)
        # An optional attribute is absent on the wire, never null: its hook is the non-None one.
        present = _without_none(a.type) if a.default is None and not a.metadata.get(NULL_IS_ABSENT) else None
        hook = converter.get_structure_hook(present) if present is not None else None
        overrides[a.name] = override(rename=key if key != a.name else None, struct_hook=hook)
    is_open = _is_open(cls)
    generated: Callable[[Mapping[str, Any], Any], Any] = make_dict_structure_fn(
        cls, converter, _cattrs_forbid_extra_keys=not is_open, **overrides
    )
    known_keys = frozenset(known)

    def structure(value: Any, _: Any) -> Any:
        if value.__class__ is not dict and not isinstance(value, Mapping):
            raise unexpected(value, "object")
        instance = generated(value, cls)
        if is_open and not value.keys() <= known_keys:
            extra = {key: item for key, item in value.items() if key not in known_keys}
            object.__setattr__(instance, "extra", extra)  # frozen: set once, before anyone sees it
        return instance

    return structure


def _unstructure_factory(cls: type) -> Callable[[Any], dict[str, Any]]:
    attrs.resolve_types(cls)
    overrides: dict[str, Any] = {}  # (as above)
    for a in attrs.fields(cls):
        if a.name == "extra":
            overrides[a.name] = override(omit=True)
            continue
        key = wire_name(a)
        # An optional attribute is left off when None, so its hook is the non-None one.
        present = _without_none(a.type) if a.default is None else None
        hook = converter.get_unstructure_hook(present) if present is not None else None
        overrides[a.name] = override(
            rename=key if key != a.name else None, omit_if_default=a.default is None, unstruct_hook=hook
        )
    generated: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(cls, converter, **overrides)
    if not _is_open(cls):
        return generated

    def unstructure(instance: Any) -> dict[str, Any]:
        data = generated(instance)
        if instance.extra:
            for key, value in instance.extra.items():
                data.setdefault(key, value)  # a declared attribute wins over a stray extra key
        return data

    return unstructure


converter.register_structure_hook_factory(attrs.has, _structure_factory)
converter.register_unstructure_hook_factory(attrs.has, _unstructure_factory)

# -- unions: by discriminator, or by shape -----------------------------------------------------------


def _register_union(union: Any, choose: Callable[[dict[str, Any]], type]) -> None:
    """Structure ``union`` as the member ``choose`` picks from the JSON object."""

    def factory(_: Any) -> Callable[[Any, Any], Any]:
        hooks = {member: converter.get_structure_hook(member) for member in get_args(union)}

        def structure(value: Any, _: Any) -> Any:
            if value.__class__ is not dict:
                raise unexpected(value, "object")
            member = choose(value)
            hook = hooks.get(member)
            if hook is None:
                raise InvalidValue(f"expected one of {_names(union)}, got {member.__name__}")
            return hook(value, member)

        return structure

    converter.register_structure_hook_factory(lambda t: t == union, factory)


def _register_tagged(union: Any, tag: str) -> None:
    """Structure ``union`` by the value of its ``tag`` key, the default of each member's ``tag``."""
    members: dict[Any, type] = {attrs.fields_dict(member)[tag].default: member for member in get_args(union)}
    expected = _one_of(tuple(members))

    def choose(value: dict[str, Any]) -> type:
        if tag not in value:
            raise field_error(union, tag, KeyError(tag))
        member = members.get(value[tag]) if value[tag].__class__ is str else None
        if member is None:
            raise field_error(union, tag, unexpected(value[tag], expected))
        return member

    _register_union(union, choose)


def _names(union: Any) -> str:
    return ", ".join(member.__name__ for member in get_args(union))


def _primitive_schema(value: dict[str, Any]) -> type:
    kind = value.get("type")
    if kind == "boolean":
        return BooleanSchema
    if kind in ("number", "integer"):
        return NumberSchema
    if kind == "array":
        items = value.get("items")
        titled = isinstance(items, dict) and "anyOf" in items
        return TitledMultiSelectEnumSchema if titled else UntitledMultiSelectEnumSchema
    if "oneOf" in value:
        return TitledSingleSelectEnumSchema
    if "enum" in value:
        return LegacyTitledEnumSchema if "enumNames" in value else UntitledSingleSelectEnumSchema
    return StringSchema


def _jsonrpc_message(value: dict[str, Any]) -> type:
    if "method" in value:
        return JSONRPCRequest if "id" in value else JSONRPCNotification
    return JSONRPCErrorResponse if "error" in value else JSONRPCResultResponse


def _input_response(value: dict[str, Any]) -> type:
    if "action" in value:
        return ElicitResult
    return ListRootsResult if "roots" in value else CreateMessageResult


for _union in (ContentBlock, SamplingMessageContentBlock, CompletionReference):
    _register_tagged(_union, "type")
_register_tagged(InputRequest, "method")
_register_union(ResourceContents, lambda v: BlobResourceContents if "blob" in v else TextResourceContents)
_register_union(
    ElicitRequestParams, lambda v: ElicitRequestURLParams if v.get("mode") == "url" else ElicitRequestFormParams
)
for _union in (PrimitiveSchemaDefinition, EnumSchema, SingleSelectEnumSchema, MultiSelectEnumSchema):
    _register_union(_union, _primitive_schema)
_register_union(InputResponse, _input_response)
_register_union(JSONRPCMessage, _jsonrpc_message)
_register_union(JSONRPCResponse, _jsonrpc_message)


def _sampling_content_factory(_: Any) -> Callable[[Any, Any], Any]:
    one = converter.get_structure_hook(SamplingMessageContentBlock)
    many = converter.get_structure_hook(list[SamplingMessageContentBlock])

    def structure(value: Any, _: Any) -> Any:
        if value.__class__ is list:
            return many(value, list[SamplingMessageContentBlock])
        return one(value, SamplingMessageContentBlock)

    return structure


converter.register_structure_hook_factory(lambda t: t == SamplingContent, _sampling_content_factory)
