"""The protocol state machine, driven without an event loop."""

import orjson
import pytest

from mcptrio.protocol import Cancel, ClientReply, Dispatch, Send, ServerIdentity, ServerProtocol
from mcptrio.protocol.versions import LEGACY_VERSIONS

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def capabilities(era, version):
    return {"tools": {"listChanged": True}, "era": era, "version": version}


def make_protocol(**kwargs):
    return ServerProtocol(ServerIdentity("srv", "1.2.3", capabilities, **kwargs))


def frame(message):
    return orjson.dumps(message)


def request(id, method, params=None):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def only_send(events):
    assert len(events) == 1 and isinstance(events[0], Send), events
    return events[0].message


def error_code(events):
    return only_send(events)["error"]["code"]


def initialized(version="2025-11-25", capabilities=None):
    protocol = make_protocol()
    result = only_send(
        protocol.receive(
            request(
                0,
                "initialize",
                {
                    "protocolVersion": version,
                    "capabilities": capabilities or {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            )
        )
    )["result"]
    assert protocol.receive(frame({"jsonrpc": "2.0", "method": "notifications/initialized"})) == []
    return protocol, result


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_answers_with_the_clients_supported_version(version):
    protocol, result = initialized(version)
    assert result["protocolVersion"] == version
    assert result["serverInfo"] == {"name": "srv", "version": "1.2.3"}
    assert result["capabilities"] == capabilities("legacy", version)
    assert "resultType" not in result
    assert protocol.state == "ready"


def test_initialize_with_unknown_version_answers_newest_legacy():
    _, result = initialized("2099-01-01")
    assert result["protocolVersion"] == "2025-11-25"


def test_second_initialize_is_refused():
    protocol, _ = initialized()
    assert error_code(protocol.receive(request(5, "initialize", {"protocolVersion": "2025-11-25"}))) == -32600


def test_requests_before_initialize_are_refused_but_ping_is_answered():
    protocol = make_protocol()
    message = only_send(protocol.receive(request(1, "tools/list")))
    assert message["id"] == 1 and message["error"]["code"] == -32602
    assert "initialize" in message["error"]["message"]
    assert only_send(protocol.receive(request(2, "ping"))) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert error_code(protocol.receive(request(3, "no/such"))) == -32601


def test_legacy_request_is_dispatched_with_session_data():
    protocol, _ = initialized(capabilities={"sampling": {}})
    [event] = protocol.receive(request("a", "tools/call", {"name": "x", "_meta": {"progressToken": 7}}))
    assert isinstance(event, Dispatch)
    req = event.request
    assert (req.id, req.method, req.era, req.version) == ("a", "tools/call", "legacy", "2025-11-25")
    assert req.client_capabilities == {"sampling": {}}
    assert req.progress_token == 7 and isinstance(req.progress_token, int)


def test_ping_in_both_states_and_set_level():
    protocol, _ = initialized()
    assert only_send(protocol.receive(request(1, "ping")))["result"] == {}
    assert only_send(protocol.receive(request(2, "logging/setLevel", {"level": "warning"})))["result"] == {}
    assert protocol.log_level == "warning"
    assert error_code(protocol.receive(request(3, "logging/setLevel", {"level": "loud"}))) == -32602


def test_modern_only_methods_are_unknown_to_legacy_sessions():
    protocol, _ = initialized()
    assert error_code(protocol.receive(request(1, "subscriptions/listen"))) == -32601


# -- JSON-RPC envelope errors --------------------------------------------------------------------


def test_parse_error_has_null_id_and_session_continues():
    protocol, _ = initialized()
    message = only_send(protocol.receive(b'{"jsonrpc": "2.0", "id": 1, "method": '))
    assert message == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error: invalid JSON"}}
    assert only_send(protocol.receive(request(2, "ping")))["result"] == {}


def test_invalid_utf8_is_a_parse_error():
    protocol = make_protocol()
    message = only_send(protocol.receive(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff\xfe"}'))
    assert message["error"]["code"] == -32700 and "UTF-8" in message["error"]["message"]


@pytest.mark.parametrize("raw", [b"[1]", b"42", b'"text"', b"null", b"true"])
def test_non_object_messages_are_invalid_requests(raw):
    protocol = make_protocol()
    events = protocol.receive(raw)
    message = only_send(events)
    assert message["error"]["code"] == -32600 and message["id"] is None


def test_missing_jsonrpc_keeps_the_id():
    protocol = make_protocol()
    message = only_send(protocol.receive(frame({"id": 9, "method": "ping"})))
    assert message["id"] == 9 and message["error"]["code"] == -32600
    assert "jsonrpc" in message["error"]["message"]


@pytest.mark.parametrize("bad_id", [None, True, 1.5, [1], {"a": 1}])
def test_bad_ids_are_refused_with_null_id(bad_id):
    protocol = make_protocol()
    message = only_send(protocol.receive(frame({"jsonrpc": "2.0", "id": bad_id, "method": "ping"})))
    assert message["id"] is None and message["error"]["code"] == -32600


@pytest.mark.parametrize("request_id", [77, "r-77"])
def test_a_request_without_method_is_refused_with_its_own_id(request_id):
    protocol = make_protocol()
    message = only_send(protocol.receive(frame({"jsonrpc": "2.0", "id": request_id})))
    assert message["id"] == request_id and message["error"]["code"] == -32600
    both = only_send(protocol.receive(frame({"jsonrpc": "2.0", "id": request_id, "result": {}, "error": {}})))
    assert both["id"] == request_id and both["error"]["code"] == -32600
    nameless = only_send(protocol.receive(frame({"jsonrpc": "2.0", "id": 1.5})))
    assert nameless["id"] is None  # no valid id to echo


def test_non_object_params_are_invalid_params():
    protocol, _ = initialized()
    assert (
        error_code(protocol.receive(frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]})))
        == -32602
    )


def test_method_must_be_a_string():
    protocol = make_protocol()
    assert error_code(protocol.receive(frame({"jsonrpc": "2.0", "id": 1, "method": 5}))) == -32600


def test_malformed_notification_is_dropped_silently():
    protocol = make_protocol()
    assert protocol.receive(frame({"jsonrpc": "1.0", "method": "notifications/x"})) == []


def test_oversize_gets_a_clear_error():
    protocol = make_protocol()
    message = only_send(protocol.receive_oversize(5000, 4096))
    assert message["error"]["code"] == -32600 and "5000" in message["error"]["message"]


# -- in-flight table and cancellation -------------------------------------------------------------


def test_duplicate_in_flight_id_is_refused_and_freed_after_finish():
    protocol, _ = initialized()
    [first] = protocol.receive(request(1, "tools/list"))
    assert isinstance(first, Dispatch)
    duplicate = only_send(protocol.receive(request(1, "tools/list")))
    assert duplicate["id"] == 1 and duplicate["error"]["code"] == -32600
    assert "already in flight" in duplicate["error"]["message"]
    protocol.finished(1)
    [again] = protocol.receive(request(1, "tools/list"))
    assert isinstance(again, Dispatch)


def test_string_and_integer_ids_are_distinct():
    protocol, _ = initialized()
    assert isinstance(protocol.receive(request(1, "tools/list"))[0], Dispatch)
    assert isinstance(protocol.receive(request("1", "tools/list"))[0], Dispatch)


def test_cancel_only_for_in_flight_ids():
    protocol, _ = initialized()
    protocol.receive(request(4, "tools/call", {"name": "x"}))
    cancel = frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4, "reason": "r"}})
    assert protocol.receive(cancel) == [Cancel(4, "r")]
    unknown = frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    assert protocol.receive(unknown) == []
    protocol.finished(4)
    assert protocol.receive(cancel) == []


