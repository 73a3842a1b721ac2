"""Tool signatures: JSON Schemas from type hints, argument binding, structured results."""

import dataclasses
import datetime
import enum
import functools
import inspect
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict

import attrs
import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from mcptrio.app.context import Context
from mcptrio.app.signature import ArgumentError, OutputError, Param, ToolSignature


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.define
class Filter:
    """Narrow the search."""

    since: str
    limit: Annotated[int, "at most this many"] = 5
    colors: list[Color] = attrs.Factory(list)
    seen: int = attrs.field(init=False, default=0)


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0
    tags: set[str] = dataclasses.field(default_factory=set)


class Options(TypedDict, total=False):
    """Query options."""

    verbose: bool
    depth: Required[int]


class Person(TypedDict):
    name: str
    nick: NotRequired[str]


@attrs.define
class Hit:
    title: str
    score: float
    children: list["Hit"] = attrs.Factory(list)


@attrs.define
class Positive:
    n: int = attrs.field(validator=attrs.validators.gt(0))


class MyContext(Context):
    pass


class TextContent:
    pass


class CallToolResult:
    pass


def signature_of(fn, **kwargs) -> ToolSignature:
    """Build a signature and check that its schemas are valid 2020-12."""
    sig = ToolSignature.from_function(fn, **kwargs)
    Draft202012Validator.check_schema(sig.input_schema)
    if sig.output_schema is not None:
        Draft202012Validator.check_schema(sig.output_schema)
    return sig


def tool(**annotations):
    """An async function with keyword parameters annotated as given (none have defaults)."""

    async def fn(**kwargs):
        pass

    fn.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in annotations if name != "return"]
    )
    fn.__annotations__ = annotations
    return fn


def param_schema(hint, **kwargs) -> dict:
    return signature_of(tool(x=hint), **kwargs).input_schema["properties"]["x"]


# -- input schemas ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (Any, {}),
        (Literal["fast", "full"], {"type": "string", "enum": ["fast", "full"]}),
        (Literal[1, "a"], {"enum": [1, "a"]}),
        (Literal[Color.RED], {"type": "string", "enum": ["red"]}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045 - the old spelling is read too
        (str | None, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (list, {"type": "array"}),
        (list[Any], {"type": "array"}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        ),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (Annotated[str, "what to look for"], {"type": "string", "description": "what to look for"}),
        (
            Annotated[int, Param(description="how many", title="Limit", examples=[3], schema={"minimum": 1})],
            {"type": "integer", "description": "how many", "title": "Limit", "examples": [3], "minimum": 1},
        ),
        (list[Annotated[str, "a tag"]], {"type": "array", "items": {"type": "string", "description": "a tag"}}),
        (Filter, {"$ref": "#/$defs/Filter"}),
        (Filter | None, {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]}),
    ],
)
def test_annotation_schemas(hint, expected):
    assert param_schema(hint, inline=False) == expected


async def search(
    ctx: Context,
    query: Annotated[str, "what to look for"],
    limit: int = 10,
    mode: Literal["fast", "full"] = "fast",
    tags: list[str] | None = None,
) -> list[Hit]:
    return []


def test_search_example():
    sig = signature_of(search)
    assert sig.context_parameter == "ctx"
    assert sig.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "limit": {"type": "integer", "default": 10},
            "mode": {"type": "string", "enum": ["fast", "full"], "default": "fast"},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def test_context_parameter_is_excluded_wherever_it_is():
    async def a(x: int, c: MyContext) -> None: ...
    async def b(x: int, c: Annotated[Context, "injected"]) -> None: ...
    async def none(x: int) -> None: ...

    for fn in (a, b):
        sig = signature_of(fn)
        assert sig.context_parameter == "c"
        assert list(sig.input_schema["properties"]) == ["x"]
    assert signature_of(none).context_parameter is None


def test_no_parameters():
    async def now(ctx: Context) -> None: ...

    sig = signature_of(now)
    assert sig.input_schema == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert sig.bind(None) == {}
    assert sig.bind({}) == {}


