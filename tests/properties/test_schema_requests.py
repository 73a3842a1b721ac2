"""Property tests: requests generated from the MCP spec schemas, answered by the ``everything``
plugin, get answers that are valid against the same schemas.

Property 1 (``test_valid_request_per_target``, ``test_valid_request_sequences``): every
client→server request type of a revision's ``ClientRequest`` — 2025-11-25 (and 2025-06-18,
2025-03-26, 2024-11-05) in a legacy session after ``initialize``; 2026-07-28 as stateless requests
with the ``_meta`` envelope — with params generated from that revision's schema and biased toward
the tools, resources, templates and prompts the plugin really has, so that both the success and the
not-found paths run.  ``per_target`` aims one request at each tool, prompt, resource and template (and
a missing one) and follows it with a few random ones; ``sequences`` sends random requests of every
type on one session so that their effects meet.  Every answer must be a valid result of the method's
result type (2026-07-28: the ``*ResultResponse`` union, so an ``InputRequiredResult`` only where the
spec allows one) or a valid JSON-RPC error (``JSONRPCErrorResponse``, plus the revision's own
definition for that code where it has one), and never -32603; a tool called with arguments its own
``inputSchema`` accepts must not end in the generic internal-error result either.  Every notification
and server→client request sent meanwhile must be a valid ``ServerNotification`` / ``ServerRequest``
of the revision.  ``subscriptions/listen`` streams until cancelled: its acknowledgement is awaited,
then the stream is cancelled, or left open (later requests' list-changed announcements reach it) and
closed by the end of input, whose closing ``SubscriptionsListenResult`` is checked too.  An
``InputRequiredResult`` is, when the example says so, answered as a client would and retried.

Property 2 (``test_random_params_never_internal_error``): random JSON values as ``params`` of every
method either revision knows get a schema-valid result or error, and never -32603 (bad params are
the client's fault: -32602).

``test_found_*`` pin what the properties found, on the exact requests, so that a regression shows on
every run (Hypothesis finds some of them only now and then).

Each example runs in its own ``trio.run`` with an autojumping ``MockClock``: the fixtures' 50–100 ms
pauses and any server timeout take no real time.  Violations are collected, not raised inside Trio,
and reported together with the request and the answer.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import jsonschema
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcptrio_everything import plugin
from mcptrio_everything.prompts import ARG1_SUGGESTIONS
from mcptrio_everything.resources import TEMPLATE_IDS

import mcptrio
from mcptrio.app.pagination import encode_cursor
from mcptrio.testing import open_client

from ._mcp_schema import Generator, SchemaViolation, json_values, keys, spec, texts

MODERN = "2026-07-28"
LEGACY_REVISIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
ALL_CAPABILITIES = {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}}
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACK = "notifications/subscriptions/acknowledged"
ANSWER_TIMEOUT = 3600.0  # virtual seconds; longer than any server-side timeout (request_timeout 300 s)

# No shrink phase: an example is a whole served session, and shrinking one took minutes per failing
# test; the violation text names the exact request and answer anyway.
SETTINGS = dict(
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- choosing evenly ------------------------------------------------------------------------------


def pick(options: Any) -> st.SearchStrategy[Any]:
    """Like ``sampled_from``, but as even as a wide integer draw.  Hypothesis's generation leans
    hard toward a sample's first entry and a ``one_of``'s simplest branch; here every tool, prompt
    and resource should get its turn."""
    options = list(options)
    return st.integers(0, 2**32 - 1).map(lambda i: options[i % len(options)])


def mix(generic: st.SearchStrategy[Any], real: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Two thirds the plugin's real names, one third whatever the schema allows (not found, mostly)."""
    return pick([real, real, generic]).flatmap(lambda chosen: chosen)


# -- what the everything plugin really has ---------------------------------------------------------


def make_app(page_size: int = 100) -> mcptrio.App:
    app = mcptrio.App("schema-properties", "0.1.0", page_size=page_size)
    app.include(plugin)
    return app


_APP = make_app()
TOOLS = {name: entry.definition() for name, entry in _APP.tools.items()}
RESOURCE_URIS = sorted(_APP.resources)
TEMPLATES = {entry.uri_template: entry for entry in _APP.templates.values()}
PROMPTS = {name: entry for name, entry in _APP.prompts.items()}
MISSING_URIS = [
    "test://nonexistent-resource-for-conformance-testing",
    "test://static-text/",
    "test://template//data",
    "test://template/1/data/extra",
    "file:///etc/passwd",
    "",
]
ALL_NAMES = sorted(TOOLS) + sorted(PROMPTS)

template_uris = st.one_of(
    st.sampled_from(TEMPLATE_IDS).map("test://template/{}/data".format),
    texts.map("test://template/{}/data".format),
)
real_uris = pick([pick(RESOURCE_URIS), template_uris, pick(MISSING_URIS)]).flatmap(lambda chosen: chosen)
cursors = st.one_of(st.sampled_from([0, 1, 3, 4, 8, 10**6]).map(encode_cursor), texts, st.just("eyJvIjotMX0"))


