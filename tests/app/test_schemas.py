"""The schemas tools publish: object types inlined (what real clients accept), recursive ones under
``$defs`` (they have no finite inline form), ``$defs`` kept when asked; Pydantic models and
``Field``s with Pydantic's own schemas; descriptions from ``Annotated``; and no ``$ref`` in what the
first-party plugins publish.  (Each value type, round trip and error: tests/properties/test_value_types.py.)"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Annotated, Any

import pydantic
import pytest
import typing_extensions
from jsonschema import Draft202012Validator

import mcptrio
from mcptrio.plugins import load
from mcptrio.testing import open_client


@dataclasses.dataclass
class Place:
    """Somewhere."""

    name: str
    lat: float = 0.0


@dataclasses.dataclass
class Trip:
    start: Place
    stops: list[Place]


@dataclasses.dataclass
class Node:
    label: str
    children: list[Node] = dataclasses.field(default_factory=list)


class Rating(pydantic.BaseModel):
    """How good it was."""

    stars: int = pydantic.Field(ge=1, le=5, description="one to five")
    place: Place


def definitions(registry: mcptrio.Registry) -> dict[str, dict[str, Any]]:
    app = registry if isinstance(registry, mcptrio.App) else mcptrio.App()
    if app is not registry:
        app.include(registry)
    out = {name: entry.definition() for name, entry in app.tools.items()}
    for definition in out.values():
        Draft202012Validator.check_schema(definition["inputSchema"])
        if "outputSchema" in definition:
            Draft202012Validator.check_schema(definition["outputSchema"])
    return out


def trips(registry: mcptrio.Registry) -> mcptrio.Registry:
    @registry.tool
    def plan(trip: Trip, again: Annotated[Trip | None, "a second trip"] = None) -> Trip:
        return trip

    @registry.tool
    def tree(root: Node) -> Node:
        return root

    return registry


def test_object_types_are_inlined_and_recursive_ones_stay_under_defs():
    tools = definitions(trips(mcptrio.Registry("trips")))
    plan = tools["plan"]
    place = {
        "type": "object",
        "description": "Somewhere.",
        "properties": {"name": {"type": "string"}, "lat": {"type": "number", "default": 0.0}},
        "required": ["name"],
        "additionalProperties": False,
    }
    trip = {
        "type": "object",
        "properties": {"start": place, "stops": {"type": "array", "items": place}},
        "required": ["start", "stops"],
        "additionalProperties": False,
    }
    assert plan["inputSchema"]["properties"] == {
        "trip": trip,
        "again": {"anyOf": [trip, {"type": "null"}], "description": "a second trip", "default": None},
    }
    assert plan["outputSchema"] == trip
    assert "$ref" not in json.dumps(plan)
    # A recursive type has no finite inline form: a reference to itself, under $defs (or "#" at the root).
    tree = tools["tree"]
    assert tree["inputSchema"]["properties"]["root"] == {"$ref": "#/$defs/Node"}
    assert tree["inputSchema"]["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert tree["outputSchema"]["properties"]["children"]["items"] == {"$ref": "#"}


@pytest.mark.parametrize(
    "registry", [mcptrio.Registry("trips", inline_schemas=False), mcptrio.App("trips", inline_schemas=False)]
)
def test_inline_schemas_false_keeps_defs(registry):
    plan = definitions(trips(registry))["plan"]
    assert plan["inputSchema"]["properties"]["trip"] == {"$ref": "#/$defs/Trip"}
    assert set(plan["inputSchema"]["$defs"]) == {"Trip", "Place"}
    assert plan["inputSchema"]["$defs"]["Trip"]["properties"]["start"] == {"$ref": "#/$defs/Place"}


async def test_inlined_and_kept_schemas_validate_the_same_arguments():
    for inline in (True, False):
        app = trips(mcptrio.App("trips", inline_schemas=inline))
        async with open_client(app) as client:
            trip = {"start": {"name": "A"}, "stops": [{"name": "B", "lat": 1}]}
            good = await client.call_tool("plan", {"trip": trip})
            assert good["structuredContent"]["stops"] == [{"name": "B", "lat": 1.0}]
            bad = await client.call_tool("plan", {"trip": {"start": {"name": "A"}, "stops": [{"lat": 1}]}})
            assert bad["content"][0]["text"] == "invalid arguments: missing required argument 'trip.stops[0].name'"
            deep = await client.call_tool("tree", {"root": {"label": "a", "children": [{"label": 2}]}})
            assert deep["content"][0]["text"] == (
                "invalid arguments: 'root.children[0].label': 2 is not of type 'string'"
            )


def test_pydantic_models_and_fields_have_pydantic_schemas_inlined():
    plugin = mcptrio.Registry("p")

    @plugin.tool
    async def rate(
        rating: Rating,
        note: Annotated[str, pydantic.Field(max_length=10, description="short")] = "",
        by: Annotated[str, typing_extensions.Doc("who rates")] = "me",
    ) -> Rating:
        return rating

    rate_tool = definitions(plugin)["rate"]
    properties = rate_tool["inputSchema"]["properties"]
    assert properties["rating"]["description"] == "How good it was."
    assert properties["rating"]["properties"]["stars"] == {
        "description": "one to five",
        "maximum": 5,
        "minimum": 1,
        "title": "Stars",
        "type": "integer",
    }
    assert properties["rating"]["properties"]["place"]["properties"]["name"] == {"title": "Name", "type": "string"}
    assert properties["note"] == {"type": "string", "maxLength": 10, "description": "short", "default": ""}
    assert properties["by"] == {"type": "string", "description": "who rates", "default": "me"}
    assert rate_tool["outputSchema"]["properties"]["stars"]["maximum"] == 5
    assert "$ref" not in json.dumps(rate_tool)


class Folder(pydantic.BaseModel):
    name: str
    inside: list[Folder] = []


def test_a_recursive_pydantic_model_at_the_root_of_an_output_schema():
    plugin = mcptrio.Registry("p")

    @plugin.tool
    def mkdir(name: str) -> Folder:
        return Folder(name=name)

    output = definitions(plugin)["mkdir"]["outputSchema"]
    assert output["type"] == "object" and output["properties"]["inside"]["items"] == {"$ref": "#"}
    assert "$defs" not in output


# Tools whose schemas are given verbatim, as a conformance scenario dictates, with $defs and $ref
# on purpose (SEP-1613: a server must keep them as written).
VERBATIM = {"json_schema_2020_12_tool"}


def test_no_schema_the_first_party_plugins_publish_has_a_ref():
    app = mcptrio.App()
    for name in ("everything", "filesystem", "bench"):
        app.include(load(name))
    with_refs = set()
    for name, entry in app.tools.items():
        if "$ref" in json.dumps(entry.definition()):
            with_refs.add(name)
    for entry in app.prompts.values():
        assert "$ref" not in json.dumps(entry.definition())
    assert with_refs == VERBATIM
    assert len(app.tools) > 40 and app.prompts


def test_a_program_that_does_not_use_pydantic_never_imports_it():
    program = """
import datetime, decimal, sys, uuid
import trio
import mcptrio
from mcptrio.testing import open_client

app = mcptrio.App()

@app.tool
def later(at: datetime.datetime, by: datetime.timedelta, id: uuid.UUID, amount: decimal.Decimal) -> datetime.datetime:
    return at + by

async def main():
    async with open_client(app) as client:
        result = await client.call_tool("later", {"at": "2026-07-28T10:00:00Z", "by": "PT1H", "id": str(uuid.uuid4()),
                                                  "amount": "1.5"})
        assert result["structuredContent"] == {"result": "2026-07-28T11:00:00+00:00"}, result

trio.run(main)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core", "pathlib_abc")))
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