def test_defaults_and_required():
    marker = object()

    async def fn(
        a: int,
        b: str = "x",
        c: Color = Color.GREEN,
        d: tuple[int, ...] = (1, 2),
        e: int | None = None,
        f: Any = marker,
        g: float = float("inf"),
        h=3,
        i=None,
    ) -> None: ...

    schema = signature_of(fn).input_schema
    assert schema["required"] == ["a"]
    assert schema["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "string", "default": "x"},
        "c": {"type": "string", "enum": ["red", "green"], "default": "green"},
        "d": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]},
        "e": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "f": {},  # not JSON-able: no default
        "g": {"type": "number"},
        "h": {"default": 3},  # no annotation: any value
        "i": {"default": None},
    }


def test_object_types_are_inlined_by_default():
    async def fn(
        filter: Filter, point: Point, options: Options, people: list[Person], also: Annotated[Filter, "a second filter"]
    ) -> None: ...

    inlined = signature_of(fn).input_schema
    kept = signature_of(fn, inline=False).input_schema
    assert "$defs" not in inlined and "$ref" not in str(inlined)
    for name, prop in inlined["properties"].items():
        ref = kept["properties"][name].get("$ref") or kept["properties"][name].get("items", {}).get("$ref")
        body = kept["$defs"][ref.rpartition("/")[2]]
        assert prop in (body, {"type": "array", "items": body}, {**body, "description": "a second filter"})


def test_attrs_dataclass_typeddict_go_to_defs_when_asked():
    async def fn(filter: Filter, point: Point, options: Options, people: list[Person]) -> None: ...

    schema = signature_of(fn, inline=False).input_schema
    assert schema["properties"] == {
        "filter": {"$ref": "#/$defs/Filter"},
        "point": {"$ref": "#/$defs/Point"},
        "options": {"$ref": "#/$defs/Options"},
        "people": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
    }
    assert schema["$defs"] == {
        "Filter": {
            "type": "object",
            "description": "Narrow the search.",
            "properties": {
                "since": {"type": "string"},
                "limit": {"type": "integer", "description": "at most this many", "default": 5},
                "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]}},
            },
            "required": ["since"],
            "additionalProperties": False,
        },
        "Point": {
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "y": {"type": "number", "default": 0.0},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            },
            "required": ["x"],
            "additionalProperties": False,
        },
        "Options": {
            "type": "object",
            "description": "Query options.",
            "properties": {"verbose": {"type": "boolean"}, "depth": {"type": "integer"}},
            "required": ["depth"],
            "additionalProperties": False,
        },
        "Person": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "nick": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        },
    }


def test_recursive_class():
    async def fn(hit: Hit) -> None: ...

    sig = signature_of(fn)
    assert sig.input_schema["$defs"]["Hit"]["properties"]["children"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Hit"},
    }
    assert sig.bind({"hit": {"title": "a", "score": 1, "children": [{"title": "b", "score": 2}]}}) == {
        "hit": Hit("a", 1.0, [Hit("b", 2.0)])
    }


def test_var_keyword_allows_extra_arguments():
    async def typed(a: int, **rest: int) -> None: ...
    async def untyped(a: int, **rest) -> None: ...

    sig = signature_of(typed)
    assert sig.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "integer"},
    }
    assert sig.bind({"a": 1, "b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ArgumentError, match=r"^invalid arguments: 'b': 'x' is not of type 'integer'$"):
        sig.bind({"a": 1, "b": "x"})
    assert "additionalProperties" not in signature_of(untyped).input_schema


# -- verbatim schemas -------------------------------------------------------------------------


def test_verbatim_input_schema_is_used_as_is():
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}, "required": ["when"]}

    async def fn(ctx: Context, when: datetime.date) -> None: ...  # the annotation is not looked at

    sig = signature_of(fn, input_schema=schema)
    assert sig.input_schema is schema
    assert sig.context_parameter == "ctx"
    args = {"when": "2026-07-28", "other": [1]}
    assert sig.bind(args) == {"when": "2026-07-28"}  # the schema allows "other"; fn can't take it
    with pytest.raises(ArgumentError, match=r"^invalid arguments: missing required argument 'when'$"):
        sig.bind({})


