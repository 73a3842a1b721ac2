"""Property tests: any bytes into framing and protocol give messages or clear errors, never a crash."""

import json

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptrio.framing import LineFramer, Oversize
from mcptrio.protocol import Cancel, ClientReply, Dispatch, Notified, Send, ServerIdentity, ServerProtocol

IDENTITY = ServerIdentity("prop", "1", lambda era, version: {})

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
methods = st.sampled_from(
    [
        "initialize",
        "ping",
        "tools/call",
        "tools/list",
        "server/discover",
        "logging/setLevel",
        "notifications/cancelled",
        "notifications/initialized",
        "resources/read",
        "x/y",
    ]
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": st.one_of(st.integers(), st.text(max_size=5), st.none(), st.booleans()),
        "method": methods | json_values,
        "params": json_values
        | st.fixed_dictionaries(
            {},
            optional={
                "_meta": json_values
                | st.fixed_dictionaries(
                    {},
                    optional={
                        "io.modelcontextprotocol/protocolVersion": st.sampled_from(["2026-07-28", "1999-01-01"])
                        | json_values,
                        "io.modelcontextprotocol/clientCapabilities": json_values,
                        "progressToken": json_values,
                    },
                ),
                "protocolVersion": st.sampled_from(["2025-11-25", "2025-03-26"]) | json_values,
                "name": json_values,
            },
        ),
        "result": json_values,
        "error": json_values,
    },
)


def check_events(events):
    for event in events:
        assert isinstance(event, (Send, Dispatch, Cancel, ClientReply, Notified))
        if isinstance(event, Send):
            encoded = orjson.dumps(event.message)  # always encodable
            replies = event.message if isinstance(event.message, list) else [event.message]
            for reply in replies:
                assert reply["jsonrpc"] == "2.0" and ("result" in reply) != ("error" in reply)
                if "error" in reply:
                    assert isinstance(reply["error"]["code"], int) and isinstance(reply["error"]["message"], str)
                    assert "Traceback" not in reply["error"]["message"]
            assert encoded


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=10))
def test_any_bytes_through_framing_and_protocol(chunks):
    framer = LineFramer(100)
    protocol = ServerProtocol(IDENTITY)
    for chunk in chunks:
        for frame in framer.feed(chunk):
            if isinstance(frame, Oversize):
                check_events(protocol.receive_oversize(frame.size, 100))
            else:
                assert len(frame) <= 100
                check_events(protocol.receive(frame))


@settings(max_examples=500, deadline=None)
@given(st.lists(messages | st.lists(messages, max_size=3) | json_values, min_size=1, max_size=8))
def test_any_json_message_sequence_gets_events_or_errors(sequence):
    protocol = ServerProtocol(IDENTITY)
    for message in sequence:
        events = protocol.receive(json.dumps(message).encode())
        check_events(events)
        for event in events:
            if isinstance(event, Dispatch):
                protocol.finished(event.request.id)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=5000))
def test_deep_nesting_is_a_parse_error_not_a_crash(depth):
    protocol = ServerProtocol(IDENTITY)
    frame = b"[" * depth + b"]" * depth
    check_events(protocol.receive(frame))