def test_client_response_is_routed():
    protocol, _ = initialized()
    events = protocol.receive(frame({"jsonrpc": "2.0", "id": "mcptrio-1", "result": {"roots": []}}))
    assert events == [ClientReply("mcptrio-1", {"roots": []}, None)]


# -- batches ---------------------------------------------------------------------------------------


def test_batch_accepted_on_2025_03_26_only():
    protocol, _ = initialized("2025-03-26")
    batch = frame(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
        ]
    )
    events = protocol.receive(batch)
    dispatched = [e for e in events if isinstance(e, Dispatch)]
    assert len(dispatched) == 1 and dispatched[0].request.batch is not None
    collector = dispatched[0].request.batch
    assert collector.replies == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    complete = collector.add({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})
    assert [m["id"] for m in complete] == [1, 2]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_batch_refused_on_other_versions(version):
    protocol, _ = initialized(version)
    message = only_send(protocol.receive(frame([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])))
    assert message["error"]["code"] == -32600 and "2025-03-26" in message["error"]["message"]


def test_batch_refused_before_initialize_and_initialize_not_in_batch():
    protocol = make_protocol()
    assert error_code(protocol.receive(frame([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))) == -32600
    protocol, _ = initialized("2025-03-26")
    [send] = protocol.receive(frame([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}]))
    assert send.message[0]["error"]["code"] == -32600
    assert error_code(protocol.receive(b"[]")) == -32600


