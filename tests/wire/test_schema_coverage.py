"""The wire classes cover the schemas: every definition is accounted for, every property has an attribute.

Each class is checked against its definition in both eras, recursing into inline objects: every
schema property has an attribute of that wire name, an attribute without a default is required in
every era, and a property every era requires is never left off (no ``None`` default).
"""

import json
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin

import attrs
import pytest

from mcptrio import wire
from mcptrio.wire._base import wire_name

SCHEMAS = Path(__file__).parents[1] / "data" / "spec" / "schema"
ERAS = {era: json.loads((SCHEMAS / era / "schema.json").read_text())["$defs"] for era in ("2026-07-28", "2025-11-25")}

# Definitions modelled by a class of another name.
RENAMED = {
    "RequestMetaObject": wire.RequestMeta,
    "NotificationMetaObject": wire.NotificationMeta,
    "ResultMetaObject": wire.ResultMeta,
    "SubscriptionsListenResultMetaObject": wire.SubscriptionsListenResultMeta,
    "ParseError": wire.Error,
    "InvalidRequestError": wire.Error,
    "MethodNotFoundError": wire.Error,
    "InvalidParamsError": wire.Error,
    "InternalError": wire.Error,
}
# The 2026-07-28 ``_meta`` objects are named; legacy ones are inline, and the same class reads both.
LEGACY_META = {
    "RequestMetaObject": ERAS["2025-11-25"]["RequestParams"]["properties"]["_meta"],
    "NotificationMetaObject": ERAS["2025-11-25"]["NotificationParams"]["properties"]["_meta"],
    "ResultMetaObject": ERAS["2025-11-25"]["Result"]["properties"]["_meta"],
}
# Definitions with no class of their own, and why.
NOT_MODELLED = {
    # abstract bases: their properties are checked on the concrete types
    "BaseMetadata",
    "Icons",
    "CacheableResult",
    "PaginatedResult",
    "PaginatedRequest",
    "Request",
    "Notification",
    "ResourceRequestParams",
    "InputResponseRequestParams",
    # unions of whole messages: the method maps stand for them
    "ClientRequest",
    "ClientNotification",
    "ClientResult",
    "ServerRequest",
    "ServerNotification",
    "ServerResult",
    # free JSON and plain strings
    "JSONValue",
    "JSONArray",
    "ResultType",
    # legacy (2025-11-25) tasks, an experimental feature this server does not offer:
    # ``task`` params, the ``tasks`` capability and ``Tool.execution`` are kept verbatim in ``extra``
    "CancelTaskRequest",
    "CancelTaskResult",
    "CreateTaskResult",
    "GetTaskPayloadRequest",
    "GetTaskPayloadResult",
    "GetTaskRequest",
    "GetTaskResult",
    "ListTasksRequest",
    "ListTasksResult",
    "RelatedTaskMetadata",
    "Task",
    "TaskAugmentedRequestParams",
    "TaskMetadata",
    "TaskStatus",
    "TaskStatusNotification",
    "TaskStatusNotificationParams",
    "ToolExecution",
}
TASK_KEYS = {"task", "tasks", "execution"}
ALL_PARAMS = {**wire.SERVER_PARAMS_BY_METHOD, **wire.PARAMS_BY_METHOD}


def model_of(name: str) -> Any:
    if name in RENAMED:
        return RENAMED[name]
    return getattr(wire, name, None)


def resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def ref_name(schema: dict[str, Any]) -> str | None:
    return schema["$ref"].rsplit("/", 1)[1] if "$ref" in schema else None


def members(type_: Any) -> list[Any]:
    """The attrs classes an attribute of this type may hold (through None, lists, dicts, unions)."""
    if attrs.has(type_):
        return [type_]
    origin = get_origin(type_)
    if origin in (Union, UnionType):
        return [m for arg in get_args(type_) if arg is not NoneType for m in members(arg)]
    if origin in (list, dict):
        return members(get_args(type_)[-1])
    return []


def inner_schemas(schema: dict[str, Any], defs: dict[str, Any], seen: frozenset = frozenset()) -> list[dict[str, Any]]:
    """The object schemas inside a property schema (through $ref, arrays, maps and anyOf)."""
    if ref_name(schema) in seen:  # JSONValue contains itself
        return []
    seen |= {ref_name(schema)}
    schema = resolve(schema, defs)
    if schema.get("type") == "array" and "items" in schema:
        return inner_schemas(schema["items"], defs, seen)
    if isinstance(schema.get("additionalProperties"), dict) and "properties" not in schema:
        return inner_schemas(schema["additionalProperties"], defs, seen)
    if "anyOf" in schema:
        return [s for option in schema["anyOf"] for s in inner_schemas(option, defs, seen)]
    return [schema] if "properties" in schema else []


