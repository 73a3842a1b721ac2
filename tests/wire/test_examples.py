"""Every example of the 2026-07-28 schema reads into its wire type and writes back to the same JSON."""

import json
from pathlib import Path

import attrs
import pytest

from mcptrio import wire
from mcptrio.wire import structure, unstructure

EXAMPLES = Path(__file__).parents[1] / "data" / "spec" / "schema" / "2026-07-28" / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*/*.json"))

# Schema names of error objects: an Error with a fixed code.
ERROR_OBJECTS = {"ParseError", "InvalidRequestError", "MethodNotFoundError", "InvalidParamsError", "InternalError"}


def unknown_keys(obj: object, path: str = "$") -> list[str]:
    """Every key that landed in an ``extra``: a typo in a wire name would end up there."""
    found = []
    if attrs.has(type(obj)):
        found += [f"{path}.{key}" for key in getattr(obj, "extra", {})]
        for a in attrs.fields(type(obj)):
            if a.name != "extra":
                found += unknown_keys(getattr(obj, a.name), f"{path}.{a.name}")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            found += unknown_keys(value, f"{path}[{key!r}]")
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            found += unknown_keys(value, f"{path}[{index}]")
    return found


def read(data: object, cls: object, path: str | None = None) -> object:
    obj = structure(data, cls, path=path)
    assert unknown_keys(obj) == []
    return obj


def roundtrip(kind: str, data: object) -> object:
    """Read ``data`` as the schema type ``kind`` and write it back; every key must be typed."""
    if kind in ERROR_OBJECTS:
        error = read(data, wire.Error)
        assert error.code in (-32700, -32600, -32601, -32602, -32603)
        return unstructure(error)
    target = getattr(wire, kind, None)
    if target is not None:
        return unstructure(read(data, target))
    # The rest are JSON-RPC envelopes: read the envelope, then its params, result or error data.
    message = read(data, wire.JSONRPCMessage)
    if isinstance(message, wire.JSONRPCRequest):
        assert kind.endswith("Request")
        params = read(message.params, wire.PARAMS_BY_METHOD[message.method], path="params")
        return unstructure(attrs.evolve(message, params=unstructure(params)))
    if isinstance(message, wire.JSONRPCNotification):
        assert kind.endswith("Notification")
        cls = wire.PARAMS_BY_METHOD.get(message.method) or wire.SERVER_PARAMS_BY_METHOD[message.method]
        if message.params is None:
            return unstructure(message)
        params = read(message.params, cls, path="params")
        return unstructure(attrs.evolve(message, params=unstructure(params)))
    if isinstance(message, wire.JSONRPCResultResponse):
        cls = getattr(wire, kind.removesuffix("Response"))
        result = read(message.result, cls, path="result")
        return unstructure(attrs.evolve(message, result=unstructure(result)))
    assert isinstance(message, wire.JSONRPCErrorResponse)
    assert kind.endswith("Error")
    data_cls = wire.ERROR_DATA_BY_CODE.get(message.error.code)
    if data_cls is None or message.error.data is None:
        return unstructure(message)
    error_data = read(message.error.data, data_cls, path="error.data")
    return unstructure(attrs.evolve(message, error=attrs.evolve(message.error, data=unstructure(error_data))))


def test_all_examples_are_collected() -> None:
    assert len(EXAMPLE_FILES) == 129
    assert len({path.parent.name for path in EXAMPLE_FILES}) == 88


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_round_trips(path: Path) -> None:
    data = json.loads(path.read_text())
    assert roundtrip(path.parent.name, data) == data


def test_round_trip_keeps_number_types() -> None:
    """JSON 50 comes back as 50, not 50.0, and 0.5 stays a float: ints stay ints in float fields."""
    data = {"progressToken": 1, "progress": 50, "total": 100.5}
    params = structure(data, wire.ProgressNotificationParams)
    assert type(params.progress) is int and type(params.total) is float
    assert json.dumps(unstructure(params)) == json.dumps(data)