def _tool_arguments(definition: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Arguments from the tool's own inputSchema (lenient: keywords it can't honour are ignored,
    so some are invalid for the tool, which is the isError path; all are valid CallToolRequests)."""
    schema = definition["inputSchema"]
    lenient = Generator(schema.get("$defs") or {}, strict=False, max_depth=2)
    return lenient.schema(schema).filter(lambda value: isinstance(value, dict))


TOOL_ARGUMENTS = {name: _tool_arguments(definition) for name, definition in TOOLS.items()}
TOOL_VALIDATORS = {  # a tool's inputSchema is 2020-12 unless it names another dialect
    name: jsonschema.validators.validator_for(d["inputSchema"], default=jsonschema.Draft202012Validator)(
        d["inputSchema"]
    )
    for name, d in TOOLS.items()
}


def _string_map(names: list[str]) -> st.SearchStrategy[dict[str, str]]:
    values = st.one_of(texts, st.sampled_from(["testValue1", "test://example-resource", "paris", ""]))
    return st.fixed_dictionaries({}, optional={n: values for n in names}) | st.dictionaries(keys, values, max_size=2)


def _hook_tool(generic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    @st.composite
    def real(draw: Any) -> dict[str, Any]:
        name = draw(pick(sorted(TOOLS)))
        params = draw(generic)
        params["name"] = name
        how = draw(st.sampled_from(["schema", "schema", "keep", "omit", "empty"]))
        if how == "schema":
            params["arguments"] = draw(TOOL_ARGUMENTS[name])
        elif how == "omit":
            params.pop("arguments", None)
        elif how == "empty":
            params["arguments"] = {}
        return params

    return mix(generic, real())


def _hook_uri(generic: st.SearchStrategy[Any], uris: st.SearchStrategy[str] = real_uris) -> st.SearchStrategy[Any]:
    return mix(generic, st.builds(lambda params, uri: {**params, "uri": uri}, generic, uris))


def _hook_prompt(generic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    @st.composite
    def real(draw: Any) -> dict[str, Any]:
        name = draw(pick(sorted(PROMPTS)))
        params = draw(generic)
        params["name"] = name
        arguments = draw(_string_map([a["name"] for a in PROMPTS[name].arguments]))
        if arguments or draw(st.booleans()):
            params["arguments"] = arguments
        else:
            params.pop("arguments", None)
        return params

    return mix(generic, real())


def _hook_complete(generic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    prompt_refs = pick(sorted(PROMPTS)).map(lambda n: {"type": "ref/prompt", "name": n})
    template_refs = st.sampled_from(sorted(TEMPLATES)).map(lambda u: {"type": "ref/resource", "uri": u})
    completer_args = sorted({key for e in [*PROMPTS.values(), *TEMPLATES.values()] for key in e.complete})
    values = st.one_of(st.sampled_from(["", "p", "pa", "par", "te", "1", "12", "zz"] + list(ARG1_SUGGESTIONS)), texts)

    @st.composite
    def real(draw: Any) -> dict[str, Any]:
        ref = draw(pick([prompt_refs, template_refs]).flatmap(lambda chosen: chosen))
        params = draw(generic)
        params["ref"] = ref
        name = draw(st.sampled_from(completer_args + ["arg2", "resourceUri"]) | texts)
        params["argument"] = {"name": name, "value": draw(values)}
        if draw(st.booleans()):
            params["context"] = {"arguments": draw(_string_map(["arg1", "arg2", "id"]))}
        return params

    return mix(generic, real())


def _hook_listen(generic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    flags = st.fixed_dictionaries(
        {}, optional={k: st.booleans() for k in ("toolsListChanged", "promptsListChanged", "resourcesListChanged")}
    )
    subscriptions = st.lists(real_uris, max_size=3)
    filters = st.builds(
        lambda f, s, keep: {**f, "resourceSubscriptions": s} if keep else f, flags, subscriptions, st.booleans()
    )
    return mix(generic, st.builds(lambda params, f: {**params, "notifications": f}, generic, filters))


def _hook_paginated(generic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return mix(generic, st.builds(lambda params, c: {**params, "cursor": c}, generic, cursors))


HOOKS = {
    "CallToolRequestParams": _hook_tool,
    "ReadResourceRequestParams": _hook_uri,
    "SubscribeRequestParams": _hook_uri,
    "UnsubscribeRequestParams": _hook_uri,
    "GetPromptRequestParams": _hook_prompt,
    "CompleteRequestParams": _hook_complete,
    "SubscriptionsListenRequestParams": _hook_listen,
    "PaginatedRequestParams": _hook_paginated,
}


# Optional params that, drawn at random, almost always end in the same -32602 (a random
# ``requestState`` never verifies, a random ``cursor`` never decodes): kept in a few examples only,
# so that most reach the handlers.
RARE_PARAMS = {"requestState": 6, "inputResponses": 4, "cursor": 3}


def _thin(params: dict[str, Any], rolls: list[int]) -> dict[str, Any]:
    keep = {name: roll % RARE_PARAMS[name] == 1 for name, roll in zip(RARE_PARAMS, rolls)}  # 0, the simplest: drop
    return {k: v for k, v in params.items() if keep.get(k, True)}


def params_strategy(revision: str, method: str) -> st.SearchStrategy[dict[str, Any]]:
    """Schema-valid ``params`` for ``method`` of ``revision`` (always an object: the client sends one)."""
    schema = spec(revision)
    request = schema.defs[schema.requests[method]]
    params_schema = request["properties"].get("params")
    if params_schema is None:
        return st.just({})
    rolls = st.lists(st.integers(0, 2**32 - 1), min_size=len(RARE_PARAMS), max_size=len(RARE_PARAMS))
    return st.builds(_thin, schema.generator(hooks=HOOKS).schema(params_schema), rolls)


# -- the mock client's answers to server→client requests --------------------------------------------


def fill_form(requested: dict[str, Any]) -> dict[str, Any]:
    """A filled-in form.  A number field gets an integer: ``ElicitResult.content`` values may be
    strings, integers, booleans or string arrays, but not fractions (2025-11-25 and 2026-07-28)."""
    content: dict[str, Any] = {}
    for field, sub in (requested.get("properties") or {}).items():
        kind = sub.get("type")
        choices = sub.get("enum") or [o.get("const") for o in sub.get("oneOf") or sub.get("anyOf") or []]
        if "default" in sub:
            content[field] = int(sub["default"]) if kind == "number" else sub["default"]
        elif kind == "array":
            items = sub.get("items") or {}
            options = items.get("enum") or [o.get("const") for o in items.get("anyOf") or []]
            content[field] = options[:1]
        elif choices:
            content[field] = choices[0]
        else:
            content[field] = {"boolean": True, "integer": 1, "number": 2}.get(kind, "text")
    return content


ANSWER_DEFINITIONS = {
    "elicitation/create": "ElicitResult",
    "sampling/createMessage": "CreateMessageResult",
    "roots/list": "ListRootsResult",
}


def client_answer(method: str, params: Any, style: str) -> dict[str, Any]:
    if method == "elicitation/create":
        if style != "accept":
            return {"action": style}
        if params.get("mode") == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": fill_form(params.get("requestedSchema") or {})}
    if method == "sampling/createMessage":
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "Paris."},
            "model": "mock",
            "stopReason": "endTurn",
        }
    if method == "roots/list":
        return {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}
    raise AssertionError(f"no answer for {method}")


# -- running one example ----------------------------------------------------------------------------


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)[:1500]


class Exchange:
    """One session: sends requests, waits for their answers, checks everything against the spec."""

    def __init__(self, client: Any, era: str, revision: str, answer_style: str) -> None:
        self.client = client
        self.era = era
        self.spec = spec(revision)
        self.modern = spec(MODERN)
        self.answer_style = answer_style
        self.violations: list[str] = []
        self.server_requests: list[tuple[str, Any]] = []
        self.open_listens: list[tuple[Any, Any, dict[str, Any]]] = []  # (id, channel, request)
        self.raw_sent = 0

    def violation(self, text: str) -> None:
        self.violations.append(text)

    def spec_for(self, params: Any) -> Any:
        """The revision a request is served under: 2026-07-28 when its ``_meta`` names a protocol
        version; else the session's legacy revision (on a connection that never sent initialize,
        a request without that ``_meta`` is a legacy one before the handshake, e.g. ``ping``)."""
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and META_VERSION in meta:
            return self.modern
        return self.spec if self.era == "legacy" else spec(LEGACY_REVISIONS[0])

    # -- server→client requests (legacy) ------------------------------------------------------------

    def handlers(self) -> dict[str, Any]:
        def handler(method: str) -> Any:
            async def handle(params: Any) -> dict[str, Any]:
                self.server_requests.append((method, params))
                answer = client_answer(method, params, self.answer_style)
                if ANSWER_DEFINITIONS[method] in self.spec.defs:  # the harness's own promise
                    self.spec.check(ANSWER_DEFINITIONS[method], answer, "the mock client's answer")
                return answer

            return handle

        return {m: handler(m) for m in ("elicitation/create", "sampling/createMessage", "roots/list")}

    # -- checking answers -----------------------------------------------------------------------------

    @staticmethod
    def check_task_created(schema: Any, result: dict[str, Any], what: str) -> None:
        """A task-augmented tools/call: 2025-11-25's CreateTaskResult, or the 2026-07-28 tasks
        extension's (not in the core schema: its fields checked here)."""
        if "CreateTaskResult" in schema.defs:
            schema.check("CreateTaskResult", result, what)
            return
        missing = {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"} - set(result)
        if missing or result.get("resultType") != "task":
            raise SchemaViolation(f"[{schema.revision}] {what} is not a CreateTaskResult: lacks {sorted(missing)}")

    def check_answer(self, request: dict[str, Any], message: Any) -> None:
        method = request["method"]
        schema = self.spec_for(request.get("params"))
        what = f"the answer to {method} {dumps(request.get('params'))}"
        try:
            if not isinstance(message, dict) or ("result" in message) == ("error" in message):
                raise SchemaViolation(f"[{schema.revision}] {what} is neither a result nor an error: {dumps(message)}")
            if message.get("id") != request["id"]:
                raise SchemaViolation(f"[{schema.revision}] {what} has id {message.get('id')!r}, not {request['id']!r}")
            if "error" in message:
                self.check_error(schema, message, what)
            elif (
                method == "tools/call"
                and isinstance(message.get("result"), dict)
                and ("task" in message["result"] or message["result"].get("resultType") == "task")
            ):
                self.check_task_created(schema, message["result"], what)
            elif method in schema.requests:
                definition, whole = schema.result_definition(method)
                if whole:
                    schema.check(definition, message, what)
                else:
                    schema.check(schema.result_response, message, what)
                    schema.check(definition, message["result"], what)
            else:
                raise SchemaViolation(
                    f"[{schema.revision}] {what}: {method} is not a request of this revision, "
                    f"yet it got a result: {dumps(message)}"
                )
            if method == "tools/call" and "result" in message:
                self.check_tool_crash(schema, request["params"], message["result"], what)
        except SchemaViolation as exc:
            self.violation(str(exc))

    @staticmethod
    def check_tool_crash(schema: Any, params: Any, result: Any, what: str) -> None:
        """A tool called with arguments its own inputSchema accepts must not fail with the generic
        internal-error result (mcptrio's ``tools_call`` turns an unexpected exception into one):
        that is the tool-call form of a -32603."""
        if not (isinstance(result, dict) and result.get("isError") and isinstance(params, dict)):
            return
        texts_ = [b.get("text", "") for b in result.get("content") or [] if isinstance(b, dict)]
        if not any("failed with an internal error" in t for t in texts_ if isinstance(t, str)):
            return
        name, arguments = params.get("name"), params.get("arguments", {})
        if name in TOOL_VALIDATORS and isinstance(arguments, dict) and TOOL_VALIDATORS[name].is_valid(arguments):
            raise SchemaViolation(
                f"[{schema.revision}] {what}: arguments valid against the tool's inputSchema "
                f"crashed the tool: {dumps(result)}"
            )

    @staticmethod
    def check_error(schema: Any, message: dict[str, Any], what: str) -> None:
        schema.check(schema.error_response, message, what)
        code = message["error"]["code"]
        if code in schema.error_shapes:
            definition, shape = schema.error_shapes[code]
            schema.check(definition, message["error"] if shape == "error" else message, what)
        if code == -32603:
            raise SchemaViolation(f"[{schema.revision}] {what} is an internal error (-32603): {dumps(message)}")

    def check_notifications(self) -> None:
        for notification in self.client.notifications:
            params = notification.get("params") or {}
            meta = params.get("_meta") if isinstance(params, dict) else None
            # A listen stream's notifications (subscriptionId) belong to the 2026-07-28 wire.
            schema = (
                self.modern
                if (self.era == "modern" or (isinstance(meta, dict) and SUBSCRIPTION_ID in meta))
                else self.spec
            )
            method = notification.get("method")
            what = f"the notification {method}"
            if method not in schema.server_notifications:
                self.violation(
                    f"[{schema.revision}] {what} is not a ServerNotification of this revision: {dumps(notification)}"
                )
                continue
            try:
                schema.check(schema.server_notifications[method], notification, what)
                schema.check("ServerNotification", notification, what)
            except SchemaViolation as exc:
                self.violation(str(exc))

    def check_server_requests(self) -> None:
        if self.era == "modern" and self.server_requests:
            self.violation(
                f"[{MODERN}] the server sent requests on a stateless 2026-07-28 exchange: {dumps(self.server_requests)}"
            )
            return
        for method, params in self.server_requests:
            request = {"jsonrpc": "2.0", "id": 0, "method": method, "params": params}
            if method not in self.spec.server_requests:
                self.violation(
                    f"[{self.spec.revision}] the server→client request {method} is not a ServerRequest "
                    f"of this revision: {dumps(request)}"
                )
                continue
            try:
                self.spec.check(self.spec.server_requests[method], request, f"the server→client request {method}")
            except SchemaViolation as exc:
                self.violation(str(exc))

    # -- valid requests (property 1) ----------------------------------------------------------------

    async def valid_request(
        self, method: str, params: dict[str, Any], meta: dict[str, Any] | None, rounds: int, cancel_listen: bool
    ) -> None:
        schema = self.spec if self.era == "legacy" else self.modern
        for _ in range(rounds + 1):
            body = self.client.envelope(params, meta) if self.era == "modern" else copy.deepcopy(params)
            request_id, channel = await self.client.start_request(method, body, envelope=False)
            request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}
            # The harness's own promise: what went out is a valid request of the revision.
            schema.check(schema.requests[method], request, "the generated request")
            message = await self.answer_or_ack(request, channel)
            if message is None:  # an acknowledged subscriptions/listen stream
                if cancel_listen:
                    await self.client.notify("notifications/cancelled", {"requestId": request_id})
                else:
                    self.open_listens.append((request_id, channel, request))
                return
            self.check_answer(request, message)
            result = message.get("result") or {}
            if result.get("resultType") != "input_required" or not isinstance(result.get("inputRequests"), dict):
                return
            # Answer the InputRequiredResult as a client would, and retry.
            params = dict(params)
            params["inputResponses"] = {
                key: client_answer(r["method"], r.get("params") or {}, self.answer_style)
                for key, r in result["inputRequests"].items()
                if isinstance(r, dict) and r.get("method")
            }
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            else:
                params.pop("requestState", None)

    async def answer_or_ack(self, request: dict[str, Any], channel: Any) -> Any:
        """The answer to ``request``; None when it is a subscriptions/listen the server acknowledged."""
        acks_before = sum(1 for n in self.client.notifications if n.get("method") == ACK)
        outcome: dict[str, Any] = {}
        with trio.move_on_after(ANSWER_TIMEOUT):
            async with trio.open_nursery() as nursery:

                async def answer() -> None:
                    outcome["message"] = await channel.receive()
                    nursery.cancel_scope.cancel()

                async def acknowledged() -> None:
                    await self.client.wait_for_notification(ACK, acks_before + 1)
                    outcome["ack"] = True
                    nursery.cancel_scope.cancel()

                nursery.start_soon(answer)
                if request["method"] == "subscriptions/listen":
                    nursery.start_soon(acknowledged)
        if "message" in outcome:
            return outcome["message"]
        if "ack" in outcome:
            ack = [n for n in self.client.notifications if n.get("method") == ACK][-1]
            ack_id = ((ack.get("params") or {}).get("_meta") or {}).get(SUBSCRIPTION_ID)
            if ack_id != request["id"]:
                self.violation(
                    f"the acknowledgement {dumps(ack)} names subscription {ack_id!r}, "
                    f"not the request id {request['id']!r}"
                )
            return None
        self.violation(f"no answer within {ANSWER_TIMEOUT:g} s (virtual) to {dumps(request)}")
        return None

    def check_closed_listens(self) -> None:
        """After end of input: a listen stream left open is closed with a SubscriptionsListenResult."""
        for _request_id, channel, request in self.open_listens:
            try:
                message = channel.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                continue  # closed without a result: allowed ("an abrupt transport close carries no response")
            self.check_answer(request, message)

    # -- random params (property 2) -----------------------------------------------------------------

    async def raw_request(self, method: str, params: Any) -> None:
        self.raw_sent += 1
        request = {"jsonrpc": "2.0", "id": f"raw-{self.raw_sent}", "method": method, "params": params}
        answered_before = len(self.client.unmatched)
        acks_before = sum(1 for n in self.client.notifications if n.get("method") == ACK)
        await self.client.send(request)
        outcome: dict[str, Any] = {}
        with trio.move_on_after(ANSWER_TIMEOUT):
            async with trio.open_nursery() as nursery:

                async def answer() -> None:
                    await self.client.wait_for_unmatched(answered_before + 1)
                    outcome["message"] = self.client.unmatched[answered_before]
                    nursery.cancel_scope.cancel()

                async def acknowledged() -> None:
                    await self.client.wait_for_notification(ACK, acks_before + 1)
                    outcome["ack"] = True
                    nursery.cancel_scope.cancel()

                nursery.start_soon(answer)
                nursery.start_soon(acknowledged)
        if "message" in outcome:
            self.check_answer(request, outcome["message"])
        elif "ack" in outcome:
            await self.client.notify("notifications/cancelled", {"requestId": request["id"]})
        else:
            self.violation(f"no answer within {ANSWER_TIMEOUT:g} s (virtual) to {dumps(request)}")


