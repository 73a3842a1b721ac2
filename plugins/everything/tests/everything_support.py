"""Test support: a client that answers like the conformance suite's mock client, and checks every
message the server sends against the spec JSON Schema of the revision in use, as the suite does
(its ``wire-schema-valid`` check).

The schemas are the repository's copies in ``tests/data/spec/schema``; without them the wire
checks are skipped (``WIRE_SCHEMAS`` is empty) and ``test_wire_schemas_present`` says so.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import mcptrio_everything

from mcptrio import App, McpError
from mcptrio.testing import open_client

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "tests" / "data" / "spec" / "schema"
WIRE_SCHEMAS = {
    rev: SCHEMA_DIR / rev / "schema.json"
    for rev in ("2025-11-25", "2026-07-28")
    if (SCHEMA_DIR / rev / "schema.json").is_file()
}

LEGACY, MODERN = "2025-11-25", "2026-07-28"
VERSION = {"legacy": LEGACY, "modern": MODERN}

# What the suite's clients declare: the stateful SDK client and the stateless default _meta.
ALL_CAPABILITIES = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}

# Envelope names the suite never validates a message against (they are unions or bases).
_GENERIC = {
    "JSONRPCRequest",
    "JSONRPCNotification",
    "JSONRPCMessage",
    "ClientRequest",
    "ClientNotification",
    "ClientResult",
    "ClientMessage",
    "ServerRequest",
    "ServerNotification",
    "ServerResult",
    "ServerMessage",
}


class WireError(AssertionError):
    """A message the server sent is not valid per the spec schema."""


class Wire:
    """Validators for one revision's schema, indexed the way the suite indexes them."""

    def __init__(self, revision: str) -> None:
        schema = json.loads(WIRE_SCHEMAS[revision].read_text())
        self.defs: dict[str, Any] = schema["$defs"]
        self.dialect = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
        self.method_defs: dict[str, str] = {}
        self.result_defs: dict[str, str] = {}
        self.error_defs: dict[int, str] = {}
        for name, definition in self.defs.items():
            if name in _GENERIC:
                continue
            props = definition.get("properties") or {}
            method = (props.get("method") or {}).get("const")
            if isinstance(method, str):
                self.method_defs[method] = name
                result = name[: -len("Request")] + "Result"
                if name.endswith("Request") and result in self.defs:
                    self.result_defs[method] = result
            for part in (props.get("error") or {}).get("allOf", []):
                code = (part.get("properties") or {}).get("code", {}).get("const")
                if isinstance(code, int):
                    self.error_defs[code] = name
        self._validators: dict[str, Any] = {}

    def check(self, definition: str, instance: Any, what: str) -> None:
        validator = self._validators.get(definition)
        if validator is None:
            root = {"$schema": self.dialect, "$defs": self.defs, "$ref": f"#/$defs/{definition}"}
            validator = jsonschema.validators.validator_for(root)(root)
            self._validators[definition] = validator
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        if errors:
            lines = "; ".join(f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors[:5])
            raise WireError(f"{what} is not a valid {definition}: {lines}\n{json.dumps(instance)[:2000]}")

    def response(self, method: str, message: dict[str, Any]) -> None:
        if "error" in message:
            code = message["error"].get("code")
            name = self.error_defs.get(code) or next(
                n for n in ("JSONRPCErrorResponse", "JSONRPCError") if n in self.defs
            )
            self.check(name, message, f"the error answering {method}")
            return
        result = message["result"]
        if result.get("resultType") == "input_required" and "InputRequiredResult" in self.defs:
            self.check("InputRequiredResult", result, f"the result of {method}")
        elif method in self.result_defs:
            self.check(self.result_defs[method], result, f"the result of {method}")

    def message(self, message: dict[str, Any], what: str) -> None:
        """A notification or server→client request, by its method."""
        name = self.method_defs.get(message["method"])
        if name is not None:
            self.check(name, message, what)


@cache
def wire_for(revision: str) -> Wire | None:
    return Wire(revision) if revision in WIRE_SCHEMAS else None


# -- the mock client's answers (the suite's mockElicitResponse & co.) -----------------------------

NAMED_ANSWERS = {
    "name": "Alice",
    "username": "testuser",
    "email": "test@example.com",
    "ok": True,
    "color": "blue",
    "context": "test context",
    "value": "v",
    "confirmed": True,
}


