"""App-layer behaviour found while measuring: completion with a Context, a client-notification hook,
prompt messages for older revisions, and a client's error answer reported as what it is."""

from __future__ import annotations

from typing import Any

import pytest

import mcptrio
from mcptrio import Context, McpError, Notification
from mcptrio.testing import open_client

AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "memo://linked", "name": "linked"}


def make_app() -> mcptrio.App:
    app = mcptrio.App("gaps-test")

    async def complete_city(value: str, context_arguments: dict[str, Any], ctx: Context) -> list[str]:
        roots = await ctx.list_roots()
        return [root["name"] for root in roots if root["name"].startswith(value)]

    async def complete_plain(value: str, context_arguments: dict[str, Any]) -> list[str]:
        return [f"{value}-{context_arguments.get('city', '?')}"]

    @app.prompt(complete={"city": complete_city, "mood": complete_plain})
    async def weather(city: str, mood: str = "calm") -> list[Any]:
        return [f"Weather in {city}", {"role": "user", "content": AUDIO}, {"role": "assistant", "content": LINK}]

    @app.prompt()
    async def ask_first(ctx: Context) -> str:
        answer = await ctx.elicit("Go on?", {"type": "object", "properties": {}})
        return f"answered {answer['action']}"

    @app.resource("memo://asked")
    async def asked(ctx: Context) -> str:
        result = await ctx.sample("hello", 10)
        return result["content"]["text"]

    return app


ROOTS = {
    "roots": [
        {"uri": "file:///srv/oslo", "name": "Oslo"},
        {"uri": "file:///srv/bergen", "name": "Bergen"},
        {"uri": "file:///srv/odda", "name": "Odda"},
    ]
}


async def test_a_completion_handler_that_takes_a_context_can_ask_the_client():
    async def list_roots(params: dict[str, Any]) -> dict[str, Any]:
        return ROOTS

    async with open_client(make_app(), capabilities={"roots": {}}, handlers={"roots/list": list_roots}) as client:
        ref = {"type": "ref/prompt", "name": "weather"}
        result = await client.request("completion/complete", {"ref": ref, "argument": {"name": "city", "value": "O"}})
        assert result["completion"] == {"values": ["Oslo", "Odda"], "total": 2, "hasMore": False}
        plain = await client.request(
            "completion/complete",
            {"ref": ref, "argument": {"name": "mood", "value": "x"}, "context": {"arguments": {"city": "Oslo"}}},
        )
        assert plain["completion"]["values"] == ["x-Oslo"]


async def test_a_completion_that_asks_a_client_without_the_capability_is_a_clear_error():
    async with open_client(make_app()) as client:
        ref = {"type": "ref/prompt", "name": "weather"}
        answer = await client.response("completion/complete", {"ref": ref, "argument": {"name": "city", "value": ""}})
        assert answer["error"]["code"] == -32600
        assert "roots" in answer["error"]["message"]


async def test_plugins_hear_client_notifications_through_a_hook():
    heard: list[Notification] = []
    plugin = mcptrio.Registry("listener")

    @plugin.on_notification("notifications/roots/list_changed")
    def roots_changed(notification: Notification) -> None:
        heard.append(notification)

    @plugin.on_notification("notifications/roots/list_changed")
    def broken_hook(notification: Notification) -> None:
        raise RuntimeError("a failing hook must not end the session")

    app = make_app()
    app.include(plugin)
    async with open_client(app, capabilities={"roots": {"listChanged": True}}) as client:
        await client.notify("notifications/roots/list_changed")
        await client.notify("notifications/roots/list_changed", {"_meta": {"n": 2}})
        await client.request("ping")  # the notifications were handled before this answer
    assert [n.method for n in heard] == ["notifications/roots/list_changed"] * 2
    assert heard[1].params == {"_meta": {"n": 2}} and heard[0].session_id is None
    assert heard[0].session_key is heard[1].session_key


def test_a_notification_hook_must_be_a_plain_function():
    plugin = mcptrio.Registry("x")
    with pytest.raises(TypeError, match="plain function"):

        @plugin.on_notification("notifications/roots/list_changed")
        async def hook(notification: Notification) -> None: ...


@pytest.mark.parametrize(
    ("version", "audio", "link"),
    [
        (
            "2024-11-05",
            {"type": "text", "text": "[audio content (audio/wav) needs protocol 2025-03-26 or later]"},
            {"type": "text", "text": "resource: memo://linked"},
        ),
        ("2025-03-26", AUDIO, {"type": "text", "text": "resource: memo://linked"}),
        ("2025-06-18", AUDIO, LINK),
    ],
)
async def test_prompt_messages_are_downgraded_for_older_revisions(version, audio, link):
    async with open_client(make_app(), version=version) as client:
        result = await client.request("prompts/get", {"name": "weather", "arguments": {"city": "Oslo"}})
    assert [m["content"] for m in result["messages"]] == [{"type": "text", "text": "Weather in Oslo"}, audio, link]


async def test_modern_prompts_keep_every_content_type():
    async with open_client(make_app(), era="modern") as client:
        result = await client.request("prompts/get", {"name": "weather", "arguments": {"city": "Oslo"}})
    assert [m["content"] for m in result["messages"]][1:] == [AUDIO, LINK]


async def test_a_clients_error_answer_inside_a_prompt_or_resource_is_reported_as_that_error():
    async def refuse_elicitation(params: dict[str, Any]) -> dict[str, Any]:
        raise McpError(-32042, "the user closed the dialog", {"where": "client"})

    async def refuse_sampling(params: dict[str, Any]) -> dict[str, Any]:
        raise McpError(-32602, "maxTokens too small")

    handlers = {"elicitation/create": refuse_elicitation, "sampling/createMessage": refuse_sampling}
    async with open_client(make_app(), capabilities={"elicitation": {}, "sampling": {}}, handlers=handlers) as client:
        prompt = await client.response("prompts/get", {"name": "ask_first"})
        resource = await client.response("resources/read", {"uri": "memo://asked"})
    assert prompt["error"]["code"] == -32042
    assert prompt["error"]["message"] == (
        "the client answered elicitation/create with an error: the user closed the dialog"
    )
    assert prompt["error"]["data"] == {
        "clientError": {"code": -32042, "message": "the user closed the dialog", "data": {"where": "client"}}
    }
    assert resource["error"]["code"] == -32602
    assert resource["error"]["data"] == {"clientError": {"code": -32602, "message": "maxTokens too small"}}


async def test_a_client_that_does_not_answer_in_time_is_an_internal_error():
    async def never(params: dict[str, Any]) -> dict[str, Any]:
        import trio

        await trio.sleep_forever()
        raise AssertionError  # pragma: no cover

    app = make_app()
    limits = mcptrio.SessionLimits(client_request_timeout=0.05)
    async with open_client(
        app, capabilities={"elicitation": {}}, handlers={"elicitation/create": never}, limits=limits
    ) as client:
        prompt = await client.response("prompts/get", {"name": "ask_first"})
    assert prompt["error"]["code"] == -32603
    assert "did not answer elicitation/create within 0.05 s" in prompt["error"]["message"]