def run_example(
    era: str, revision: str, capabilities: dict[str, Any], page_size: int, answer_style: str, body: Any
) -> None:
    """Serve a fresh App in memory, run ``body(exchange)``, check what came back, raise on a violation."""

    async def main() -> list[str]:
        exchange = Exchange(None, era, revision, answer_style)
        async with open_client(
            make_app(page_size),
            era=era,
            version=revision if era == "legacy" else MODERN,
            capabilities=capabilities,
            handlers=exchange.handlers(),
        ) as client:
            exchange.client = client
            if era == "legacy":
                try:
                    message = {"jsonrpc": "2.0", "id": 0, "result": client.initialize_result}
                    exchange.spec.check("InitializeResult", client.initialize_result, "the initialize result")
                    exchange.spec.check(exchange.spec.result_response, message, "the initialize response")
                except SchemaViolation as exc:
                    exchange.violation(str(exc))
            await body(exchange)
        exchange.check_closed_listens()
        exchange.check_notifications()
        exchange.check_server_requests()
        stray = [m for m in client.unmatched if not (isinstance(m, dict) and str(m.get("id")).startswith("raw-"))]
        if stray:
            exchange.violation(f"answers with an unknown or null id: {dumps(stray)}")
        return exchange.violations

    violations = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    if violations:
        unique = list(dict.fromkeys(violations))
        raise SchemaViolation(f"{len(unique)} violation(s):\n\n" + "\n\n".join(unique[:40]))