def check(cls: type, schemas: list[dict[str, Any]], defs_of: list[dict[str, Any]], where: str, seen: set) -> None:
    if (cls, where) in seen:
        return
    seen.add((cls, where))
    fields = {wire_name(a): a for a in attrs.fields(cls) if a.name != "extra"}
    required_everywhere = set.intersection(*(set(s.get("required", ())) for s in schemas))
    for schema in schemas:
        missing = set(schema.get("properties", {})) - set(fields) - TASK_KEYS
        assert not missing, f"{where}: no attribute for {sorted(missing)}"
    for key, a in fields.items():
        if a.default is attrs.NOTHING:
            assert key in required_everywhere, f"{where}.{key} is required but optional in some era"
        if key in required_everywhere:
            assert a.default is not None, f"{where}.{key} is required in every era but may be left off"
    # Recurse into inline objects (a named definition is checked as itself, across both eras).
    for key, a in fields.items():
        nested, nested_defs = [], []
        for schema, defs in zip(schemas, defs_of):
            prop = schema.get("properties", {}).get(key)
            for option in inner_schemas(prop, defs) if prop is not None else ():
                if not any(d is option for d in defs.values()):
                    nested.append(option)
                    nested_defs.append(defs)
        if nested and members(a.type):  # else free JSON (``inputSchema``): a plain dict
            (m,) = members(a.type)
            check(m, nested, nested_defs, f"{where}.{key}", seen)


def definitions() -> list[str]:
    return sorted(set(ERAS["2026-07-28"]) | set(ERAS["2025-11-25"]))


@pytest.mark.parametrize("name", definitions())
def test_definition_is_covered(name: str) -> None:
    found = [(era, defs[name], defs) for era, defs in ERAS.items() if name in defs]
    model = model_of(name)
    if name in NOT_MODELLED:
        assert model is None or not attrs.has(model)
        return
    if model is not None and attrs.has(model):
        if name in LEGACY_META:
            found.append(("2025-11-25", LEGACY_META[name], ERAS["2025-11-25"]))
        check(model, [s for _, s, _ in found], [d for _, _, d in found], name, set())
        return
    if model is not None:  # a union alias or a plain alias
        return
    # What is left are JSON-RPC envelopes: their params, result or error data have a type by method.
    for era, schema, defs in found:
        props = schema["properties"]
        if "method" in props:
            method = props["method"]["const"]
            assert method in ALL_PARAMS, f"{name}: no params type for {method} ({era})"
            params = props.get("params", {})
            if ref_name(params):
                model_name = ref_name(params)
                expected = model_of(model_name)
                assert ALL_PARAMS[method] is expected, f"{name}: {method} params should be {model_name}"
            else:
                check(ALL_PARAMS[method], [params], [defs], f"{name}.params", set())
        elif "result" in props:
            options = props["result"].get("anyOf", [props["result"]])
            result_types = {model_of(ref_name(option)) for option in options} - {wire.InputRequiredResult}
            assert len(result_types) == 1 and result_types <= set(wire.RESULT_BY_METHOD.values()), name
        else:
            code = next(part["properties"]["code"]["const"] for part in props["error"]["allOf"] if "properties" in part)
            data = next(
                (part["properties"].get("data") for part in props["error"]["allOf"] if "properties" in part), None
            )
            if data is not None:
                check(wire.ERROR_DATA_BY_CODE[code], [data], [defs], f"{name}.error.data", set())


def test_every_exported_class_is_a_frozen_keyword_only_attrs_class() -> None:
    classes = [getattr(wire, name) for name in wire.__all__ if attrs.has(getattr(wire, name))]
    assert len(classes) > 100
    for cls in classes:
        assert cls.__attrs_attrs__ and attrs.fields(cls)
        assert cls.__setattr__ is not object.__setattr__, f"{cls.__name__} is not frozen"
        assert all(a.kw_only for a in attrs.fields(cls)), f"{cls.__name__} is not keyword-only"
        assert "extra" in attrs.fields_dict(cls), f"{cls.__name__} is closed, but no schema object is"