def _first_choice(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    options = schema.get("oneOf") or schema.get("anyOf") or []
    return options[0]["const"] if options else None


def fill_form(requested_schema: dict[str, Any]) -> dict[str, Any]:
    """A valid answer for an elicitation form: defaults first, then the first choice or a sample."""
    content: dict[str, Any] = {}
    for field, schema in (requested_schema.get("properties") or {}).items():
        kind = schema.get("type")
        if "default" in schema:
            content[field] = schema["default"]
        elif kind == "array":
            content[field] = [_first_choice(schema.get("items") or {})]
        elif _first_choice(schema) is not None:
            content[field] = _first_choice(schema)
        elif field in NAMED_ANSWERS:
            content[field] = NAMED_ANSWERS[field]
        else:
            content[field] = {"boolean": True, "integer": 1, "number": 1.5}.get(kind, "text")
    return content


def elicit_answer(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": fill_form(params.get("requestedSchema") or {})}


def sampling_answer(text: str = "The capital of France is Paris.") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "test-model",
        "stopReason": "endTurn",
    }


ROOTS = {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """What the mock client answers to one server→client request."""
    if method == "elicitation/create":
        return elicit_answer(params)
    if method == "sampling/createMessage":
        return sampling_answer()
    if method == "roots/list":
        return copy.deepcopy(ROOTS)
    raise AssertionError(f"unexpected server→client request {method}")


# -- the probe: a client that validates what the server sends ----------------------------------


class Probe:
    """Wraps the testing client: every result, error, notification and request is schema-checked."""

    def __init__(self, client: Any, era: str) -> None:
        self.client = client
        self.era = era
        self.wire = wire_for(VERSION[era])
        self.asked: list[tuple[str, dict[str, Any]]] = []  # server→client requests (legacy) and input requests

    @property
    def notifications(self) -> list[dict[str, Any]]:
        return self.client.notifications

    def notified(self, method: str) -> list[dict[str, Any]]:
        return [n for n in self.client.notifications if n["method"] == method]

    async def raw(
        self, method: str, params: dict[str, Any] | None = None, *, meta: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The whole response message, validated."""
        message = await self.client.response(method, params or {}, meta=meta)
        if self.wire is not None:
            self.wire.response(method, message)
        return message

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: dict[str, Any] | None = None,
        resolve: bool = True,
    ) -> dict[str, Any]:
        """The result; an error raises ``McpError``; ``resolve`` answers InputRequiredResults and retries."""
        params = dict(params or {})
        while True:
            message = await self.raw(method, params, meta=meta)
            if "error" in message:
                error = message["error"]
                raise McpError(error["code"], error["message"], error.get("data"))
            result = message["result"]
            if not (resolve and result.get("resultType") == "input_required"):
                return result
            requests = result.get("inputRequests") or {}
            for request in requests.values():
                self.asked.append((request["method"], request.get("params") or {}))
            params["inputResponses"] = {key: answer(r["method"], r.get("params") or {}) for key, r in requests.items()}
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            else:
                params.pop("requestState", None)

    async def call(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments or {}}, **kwargs)

    def check_notifications(self) -> None:
        if self.wire is not None:
            for notification in self.client.notifications:
                self.wire.message(notification, f"the notification {notification['method']}")


def make_app() -> App:
    app = App("mcptrio-everything-test", "0.1.0")
    app.include(mcptrio_everything.plugin)
    return app


@contextlib.asynccontextmanager
async def connect(
    era: str, *, capabilities: dict[str, Any] | None = None, app: App | None = None
) -> AsyncIterator[Probe]:
    """A Probe on a fresh App serving the plugin, in ``era`` ("legacy" or "modern")."""
    capabilities = copy.deepcopy(ALL_CAPABILITIES if capabilities is None else capabilities)
    probe: Probe | None = None

    def handler(method: str) -> Any:
        async def handle(params: dict[str, Any]) -> dict[str, Any]:
            assert probe is not None
            probe.asked.append((method, params))
            if probe.wire is not None:
                request = {"jsonrpc": "2.0", "id": "server-request", "method": method, "params": params}
                probe.wire.message(request, f"the server→client request {method}")
            return answer(method, params)

        return handle

    handlers = {m: handler(m) for m in ("elicitation/create", "sampling/createMessage", "roots/list")}
    async with open_client(
        app or make_app(), era=era, version=VERSION[era], capabilities=capabilities, handlers=handlers
    ) as client:
        probe = Probe(client, era)
        if era == "legacy" and probe.wire is not None:
            probe.wire.check("InitializeResult", client.initialize_result, "the initialize result")
        yield probe
        probe.check_notifications()