def test_verbatim_schema_dialects_and_refs():
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/pos"}},
        "definitions": {"pos": {"minimum": 0}},
    }

    async def fn(**kw) -> None: ...

    sig = ToolSignature.from_function(fn, input_schema=draft7)
    Draft7Validator.check_schema(sig.input_schema)
    with pytest.raises(ArgumentError, match=r"^invalid arguments: 'a': -1 is less than the minimum of 0$"):
        sig.bind({"a": -1})
    with pytest.raises(TypeError, match="fn: invalid input schema"):
        ToolSignature.from_function(fn, input_schema={"type": "objekt"})
    with pytest.raises(TypeError, match="unsupported dialect"):
        ToolSignature.from_function(fn, input_schema={"$schema": "https://example.com/dialect", "type": "object"})
    with pytest.raises(TypeError, match="does not resolve locally: 'https://example.com/s.json'"):
        ToolSignature.from_function(
            fn, input_schema={"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
        )
    with pytest.raises(TypeError, match="does not resolve locally: '#/\\$defs/nope'"):
        ToolSignature.from_function(fn, output_schema={"$ref": "#/$defs/nope"})


# -- bind -------------------------------------------------------------------------------------


async def convert(
    color: Color,
    level: Level,
    filter: Filter,
    point: Point,
    options: Options,
    pair: tuple[int, str],
    tags: set[str],
    ratio: float,
    mode: Literal["a", "b"],
    either: int | float | None,
    maybe: Filter | None = None,
) -> None: ...


def test_bind_converts_to_declared_types():
    kwargs = signature_of(convert).bind(
        {
            "color": "red",
            "level": 2,
            "filter": {"since": "monday", "colors": ["green"]},
            "point": {"x": 1, "tags": ["a", "b"]},
            "options": {"depth": 2},
            "pair": [1, "x"],
            "tags": ["a", "b"],
            "ratio": 2,
            "mode": "b",
            "either": 3,
        }
    )
    assert kwargs == {
        "color": Color.RED,
        "level": Level.HIGH,
        "filter": Filter("monday", colors=[Color.GREEN]),
        "point": Point(1.0, tags={"a", "b"}),
        "options": {"depth": 2},
        "pair": (1, "x"),
        "tags": {"a", "b"},
        "ratio": 2.0,
        "mode": "b",
        "either": 3,
    }
    assert type(kwargs["ratio"]) is float and type(kwargs["point"].x) is float
    assert "maybe" not in kwargs  # defaults are left to Python


def test_bind_scalar_unions_keep_json_types():
    async def fn(a: float | str, b: int | str | None, c: bool | int) -> None: ...

    kwargs = signature_of(fn).bind({"a": 3, "b": 4.0, "c": True})
    assert kwargs == {"a": 3.0, "b": 4, "c": True}
    assert type(kwargs["a"]) is float and type(kwargs["b"]) is int and kwargs["c"] is True
    assert signature_of(fn).bind({"a": "x", "b": None, "c": 2}) == {"a": "x", "b": None, "c": 2}


def test_callable_objects_and_partials():
    class Tool:
        async def __call__(self, ctx: Context, x: int) -> str: ...

    async def fn(x: int, y: str) -> None: ...

    sig = signature_of(Tool())
    assert sig.context_parameter == "ctx" and sig.input_schema["required"] == ["x"] and sig.wraps_output
    assert signature_of(functools.partial(fn, y="a")).input_schema["properties"] == {
        "x": {"type": "integer"},
        "y": {"type": "string", "default": "a"},
    }


def test_sets_reject_duplicates():
    async def fn(tags: set[str]) -> None: ...

    with pytest.raises(ArgumentError, match=r"^invalid arguments: 'tags': \['a', 'a'\] has non-unique elements$"):
        signature_of(fn).bind({"tags": ["a", "a"]})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"limit": 3}, "missing required argument 'query'"),
        ({}, "missing required argument 'query'"),
        ({"query": "q", "limit": "ten"}, "'limit': 'ten' is not of type 'integer'"),
        ({"query": "q", "limit": True}, "'limit': True is not of type 'integer'"),
        ({"query": "q", "foo": 1}, "unexpected argument 'foo'"),
        ({"query": "q", "foo": 1, "bar": 2}, "unexpected arguments 'bar', 'foo'"),
        ({"query": "q", "ctx": 1}, "unexpected argument 'ctx'"),
        ({"query": "q", "mode": "slow"}, "'mode': 'slow' is not one of ['fast', 'full']"),
        ({"query": "q", "tags": ["a", 1]}, "'tags[1]': 1 is not of type 'string'"),
        ({"query": "q", "tags": "a"}, "'tags': 'a' is not of type 'array', 'null'"),
    ],
)
def test_bind_errors(arguments, message):
    sig = signature_of(search)
    with pytest.raises(ArgumentError) as info:
        sig.bind(arguments)
    assert str(info.value) == f"invalid arguments: {message}"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"filter": {"since": 3}}, "'filter.since': 3 is not of type 'string'"),
        ({"filter": {}}, "missing required argument 'filter.since'"),
        ({"filter": {"since": "x", "seen": 1}}, "unexpected argument 'filter.seen'"),
        (
            {"filter": {"since": "x", "colors": ["red", "blue"]}},
            "'filter.colors[1]': 'blue' is not one of ['red', 'green']",
        ),
        ({"filter": {"since": "x"}, "maybe": {"since": 1}}, "'maybe.since': 1 is not of type 'string'"),
        ({"filter": {"since": "x"}, "maybe": "x"}, "'maybe': 'x' is not of type 'object', 'null'"),
    ],
)
def test_bind_nested_errors(arguments, message):
    async def fn(filter: Filter, maybe: Filter | None = None) -> None: ...

    with pytest.raises(ArgumentError) as info:
        signature_of(fn).bind(arguments)
    assert str(info.value) == f"invalid arguments: {message}"


