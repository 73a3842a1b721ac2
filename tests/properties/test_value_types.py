"""Property tests: every value type a tool may take and return, through a served session in both eras.

For each type a tool (half of them plain ``def``, run in a thread) receives a value the client
wrote the way that type's JSON Schema ``format`` says, and returns it: the handler must get
exactly that value, of that type; the answer's ``structuredContent`` must fit the tool's
``outputSchema`` (its formats checked by the patterns below) and read back to the same value.  A
string that is not such a value is an ``isError`` result naming the argument.  The same for a
dataclass and a Pydantic model made of all of them.

Each example runs one session in its own ``trio.run``; a few values per example share it.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import re
import uuid
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

import jsonschema
import pydantic
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcptrio import App
from mcptrio.testing import open_client

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ERAS = ["legacy", "modern"]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


# -- how a client writes and reads each type (written here from the formats, not from mcptrio) ------

_DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d:\d\d)?")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_TIME = re.compile(r"\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d:\d\d)?")
_DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,6}))?S)?)?")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def write_duration(value: datetime.timedelta) -> str:
    """Seconds only (``PT90061.5S``): another spelling than the one the server writes."""
    micros = value // datetime.timedelta(microseconds=1)
    sign, micros = ("-" if micros < 0 else ""), abs(micros)
    return f"{sign}PT{micros // 1_000_000}.{micros % 1_000_000:06d}S"


def read_duration(text: str) -> datetime.timedelta:
    found = _DURATION.fullmatch(text)
    assert found is not None and text not in ("P", "-P") and not text.endswith("T"), text
    sign, days, hours, minutes, seconds, fraction = found.groups()
    value = datetime.timedelta(
        days=int(days or 0),
        hours=int(hours or 0),
        minutes=int(minutes or 0),
        seconds=int(seconds or 0),
        microseconds=int((fraction or "").ljust(6, "0")),
    )
    return -value if sign else value


def read_checked(pattern: re.Pattern[str], read: Callable[[str], Any]) -> Callable[[str], Any]:
    def checked(text: str) -> Any:
        assert pattern.fullmatch(text), f"{text!r} does not follow its format"
        return read(text)

    return checked


def read_bytes(text: str) -> bytes:
    assert _BASE64.fullmatch(text) and len(text) % 4 == 0, text
    return base64.b64decode(text)


whole_minute_offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(
    lambda minutes: datetime.timezone(datetime.timedelta(minutes=minutes))
)
zones = st.none() | whole_minute_offsets


@dataclasses.dataclass(frozen=True)
class Case:
    """One type: its hint, values, how a client writes and reads them, and strings that are not one."""

    hint: Any
    values: st.SearchStrategy[Any]
    write: Callable[[Any], Any]
    read: Callable[[Any], Any]
    not_values: st.SearchStrategy[Any] | None = None


def _not(parse: Callable[[str], Any]) -> st.SearchStrategy[str]:
    def fails(text: str) -> bool:
        try:
            parse(text)
        except Exception:
            return True
        return False

    return st.text(max_size=30).filter(fails)


CASES: dict[str, Case] = {
    "datetime": Case(
        datetime.datetime,
        st.datetimes(min_value=datetime.datetime(2, 1, 1), max_value=datetime.datetime(9998, 12, 31), timezones=zones),
        lambda v: v.isoformat(),
        read_checked(_DATE_TIME, datetime.datetime.fromisoformat),
        _not(datetime.datetime.fromisoformat),
    ),
    "date": Case(
        Annotated[datetime.date, "a day"],
        st.dates(),
        lambda v: v.isoformat(),
        read_checked(_DATE, datetime.date.fromisoformat),
        _not(datetime.date.fromisoformat),
    ),
    "time": Case(
        datetime.time,
        st.times(timezones=zones),
        lambda v: v.isoformat(),
        read_checked(_TIME, datetime.time.fromisoformat),
        _not(datetime.time.fromisoformat),
    ),
    "timedelta": Case(
        datetime.timedelta,
        st.timedeltas(),
        write_duration,
        read_duration,
        st.text(max_size=20).filter(lambda t: not re.fullmatch(r"[+-]?P[0-9WDTHMS.,]*", t)),
    ),
    "uuid": Case(uuid.UUID, st.uuids(), str, read_checked(_UUID, uuid.UUID), _not(uuid.UUID)),
    "decimal": Case(
        decimal.Decimal,
        st.decimals(allow_nan=False, allow_infinity=False),
        str,
        decimal.Decimal,
        st.sampled_from(["", "1.2.3", "NaN", "Infinity", "1e", "0x10", "one"]),
    ),
    "path": Case(Path, st.text(max_size=40).map(PurePosixPath).map(Path), str, Path),
    "bytes": Case(
        bytes,
        st.binary(max_size=64),
        lambda v: base64.b64encode(v).decode(),
        read_bytes,
        st.sampled_from(["!!", "abc", "a===", "YW Jj"]),
    ),
    "enum": Case(
        Color,
        st.sampled_from(Color),
        lambda v: v.value,
        Color,
        st.text(max_size=10).filter(lambda t: t not in ("red", "green")),
    ),
    "literal": Case(
        Literal["fast", "full"],
        st.sampled_from(["fast", "full"]),
        str,
        str,
        st.text(max_size=10).filter(lambda t: t not in ("fast", "full")),
    ),
    "uuids": Case(
        list[uuid.UUID],
        st.lists(st.uuids(), max_size=3),
        lambda v: [str(i) for i in v],
        lambda v: [uuid.UUID(i) for i in v],
    ),
}

received: list[Any] = []


def echo_tool(app: App, name: str, hint: Any, plain: bool) -> None:
    """Register ``name(value: hint) -> hint``, returning what it was given (recorded)."""
    if plain:

        def echo(value: Any) -> Any:
            received.append(value)
            return value
    else:

        async def echo(value: Any) -> Any:
            received.append(value)
            return value

    echo.__annotations__ = {"value": hint, "return": hint}
    echo.__name__ = echo.__qualname__ = name
    app.tool()(echo)


APP = App("value-types")
for index, (type_name, case) in enumerate(CASES.items()):
    echo_tool(APP, type_name, case.hint, plain=index % 2 == 0)
TOOLS: dict[str, dict[str, Any]] = {name: entry.definition() for name, entry in APP.tools.items()}


def run_session(era: str, calls: list[tuple[str, dict[str, Any]]], app: App = APP) -> list[dict[str, Any]]:
    """Call the tools in one session of ``app``; their answers (``received`` holds what the handlers got)."""

    async def main() -> list[dict[str, Any]]:
        async with open_client(app, era=era) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    received.clear()
    return trio.run(main)


def check_structured(name: str, result: dict[str, Any]) -> Any:
    assert not result.get("isError"), result
    jsonschema.Draft202012Validator(TOOLS[name]["outputSchema"]).validate(result["structuredContent"])
    return result["structuredContent"]


def test_every_value_type_has_its_schema_and_no_ref():
    formats = {name: TOOLS[name]["inputSchema"]["properties"]["value"] for name in CASES}
    assert formats["datetime"] == {"type": "string", "format": "date-time"}
    assert formats["date"] == {"type": "string", "format": "date", "description": "a day"}
    assert formats["time"] == {"type": "string", "format": "time"}
    assert formats["timedelta"] == {"type": "string", "format": "duration"}
    assert formats["uuid"] == {"type": "string", "format": "uuid"}
    assert formats["path"] == {"type": "string"}
    assert formats["bytes"] == {"type": "string", "contentEncoding": "base64"}
    assert formats["decimal"]["anyOf"][0] == {"type": "number"}
    for name, definition in TOOLS.items():
        assert definition["outputSchema"]["properties"]["result"] == formats[name]
        assert "$ref" not in str(definition)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_values_round_trip(era, name, data):
    case = CASES[name]
    values = data.draw(st.lists(case.values, min_size=1, max_size=4), label="values")
    results = run_session(era, [(name, {"value": case.write(v)}) for v in values])
    assert received == values
    assert [type(r) for r in received] == [type(v) for v in values]
    for value, result in zip(values, results):
        assert case.read(check_structured(name, result)["result"]) == value


@pytest.mark.parametrize("era", ERAS)
@SETTINGS
@given(
    numbers=st.lists(
        st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=4
    )
)
def test_a_decimal_may_be_sent_as_a_json_number(era, numbers):
    results = run_session(era, [("decimal", {"value": n}) for n in numbers])
    assert received == [decimal.Decimal(repr(n)) for n in numbers]  # the digits the client wrote
    for number, result in zip(numbers, results):
        assert decimal.Decimal(check_structured("decimal", result)["result"]) == decimal.Decimal(repr(number))


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case.not_values is not None))
@SETTINGS
@given(data=st.data())
def test_what_is_not_such_a_value_is_an_error_naming_the_argument(era, name, data):
    texts = data.draw(st.lists(CASES[name].not_values, min_size=1, max_size=4), label="texts")
    for result in run_session(era, [(name, {"value": text}) for text in texts]):
        assert result["isError"] is True
        [block] = result["content"]
        assert block["text"].startswith("invalid arguments: 'value': ") and "\n" not in block["text"]
    assert received == []  # the handler never ran


# -- composites: a dataclass and a Pydantic model made of them --------------------------------------

# Each field is one of the cases above: its hint, values, how it is written and read.
FIELDS = {
    "at": "datetime",
    "day": "date",
    "clock": "time",
    "took": "timedelta",
    "id": "uuid",
    "amount": "decimal",
    "where": "path",
    "color": "enum",
    "tags": "uuids",
}
Record = dataclasses.make_dataclass(
    "Record", [(field, CASES[case].hint) for field, case in FIELDS.items()] + [("blob", bytes)]
)
Model = pydantic.create_model(
    "Model",
    **{field: (CASES[case].hint, ...) for field, case in FIELDS.items()},
    count=(int, pydantic.Field(ge=0, description="how many")),
)
RECORD_FIELDS = {**FIELDS, "blob": "bytes"}

records = st.builds(Record, **{field: CASES[case].values for field, case in RECORD_FIELDS.items()})
models = st.builds(Model, **{field: CASES[case].values for field, case in FIELDS.items()}, count=st.integers(0, 10**6))


def write_record(record: Any) -> dict[str, Any]:
    return {field: CASES[case].write(getattr(record, field)) for field, case in RECORD_FIELDS.items()}


def read_record(data: dict[str, Any]) -> Any:
    return Record(**{field: CASES[case].read(data[field]) for field, case in RECORD_FIELDS.items()})


COMPOSITES = App("composites")


@COMPOSITES.tool
def record(value: Record) -> Record:
    received.append(value)
    return value


@COMPOSITES.tool
async def model(value: Model) -> Model:
    received.append(value)
    return value


def run_composites(era: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return run_session(era, calls, COMPOSITES)


COMPOSITE_TOOLS = {name: entry.definition() for name, entry in COMPOSITES.tools.items()}


@pytest.mark.parametrize("era", ERAS)
@SETTINGS
@given(values=st.lists(records, min_size=1, max_size=3))
def test_a_dataclass_of_every_type_round_trips(era, values):
    results = run_composites(era, [("record", {"value": write_record(v)}) for v in values])
    assert received == values
    schema = COMPOSITE_TOOLS["record"]["outputSchema"]
    for value, result in zip(values, results):
        jsonschema.Draft202012Validator(schema).validate(result["structuredContent"])
        assert read_record(result["structuredContent"]) == value


@pytest.mark.parametrize("era", ERAS)
@SETTINGS
@given(values=st.lists(models, min_size=1, max_size=3))
def test_a_pydantic_model_of_every_type_round_trips(era, values):
    results = run_composites(era, [("model", {"value": v.model_dump(mode="json")}) for v in values])
    assert received == values
    definition = COMPOSITE_TOOLS["model"]
    assert definition["inputSchema"]["properties"]["value"]["properties"]["count"]["description"] == "how many"
    for value, result in zip(values, results):
        jsonschema.Draft202012Validator(definition["outputSchema"]).validate(result["structuredContent"])
        assert Model.model_validate(result["structuredContent"]) == value


@pytest.mark.parametrize("era", ERAS)
def test_a_pydantic_constraint_is_an_error_naming_the_field(era):
    value = Model(
        at=datetime.datetime(2026, 7, 28),
        day=datetime.date(2026, 7, 28),
        clock=datetime.time(12),
        took=datetime.timedelta(1),
        id=uuid.UUID(int=1),
        amount=decimal.Decimal("1.5"),
        where=Path("a"),
        color=Color.RED,
        tags=[],
        count=1,
    ).model_dump(mode="json")
    [negative, bad_day] = run_composites(
        era, [("model", {"value": {**value, "count": -1}}), ("model", {"value": {**value, "day": "2026-02-31"}})]
    )
    assert negative["isError"] and negative["content"][0]["text"] == (
        "invalid arguments: 'value.count': -1 is less than the minimum of 0"
    )
    assert bad_day["isError"] and bad_day["content"][0]["text"].startswith(
        "invalid arguments: 'value.day': Input should be a valid date"
    )
    assert received == []
