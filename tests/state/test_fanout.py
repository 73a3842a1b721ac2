"""The fan-out's messages and codec: every kind round-trips; what a release cannot read (another
kind, a malformed message) is skipped with a debug line, never raised; and over a real Redis a
message reaches the other workers' subscribers, not its sender's."""

import logging
import typing

import orjson
import pytest
import trio

from mcptrio.state import parse_state_url
from mcptrio.state.fanout import (
    ClientReplied,
    ComponentsSwitched,
    FanoutMessage,
    KeysRotated,
    ListChanged,
    RequestCancelled,
    ResourceUpdated,
    SessionChanged,
    SessionEnded,
    StreamCarried,
    TaskCancelRequested,
    TaskChanged,
    TaskInputDelivered,
    decode,
    encode,
)
from mcptrio.state.redis import open_redis_state

EXAMPLES = [
    KeysRotated(),
    ListChanged("notifications/tools/list_changed", "toolsListChanged"),
    ResourceUpdated("file:///a.txt"),
    ComponentsSwitched(False, ["echo"], ["beta"]),
    ComponentsSwitched(True, [], ["beta"]),
    TaskChanged({"task_id": "t1", "status": "working", "issued_keys": []}),
    TaskCancelRequested("t1"),
    TaskInputDelivered("t1", {"k1": {"action": "accept"}}),
    RequestCancelled("s1", 7),
    RequestCancelled("s1", "request-7"),
    ClientReplied("s1", "c-1", {"roots": []}),
    ClientReplied("s1", "c-2", error={"code": -1, "message": "no"}),
    StreamCarried("s1", 3, True),
    StreamCarried("s1", 3, False),
    SessionChanged("s1", {"lvl": "debug", "subs": ["file:///a.txt"]}),
    SessionEnded("s1"),
]


def test_the_examples_cover_every_kind():
    assert {type(m) for m in EXAMPLES} == set(typing.get_args(FanoutMessage))


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: f"{m.KIND}")
def test_every_kind_round_trips_with_its_sender(message):
    assert decode(encode(message, "w1")) == ("w1", message)


def test_the_wire_is_short_and_leaves_out_what_is_none():
    assert orjson.loads(encode(RequestCancelled("s1", 7), "w1")) == {"k": "cancel", "w": "w1", "s": "s1", "id": 7}
    assert orjson.loads(encode(ClientReplied("s1", 4, {"x": 1}), "w1")) == {
        "k": "reply",
        "w": "w1",
        "s": "s1",
        "id": 4,
        "result": {"x": 1},
    }
    assert orjson.loads(encode(StreamCarried("s1", 2, True), "w1")) == {
        "k": "carried",
        "w": "w1",
        "s": "s1",
        "stream": 2,
        "on": True,
    }


def test_a_field_it_does_not_know_is_ignored():
    data = orjson.dumps({"k": "ended", "w": "w2", "s": "s1", "added_later": [1, 2]})
    assert decode(data) == ("w2", SessionEnded("s1"))


def test_a_kind_it_does_not_know_is_skipped_with_a_debug_line(caplog):
    caplog.set_level(logging.DEBUG, logger="mcptrio.state")
    assert decode(orjson.dumps({"k": "from-a-later-release", "w": "w2", "x": 1})) is None
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]
    assert "does not know" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"null",
        b'{"w": "w2"}',
        b'{"k": ["list"], "w": "w2"}',
        b'{"k": "ended", "s": "s1"}',  # no sender
        b'{"k": "ended", "w": 5, "s": "s1"}',
        b'{"k": "ended", "w": "w2"}',  # a field missing
        b'{"k": "ended", "w": "w2", "s": null}',
        b'{"k": "cancel", "w": "w2", "s": "s1", "id": 1.5}',
        b'{"k": "cancel", "w": "w2", "s": "s1", "id": true}',
        b'{"k": "cancel", "w": "w2", "s": "s1", "id": [1]}',
        b'{"k": "carried", "w": "w2", "s": "s1", "stream": "3", "on": true}',
        b'{"k": "carried", "w": "w2", "s": "s1", "stream": 3, "on": 1}',
        b'{"k": "reply", "w": "w2", "s": "s1", "id": 1, "result": [1]}',
        b'{"k": "task", "w": "w2", "record": "not an object"}',
    ],
    ids=repr,
)
def test_a_malformed_message_is_skipped_with_a_debug_line(data, caplog):
    caplog.set_level(logging.DEBUG, logger="mcptrio.state")
    assert decode(data) is None
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]


async def test_other_workers_subscribers_get_a_message_not_its_sender_and_what_cannot_be_read_is_skipped(redis):
    url = parse_state_url(redis.url)
    async with open_redis_state(url) as a, open_redis_state(url) as b:
        to_a, at_a = trio.open_memory_channel[FanoutMessage](10)
        to_b, at_b = trio.open_memory_channel[FanoutMessage](10)
        a.subscribe(to_a.send_nowait)
        b.subscribe(to_b.send_nowait)
        stream = a.key("fanout")
        await a.execute(a.client.xadd(stream, {"m": b"not json"}))
        await a.execute(a.client.xadd(stream, {"other": b"field"}))
        await a.execute(a.client.xadd(stream, {"m": b'{"k": "from-a-later-release", "w": "x"}'}))
        await a.publish(ResourceUpdated("file:///a.txt"))
        await b.publish(TaskCancelRequested("t1"))
        await a.publish(SessionEnded("s1"))
        await b.publish(SessionEnded("s2"))
        with trio.fail_after(10):  # (each reads in stream order, its own messages kept to itself)
            assert [await at_b.receive(), await at_b.receive()] == [
                ResourceUpdated("file:///a.txt"),
                SessionEnded("s1"),
            ]
            assert [await at_a.receive(), await at_a.receive()] == [TaskCancelRequested("t1"), SessionEnded("s2")]