def test_bind_error_messages_stay_short_and_on_one_line():
    with pytest.raises(ArgumentError) as info:
        signature_of(search).bind({"query": "q", "limit": "x\n" * 1000})
    message = str(info.value)
    assert "\n" not in message and len(message) < 200
    assert message.startswith("invalid arguments: 'limit': 'x\\nx\\n")
    assert message.endswith(" is not of type 'integer'")


def test_bind_rejects_non_objects():
    with pytest.raises(ArgumentError, match=r"^invalid arguments: expected an object, got \[1\]$"):
        signature_of(search).bind([1])


def test_bind_reports_failing_class_validators():
    async def fn(p: Positive, ps: list[Positive]) -> None: ...

    sig = signature_of(fn)
    assert sig.bind({"p": {"n": 1}, "ps": []}) == {"p": Positive(1), "ps": []}
    with pytest.raises(ArgumentError) as info:
        sig.bind({"p": {"n": -1}, "ps": []})
    assert str(info.value) == "invalid arguments: 'p': 'n' must be > 0: -1"
    with pytest.raises(ArgumentError) as info:
        sig.bind({"p": {"n": 1}, "ps": [{"n": 2}, {"n": 0}]})
    assert str(info.value) == "invalid arguments: 'ps[1]': 'n' must be > 0: 0"


def test_param_schema_keywords_are_enforced():
    async def fn(n: Annotated[int, Param(schema={"minimum": 1})]) -> None: ...

    with pytest.raises(ArgumentError, match=r"^invalid arguments: 'n': 0 is less than the minimum of 1$"):
        signature_of(fn).bind({"n": 0})


# -- output -----------------------------------------------------------------------------------


def test_no_output_schema():
    async def absent(): ...
    async def none() -> None: ...
    async def anything() -> Any: ...
    async def content() -> TextContent: ...
    async def contents() -> list[TextContent | None]: ...
    async def result() -> CallToolResult: ...

    for fn in (absent, none, anything, content, contents, result):
        sig = signature_of(fn, content_types=(TextContent,))
        assert sig.output_schema is None and not sig.wraps_output
        assert sig.structured("whatever") is None
        sig.validate_output({"anything": 1})  # nothing to check against


def test_object_like_return_types_are_not_wrapped():
    async def point() -> Point: ...
    async def person() -> Person: ...
    async def counts() -> dict[str, int]: ...
    async def hit() -> Annotated[Hit, "the best hit"]: ...

    assert signature_of(point).output_schema == {
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "number", "default": 0.0},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        },
        "required": ["x"],
        "additionalProperties": False,
    }
    assert signature_of(person).output_schema["properties"] == {"name": {"type": "string"}, "nick": {"type": "string"}}
    assert signature_of(counts).output_schema == {"type": "object", "additionalProperties": {"type": "integer"}}
    sig = signature_of(hit)
    assert not sig.wraps_output
    assert sig.output_schema == {  # a recursive reference to the root class is "#"
        "type": "object",
        "description": "the best hit",
        "properties": {
            "title": {"type": "string"},
            "score": {"type": "number"},
            "children": {"type": "array", "items": {"$ref": "#"}},
        },
        "required": ["title", "score"],
        "additionalProperties": False,
    }
    value = sig.structured(Hit("a", 1.5, [Hit("b", 2.0)]))
    assert value == {"title": "a", "score": 1.5, "children": [{"title": "b", "score": 2.0, "children": []}]}
    sig.validate_output(value)

    p = signature_of(point)
    assert p.structured(Point(1.0, tags={"t"})) == {"x": 1.0, "y": 0.0, "tags": ["t"]}


