"""The table of methods (``mcptrio/protocol/methods.py``) against the spec's schemas, and its columns
against each other and against the tables that are keyed by the same methods."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcptrio import wire
from mcptrio.app.pipeline import HANDLERS
from mcptrio.protocol.methods import APP, METHODS, PROTOCOL, TABLE
from mcptrio.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS

SCHEMAS = Path(__file__).resolve().parents[1] / "data" / "spec" / "schema"
# The io.modelcontextprotocol/tasks extension's requests (not in the 2026-07-28 schema itself).
TASKS_EXTENSION = {"tasks/get", "tasks/update", "tasks/cancel"}


def definitions(revision: str) -> dict[str, Any]:
    document = json.loads((SCHEMAS / revision / "schema.json").read_text())
    return document.get("$defs") or document["definitions"]


def client_requests(revision: str) -> dict[str, str]:
    """Method -> the name of its request definition, for every request a client sends a server."""
    defs = definitions(revision)
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in defs["ClientRequest"]["anyOf"]]
    return {defs[name]["properties"]["method"]["const"]: name for name in names}


def test_the_table_names_each_method_once_and_only_known_revisions():
    assert len(METHODS) == len(TABLE)
    for spec in TABLE:
        assert spec.legacy is None or spec.legacy in LEGACY_VERSIONS, spec
        assert spec.modern is None or spec.modern in MODERN_VERSIONS, spec
        assert spec.legacy is not None or spec.modern is not None, spec


@pytest.mark.parametrize("revision", LEGACY_VERSIONS)
def test_each_legacy_revision_has_the_requests_its_schema_lists(revision):
    in_table = {spec.name for spec in TABLE if spec.legacy is not None and spec.legacy <= revision}
    assert in_table == set(client_requests(revision))


def test_the_modern_revision_has_its_schema_requests_and_the_tasks_extension():
    in_table = {spec.name for spec in TABLE if spec.modern is not None}
    assert in_table == set(client_requests("2026-07-28")) | TASKS_EXTENSION


def test_input_required_and_cache_hints_are_where_the_2026_schema_puts_them():
    defs = definitions("2026-07-28")
    for method, request in client_requests("2026-07-28").items():
        response = defs[request.removesuffix("Request") + "ResultResponse"]["properties"]["result"]
        results = [ref["$ref"].rsplit("/", 1)[1] for ref in response.get("anyOf", [response])]
        assert METHODS[method].input == ("InputRequiredResult" in results), method
        result = next(defs[name] for name in results if name != "InputRequiredResult")
        assert METHODS[method].cacheable == ("ttlMs" in result.get("properties", {})), method


def test_the_mcp_name_header_mirrors_what_the_transport_page_and_the_tasks_extension_name():
    named = {spec.name: spec.mcp_name for spec in TABLE if spec.mcp_name is not None}
    assert named == {
        "tools/call": "name",
        "prompts/get": "name",
        "resources/read": "uri",
        "tasks/get": "taskId",
        "tasks/update": "taskId",
        "tasks/cancel": "taskId",
    }
    assert {spec.name for spec in TABLE if spec.mcp_params is not None} == {"tools/call"}


def test_the_columns_agree_with_each_other():
    for spec in TABLE:
        assert spec.answer in (PROTOCOL, APP), spec
        if spec.answer == PROTOCOL:  # answered at once: nothing a handler or middleware would use
            assert spec.target is None and not spec.input and not spec.stream and not spec.scoped, spec
        if spec.mcp_name is not None or spec.mcp_params is not None or spec.input or spec.cacheable or spec.stream:
            assert spec.modern is not None, spec  # 2026-07-28 features
        if spec.scoped:
            assert spec.target is not None and spec.target.kind in ("tools", "prompts", "resources"), spec
        if spec.mcp_name is not None and spec.target is not None:
            assert spec.mcp_name == spec.target.param, spec


def test_every_method_the_app_answers_has_a_handler_and_no_other_does():
    assert set(HANDLERS) == {spec.name for spec in TABLE if spec.answer == APP}


def test_the_wire_types_cover_the_same_requests():
    # (the tasks methods have no wire types yet)
    requests = {name for name in wire.PARAMS_BY_METHOD if not name.startswith("notifications/")}
    assert requests == set(METHODS) - {name for name in METHODS if name.startswith("tasks/")}
    assert requests <= set(wire.RESULT_BY_METHOD)