# -- property 1: valid requests --------------------------------------------------------------------


def capability_sets(revision: str) -> st.SearchStrategy[dict[str, Any]]:
    """What a client of ``revision`` may declare: only the capabilities that revision defines (a
    2024-11-05 client knows no ``elicitation``), chosen whole, one by one, or generated."""
    known = set(spec(revision).defs["ClientCapabilities"]["properties"])
    everything = {k: v for k, v in ALL_CAPABILITIES.items() if k in known}
    if revision < "2025-11-25":
        everything = {**everything, "elicitation": {}} if "elicitation" in known else everything
    singles = [{k: v} for k, v in everything.items()]
    return pick(
        [
            st.just(everything),
            st.just(everything),
            st.just({}),
            pick(singles),
            spec(revision).generator().definition("ClientCapabilities"),
        ]
    ).flatmap(lambda chosen: chosen)


def targets(revision: str) -> list[tuple[str, str | None]]:
    """Everything one request can aim at: each tool, prompt, resource and template by name, a
    missing one of each, and every other method of the revision."""
    out: list[tuple[str, str | None]] = []
    for method in sorted(spec(revision).requests):
        if method == "tools/call":
            out += [(method, name) for name in [*TOOLS, "no_such_tool"]]
        elif method == "prompts/get":
            out += [(method, name) for name in [*PROMPTS, "no_such_prompt"]]
        elif method == "resources/read":
            out += [(method, uri) for uri in [*RESOURCE_URIS, "test://template/123/data", *MISSING_URIS[:2]]]
        else:
            out.append((method, None))
    return out