def test_other_return_types_are_wrapped():
    async def text() -> str: ...
    async def hits() -> list[Hit]: ...
    async def maybe() -> Color | None: ...

    sig = signature_of(text)
    assert sig.wraps_output
    assert sig.output_schema == {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}
    assert sig.structured("hi") == {"result": "hi"}

    sig = signature_of(hits)
    assert sig.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Hit"}}},
        "required": ["result"],
        "$defs": {
            "Hit": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "score": {"type": "number"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Hit"}},
                },
                "required": ["title", "score"],
                "additionalProperties": False,
            }
        },
    }
    structured = sig.structured([Hit("a", 1.0)])
    assert structured == {"result": [{"title": "a", "score": 1.0, "children": []}]}
    sig.validate_output(structured)

    sig = signature_of(maybe)
    assert sig.structured(Color.RED) == {"result": "red"}
    assert sig.structured(None) == {"result": None}


def test_validate_output_errors():
    async def hits() -> list[Hit]: ...
    async def point() -> Point: ...

    sig = signature_of(hits)
    with pytest.raises(OutputError) as info:
        sig.validate_output({"result": [{"title": "a", "score": "high"}]})
    assert str(info.value) == "invalid structured output: 'result[0].score': 'high' is not of type 'number'"
    with pytest.raises(OutputError) as info:
        sig.validate_output({})
    assert str(info.value) == "invalid structured output: missing required property 'result'"
    with pytest.raises(OutputError, match="unexpected property 'z'"):
        signature_of(point).validate_output({"x": 1, "z": 2})
    with pytest.raises(OutputError, match="None is not of type 'object'"):
        signature_of(point).validate_output(signature_of(point).structured(None))


def test_explicit_output_schema_overrides():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    async def fn() -> str: ...

    sig = signature_of(fn, output_schema=schema)
    assert sig.output_schema is schema and not sig.wraps_output
    assert sig.structured({"n": 1}) == {"n": 1}
    with pytest.raises(OutputError, match="^invalid structured output: missing required property 'n'$"):
        sig.validate_output(sig.structured({}))


# -- registration errors ----------------------------------------------------------------------


class Opaque:
    pass


async def when(day: Opaque) -> None: ...
async def keys(m: dict[int, str]) -> None: ...
async def classes(x: Filter | Point) -> None: ...
async def star(*args: int) -> None: ...
async def positional(a: int, /) -> None: ...
async def nested(p: list[dict[str, Opaque]]) -> None: ...
async def returns() -> Opaque: ...
async def two(a: Context, b: Context) -> None: ...


@attrs.define
class Bad:
    when: Opaque


async def bad_field(b: Bad) -> None: ...


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (when, "when: parameter 'day': unsupported type tests.app.test_signature.Opaque"),
        (keys, "keys: parameter 'm': dict[int, str]: JSON object keys are strings, use dict[str, ...]"),
        (classes, "classes: parameter 'x': unsupported union"),
        (star, "star: parameter 'args': tool arguments are passed by keyword"),
        (positional, "positional: parameter 'a': tool arguments are passed by keyword"),
        (nested, "nested: parameter 'p': unsupported type tests.app.test_signature.Opaque"),
        (bad_field, "bad_field: parameter 'b': Bad.when: unsupported type tests.app.test_signature.Opaque"),
        (returns, "returns: return type: unsupported type tests.app.test_signature.Opaque"),
        (two, "two: more than one Context parameter ('a', 'b')"),
    ],
)
def test_unsupported_annotations_raise_type_error(fn, message):
    with pytest.raises(TypeError) as info:
        ToolSignature.from_function(fn)
    assert str(info.value).startswith(message)


def test_unresolvable_hint_raises_type_error():
    async def fn(x: "Missing") -> None: ...  # noqa: F821

    with pytest.raises(TypeError, match="fn: cannot resolve type hints"):
        ToolSignature.from_function(fn)


def test_errors_are_value_errors():
    assert issubclass(ArgumentError, ValueError) and issubclass(OutputError, ValueError)
