"""Sealed requestState: tampering, replay on another request, and expiry are refused."""

import pytest

from mcptrio.protocol.errors import McpError
from mcptrio.protocol.request_state import seal, unseal

KEY = b"k" * 32
PARAMS = {"name": "t", "arguments": {"a": 1}, "_meta": {"x": 1}}


def test_round_trip_ignores_round_parameters():
    state = seal(KEY, "tools/call", PARAMS, {"e-1": {"action": "accept"}}, expires_at=2000)
    retry = dict(PARAMS, inputResponses={"e-2": {}}, requestState=state, _meta={"y": 2})
    assert unseal(KEY, state, "tools/call", retry, now=1000) == {"e-1": {"action": "accept"}}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda s: s[:-2] + ("AA" if s[-2:] != "AA" else "BB"),
        lambda s: "x" + s,
        lambda s: s.replace(".", ""),
        lambda s: 42,
        lambda s: "a.b.c",
    ],
)
def test_tampered_state_is_refused(mangle):
    state = seal(KEY, "tools/call", PARAMS, {}, expires_at=2000)
    with pytest.raises(McpError) as info:
        unseal(KEY, mangle(state), "tools/call", PARAMS, now=1000)
    assert info.value.code == -32602


def test_state_from_another_key_is_refused():
    state = seal(b"other" * 8, "tools/call", PARAMS, {}, expires_at=2000)
    with pytest.raises(McpError, match="verification"):
        unseal(KEY, state, "tools/call", PARAMS, now=1000)


def test_state_replayed_on_another_request_is_refused():
    state = seal(KEY, "tools/call", PARAMS, {}, expires_at=2000)
    with pytest.raises(McpError, match="different request"):
        unseal(KEY, state, "tools/call", dict(PARAMS, arguments={"a": 2}), now=1000)
    with pytest.raises(McpError, match="different request"):
        unseal(KEY, state, "prompts/get", PARAMS, now=1000)


def test_expired_state_is_refused():
    state = seal(KEY, "tools/call", PARAMS, {}, expires_at=2000)
    with pytest.raises(McpError, match="expired"):
        unseal(KEY, state, "tools/call", PARAMS, now=2001)