class Steps:
    """Strategies for the requests of a session of one revision, each a dict of ``method``,
    ``params``, the ``meta`` to impose (2026-07-28), how many InputRequiredResult ``rounds`` to
    answer, and whether an acknowledged ``subscriptions/listen`` is cancelled or left open."""

    def __init__(self, revision: str, era: str) -> None:
        self.revision = revision
        self.methods = sorted(spec(revision).requests)
        self.by_method = {m: params_strategy(revision, m) for m in self.methods}
        # 2026-07-28: the generated _meta is valid but names a random protocolVersion; mostly pin
        # the version (else every answer is -32022) and often the capabilities too (MRTR tools).
        self.meta = (
            pick(
                [{META_VERSION: MODERN}] * 4 + [{META_VERSION: MODERN, META_CAPABILITIES: ALL_CAPABILITIES}] * 4 + [{}]
            )
            if era == "modern"
            else st.none()
        )

    def _step(self, method: str, params: dict[str, Any], draw: Any) -> dict[str, Any]:
        return {
            "method": method,
            "params": params,
            "meta": draw(self.meta),
            "rounds": draw(pick([3, 3, 1, 0])),
            "cancel_listen": draw(pick([True, False])),
        }

    def aimed(self, method: str, target: str | None) -> st.SearchStrategy[dict[str, Any]]:
        """A request of ``method`` at ``target`` (a tool or prompt name, a resource URI, or None)."""

        @st.composite
        def build(draw: Any) -> dict[str, Any]:
            params = draw(self.by_method[method])
            if method == "tools/call":
                params = {**params, "name": target}
                if target in TOOL_ARGUMENTS and draw(pick([True, True, False])):
                    params["arguments"] = draw(TOOL_ARGUMENTS[target])
            elif method == "prompts/get":
                params = {**params, "name": target}
                if target in PROMPTS:
                    params["arguments"] = draw(_string_map([a["name"] for a in PROMPTS[target].arguments]))
            elif method == "resources/read":
                params = {**params, "uri": target}
            return self._step(method, params, draw)

        return build()

    def anywhere(self) -> st.SearchStrategy[dict[str, Any]]:
        @st.composite
        def build(draw: Any) -> dict[str, Any]:
            method = draw(pick(self.methods))
            return self._step(method, draw(self.by_method[method]), draw)

        return build()