# -- modern era ------------------------------------------------------------------------------------


def test_discover_answers_without_initialize():
    protocol = make_protocol(instructions="be nice", cache_ttl_ms=1000)
    result = only_send(protocol.receive(request("d", "server/discover", {"_meta": MODERN_META})))["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"][0] == "2026-07-28" and "2024-11-05" in result["supportedVersions"]
    assert result["capabilities"] == capabilities("modern", "2026-07-28")
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "srv", "version": "1.2.3"}
    assert result["instructions"] == "be nice"
    assert (result["ttlMs"], result["cacheScope"]) == (1000, "public")
    assert protocol.state == "new"  # stateless: no session was created


def test_modern_request_carries_its_own_envelope():
    protocol = make_protocol()
    meta = dict(MODERN_META, **{"io.modelcontextprotocol/logLevel": "info", "progressToken": "p"})
    [event] = protocol.receive(request(1, "tools/call", {"name": "x", "_meta": meta}))
    req = event.request
    assert (req.era, req.version, req.log_level, req.progress_token) == ("modern", "2026-07-28", "info", "p")


def test_unsupported_modern_version_is_32022_with_data():
    protocol = make_protocol()
    meta = dict(MODERN_META, **{"io.modelcontextprotocol/protocolVersion": "1900-01-01"})
    error = only_send(protocol.receive(request(1, "tools/list", {"_meta": meta})))["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "1900-01-01" and "2026-07-28" in error["data"]["supported"]


def test_modern_request_missing_capabilities_is_invalid_params():
    protocol = make_protocol()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    error = only_send(protocol.receive(request(1, "tools/list", {"_meta": meta})))["error"]
    assert error["code"] == -32602 and "clientCapabilities" in error["message"]


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe", "no/such"])
def test_legacy_only_methods_are_unknown_in_modern_era(method):
    protocol = make_protocol()
    assert error_code(protocol.receive(request(1, method, {"_meta": MODERN_META}))) == -32601


def test_modern_results_get_result_type_server_info_and_cache_hints():
    protocol = make_protocol(cache_ttl_ms=5, cache_scope="private")
    [event] = protocol.receive(request(1, "tools/list", {"_meta": MODERN_META}))
    message = protocol.result_message(event.request, {"tools": []})
    assert message["result"] == {
        "tools": [],
        "resultType": "complete",
        "ttlMs": 5,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1.2.3"}},
    }
    [call] = protocol.receive(request(2, "tools/call", {"name": "x", "_meta": MODERN_META}))
    result = protocol.result_message(call.request, {"content": []})["result"]
    assert "ttlMs" not in result and result["resultType"] == "complete"


def test_legacy_and_modern_interleave_on_one_connection():
    protocol, _ = initialized()
    [legacy] = protocol.receive(request(1, "tools/list"))
    [modern] = protocol.receive(request(2, "tools/list", {"_meta": MODERN_META}))
    assert (legacy.request.era, modern.request.era) == ("legacy", "modern")


def test_log_level_rules_per_era():
    protocol, _ = initialized()
    [legacy] = protocol.receive(request(1, "tools/call", {"name": "x"}))
    assert protocol.should_log(legacy.request, "debug")  # legacy default: everything
    protocol.log_level = "error"
    assert not protocol.should_log(legacy.request, "warning")
    assert protocol.should_log(legacy.request, "critical")
    [modern] = protocol.receive(request(2, "tools/call", {"name": "x", "_meta": MODERN_META}))
    assert not protocol.should_log(modern.request, "emergency")  # modern: nothing without logLevel
    meta = dict(MODERN_META, **{"io.modelcontextprotocol/logLevel": "notice"})
    [leveled] = protocol.receive(request(3, "tools/call", {"name": "x", "_meta": meta}))
    assert protocol.should_log(leveled.request, "notice") and not protocol.should_log(leveled.request, "info")