@cache
def steps_for(revision: str, era: str) -> Steps:
    return Steps(revision, era)


def _valid_body(steps: list[dict[str, Any]]) -> Any:
    async def body(exchange: Exchange) -> None:
        for s in steps:
            await exchange.valid_request(s["method"], s["params"], s["meta"], s["rounds"], s["cancel_listen"])

    return body


def _run_valid(era: str, revision: str, steps: list[dict[str, Any]], data: st.DataObject) -> None:
    capabilities = data.draw(capability_sets(revision), label="capabilities")
    page_size = data.draw(pick([100, 100, 4]), label="page_size")
    answer_style = data.draw(pick(["accept", "accept", "decline", "cancel"]), label="answer_style")
    run_example(era, revision, capabilities, page_size, answer_style, _valid_body(steps))


SESSIONS = [("legacy", "2025-11-25"), ("modern", MODERN)] + [("legacy", r) for r in LEGACY_REVISIONS[1:]]
TARGETED = [
    pytest.param(era, revision, method, target, id=f"{revision}-{method}-{target or ''}".rstrip("-"))
    for era, revision in SESSIONS
    for method, target in targets(revision)
]


@pytest.mark.parametrize(("era", "revision", "method", "target"), TARGETED)
@settings(max_examples=5, **SETTINGS)
@given(data=st.data())
def test_valid_request_per_target(
    era: str, revision: str, method: str, target: str | None, data: st.DataObject
) -> None:
    """Property 1, aimed: each request type at each tool, prompt and resource (and a missing one),
    with whatever else the schema allows in its params, then a few random requests on the same session."""
    steps = steps_for(revision, era)
    first = data.draw(steps.aimed(method, target), label="aimed request")
    rest = data.draw(st.lists(steps.anywhere(), max_size=2), label="then")
    _run_valid(era, revision, [first, *rest], data)


@pytest.mark.parametrize(("era", "revision"), SESSIONS)
@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_valid_request_sequences(era: str, revision: str, data: st.DataObject) -> None:
    """Property 1, sequences: random requests of every type on one session, so that their effects
    meet (setLevel, subscriptions, listen streams that see list changes, pagination)."""
    steps = data.draw(st.lists(steps_for(revision, era).anywhere(), min_size=1, max_size=6), label="requests")
    _run_valid(era, revision, steps, data)


# -- property 2: random params ---------------------------------------------------------------------


def _property_names() -> list[str]:
    """Every property name any request's params may carry, at any depth, in any revision."""
    names: set[str] = set()

    def walk(node: Any, defs: dict[str, Any], seen: set[str]) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = ref.rsplit("/", 1)[-1]
                if target not in seen:
                    seen.add(target)
                    walk(defs[target], defs, seen)
            names.update(node.get("properties") or {})
            for value in node.values():
                walk(value, defs, seen)
        elif isinstance(node, list):
            for value in node:
                walk(value, defs, seen)

    for revision in ("2025-11-25", MODERN):
        schema = spec(revision)
        for name in schema.requests.values():
            walk(schema.defs[name]["properties"].get("params") or {}, schema.defs, set())
    return sorted(names)


PROPERTY_NAMES = _property_names()
KNOWN_METHODS = sorted(set(spec("2025-11-25").requests) | set(spec(MODERN).requests))
bias_keys = pick([pick(PROPERTY_NAMES), pick(PROPERTY_NAMES), keys]).flatmap(lambda chosen: chosen)
leaves = st.one_of(
    json_values,
    st.sampled_from(
        ALL_NAMES
        + RESOURCE_URIS
        + sorted(TEMPLATES)
        + ["ref/prompt", "ref/resource", "arg1", "id", "info", "2026-07-28", "2025-11-25"]
    ),
    real_uris,
    cursors,
)
random_objects = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(bias_keys, children, max_size=4),
    max_leaves=10,
)
random_params = st.dictionaries(bias_keys, random_objects, max_size=5)


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every node in a JSON value, the value itself first."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _nodes(child, (*path, index))
    return out


def _mutate(value: Any, path: tuple[Any, ...], how: str, new: Any, key: str) -> Any:
    """A copy of ``value`` whose node at ``path`` is replaced by ``new``, removed, or given ``key``."""
    if not path:
        if how == "add" and isinstance(value, dict):
            return {**value, key: new}
        return new
    head, rest = path[0], path[1:]
    copied = copy.copy(value)
    if not rest and how == "delete":
        del copied[head]
    else:
        copied[head] = _mutate(value[head], rest, how, new, key)
    return copied


@st.composite
def random_step(draw: Any, era: str) -> dict[str, Any]:
    """One request of any known method: valid params with one node mutated into any JSON value
    (removed, or given a stray key), or params random from the top."""
    revision = MODERN if era == "modern" else LEGACY_REVISIONS[0]
    if draw(pick(["mutated", "mutated", "random"])) == "mutated":
        steps = steps_for(revision, era)
        method = draw(pick(steps.methods))
        params = draw(steps.by_method[method])
        if era == "modern" and draw(pick([True, True, True, False])):
            params = {**params, "_meta": {**params["_meta"], META_VERSION: MODERN}}
        path = draw(pick(_nodes(params)))
        how = draw(pick(["replace", "replace", "replace", "delete", "add"]))
        if how == "delete" and not path:
            how = "replace"
        params = _mutate(params, path, how, draw(random_objects), draw(bias_keys))
        return {"method": method, "params": params}
    method = draw(pick(KNOWN_METHODS))
    params = draw(pick([random_objects, random_params, random_params]).flatmap(lambda chosen: chosen))
    if era == "modern" and isinstance(params, dict):
        how = draw(pick(["envelope", "envelope", "envelope", "extra", "random", "fields"]))
        if how == "random":
            meta = draw(random_objects)
        else:
            meta = {META_VERSION: MODERN, META_CAPABILITIES: draw(pick([ALL_CAPABILITIES, {}]))}
            if how == "extra":
                meta = {**meta, **draw(st.dictionaries(bias_keys, random_objects, max_size=3))}
            elif how == "fields":  # one envelope field of any JSON type
                field = draw(
                    pick(
                        [
                            META_VERSION,
                            META_CAPABILITIES,
                            "io.modelcontextprotocol/clientInfo",
                            "io.modelcontextprotocol/logLevel",
                            "progressToken",
                        ]
                    )
                )
                meta = {**meta, field: draw(random_objects)}
        params = {**params, "_meta": meta}
    return {"method": method, "params": params}


@pytest.mark.parametrize(("era", "revision"), [("legacy", "2025-11-25"), ("modern", MODERN)])
@settings(max_examples=150, **SETTINGS)
@given(data=st.data())
def test_random_params_never_internal_error(era: str, revision: str, data: st.DataObject) -> None:
    """Property 2: any JSON value as the params of any method some revision knows gets a schema-valid
    result or error, and never -32603 (bad params are the client's fault: -32602)."""
    steps = data.draw(st.lists(random_step(era), min_size=1, max_size=6), label="requests")

    async def body(exchange: Exchange) -> None:
        for s in steps:
            await exchange.raw_request(s["method"], s["params"])

    run_example(era, revision, ALL_CAPABILITIES, 100, "accept", body)


# -- what the properties found, pinned --------------------------------------------------------------
# Each of these requests once got an invalid answer (a -32603, a crashed tool, content or an
# elicitation schema the negotiated revision does not have, a non-string ``requested``, a
# non-boolean acknowledged flag).  Hypothesis finds such cases only now and then; these make the
# same checks on the exact requests every run.


def _one(method: str, params: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"method": method, "params": params, "meta": meta, "rounds": 0, "cancel_listen": True}


FOUND = (
    [
        pytest.param(
            "legacy",
            revision,
            {},
            [_one("prompts/get", {"name": "test_input_required_result_prompt"})],
            id=f"{revision}-prompt-that-elicits-without-the-capability",
        )
        for revision in LEGACY_REVISIONS
    ]
    + [
        pytest.param(
            "legacy",
            revision,
            ALL_CAPABILITIES,
            [_one("tools/call", {"name": "test_custom_header", "arguments": {"region": "eu", "extra": 1}})],
            id=f"{revision}-verbatim-input-schema-extra-argument",
        )
        for revision in ("2025-11-25", "2024-11-05")
    ]
    + [
        pytest.param(
            "modern",
            MODERN,
            ALL_CAPABILITIES,
            [
                _one(
                    "tools/call",
                    {"name": "test_custom_header", "arguments": {"region": "eu", "extra": 1}},
                    {META_VERSION: MODERN},
                )
            ],
            id="2026-07-28-verbatim-input-schema-extra-argument",
        ),
        pytest.param(
            "legacy",
            "2024-11-05",
            {},
            [_one("tools/call", {"name": "test_audio_content"})],
            id="2024-11-05-audio-content",
        ),
        pytest.param(
            "legacy",
            "2025-06-18",
            ALL_CAPABILITIES,
            [_one("tools/call", {"name": "test_elicitation_sep1330_enums"})],
            id="2025-06-18-multi-select-elicitation",
        ),
    ]
)


@pytest.mark.parametrize(("era", "revision", "capabilities", "steps"), FOUND)
def test_found_by_the_properties(
    era: str, revision: str, capabilities: dict[str, Any], steps: list[dict[str, Any]]
) -> None:
    run_example(era, revision, capabilities, 100, "accept", _valid_body(steps))


@pytest.mark.parametrize("version", [["2026-07-28"], 20260728, None, {}])
def test_found_non_string_protocol_version(version: Any) -> None:
    """Property 2's find: a non-string ``_meta`` protocolVersion was echoed as
    ``UnsupportedProtocolVersionError.data.requested``, which the schema requires to be a string."""

    async def body(exchange: Exchange) -> None:
        await exchange.raw_request("tools/list", {"_meta": {META_VERSION: version, META_CAPABILITIES: {}}})

    run_example("modern", MODERN, ALL_CAPABILITIES, 100, "accept", body)


@pytest.mark.parametrize("flag", ["yes", 1, {"a": 1}])
def test_found_listen_filter_flags_echoed(flag: Any) -> None:
    """Property 2's find: a truthy non-boolean ``notifications`` flag of ``subscriptions/listen`` was
    echoed in ``notifications/subscriptions/acknowledged``, where the schema requires a boolean."""

    async def body(exchange: Exchange) -> None:
        await exchange.raw_request(
            "subscriptions/listen",
            {"_meta": {META_VERSION: MODERN, META_CAPABILITIES: {}}, "notifications": {"toolsListChanged": flag}},
        )

    run_example("modern", MODERN, ALL_CAPABILITIES, 100, "accept", body)
