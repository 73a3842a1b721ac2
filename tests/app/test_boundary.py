"""The boundary where exceptions become answers (``mcptrio/app/pipeline.py``): the same answer for a
handler's failure with middleware or without, middleware that see answers and never a handler's
exception, and the InputRequiredResult a round of a 2026-07-28 request ends with."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mcptrio
from mcptrio import Context, McpError, Request, ToolError
from mcptrio.testing import open_client

ERAS = ["legacy", "modern"]


def make_app(*middleware: Any) -> mcptrio.App:
    app = mcptrio.App("boundary-test")

    @app.tool()
    async def refuse() -> str:
        raise ToolError("not today")

    @app.tool()
    async def crash() -> str:
        raise RuntimeError("/secret/path")

    @app.tool()
    async def odd() -> Any:
        return {1, 2}  # (no JSON for a set)

    @app.resource("memo://refused")
    async def refused() -> str:
        raise ToolError("no memo for you")

    @app.resource("memo://crashed")
    async def crashed() -> str:
        raise RuntimeError("/secret/path")

    @app.prompt()
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Go on?", {"type": "object", "properties": {}})
        return f"answered {answer['action']}"

    async def complete_by_asking(value: str, context_arguments: dict[str, Any], ctx: Context) -> list[str]:
        await ctx.elicit("Which?", {"type": "object", "properties": {}})
        return [value]

    @app.prompt(complete={"city": complete_by_asking})
    async def weather(city: str) -> str:
        return city

    for mw in middleware:
        app.use(mw)
    return app


async def passthrough(request: Request, call_next: Any) -> dict[str, Any]:
    return await call_next(request)


async def answers(app: mcptrio.App, era: str) -> dict[str, Any]:
    async with open_client(app, era=era, capabilities={"elicitation": {}}) as client:
        found = {
            name: await client.response("tools/call", {"name": name, "arguments": {}})
            for name in ("refuse", "crash", "odd")
        }
        for uri in ("memo://refused", "memo://crashed"):
            found[uri] = await client.response("resources/read", {"uri": uri})
        if era == "modern":  # (a legacy client is asked by a server→client request instead)
            found["ask"] = await client.response("prompts/get", {"name": "ask"})
            found["complete"] = await client.response(
                "completion/complete",
                {"ref": {"type": "ref/prompt", "name": "weather"}, "argument": {"name": "city", "value": "Pa"}},
            )
    for message in found.values():
        message.pop("id")
        message.get("result", {}).pop("_meta", None)
        message.get("result", {}).pop("requestState", None)  # (sealed with a fresh expiry each time)
    return found


@pytest.mark.parametrize("era", ERAS)
async def test_a_handlers_failure_gets_the_same_answer_with_middleware_or_without(era):
    bare, wrapped = await answers(make_app(), era), await answers(make_app(passthrough), era)
    assert bare == wrapped
    assert bare["refuse"]["result"] == {
        "content": [{"type": "text", "text": "not today"}],
        "isError": True,
        **({"resultType": "complete"} if era == "modern" else {}),
    }
    for name, kind in (("crash", "RuntimeError"), ("odd", "TypeError")):
        assert bare[name]["result"]["isError"] is True
        assert bare[name]["result"]["content"][0]["text"] == f"tool {name!r} failed with an internal error ({kind})"
    assert bare["memo://refused"]["error"] == {"code": -32602, "message": "no memo for you"}
    assert bare["memo://crashed"]["error"]["code"] == -32603
    assert "secret" not in json.dumps(bare)
    if era == "modern":
        assert bare["ask"]["result"]["resultType"] == "input_required"
        assert list(bare["ask"]["result"]["inputRequests"].values())[0]["method"] == "elicitation/create"
        assert bare["complete"]["error"] == {
            "code": -32603,
            "message": "the handler asked for client input, which completion/complete does not allow",
        }


async def test_middleware_sees_answers_never_a_handlers_exception():
    seen: list[Any] = []

    async def record(request: Request, call_next: Any) -> dict[str, Any]:
        try:
            result = await call_next(request)
        except McpError as exc:
            seen.append((request.name, exc.code))
            raise
        except Exception as exc:  # pragma: no cover (what this test shows does not happen)
            seen.append((request.name, type(exc).__name__))
            raise
        seen.append((request.name, result.get("isError", False)))
        return result

    async def failing(request: Request, call_next: Any) -> dict[str, Any]:
        if request.name == "memo://refused":
            raise ValueError("a middleware's own failure")
        return await call_next(request)

    async with open_client(make_app(record, failing)) as client:
        await client.response("tools/call", {"name": "crash", "arguments": {}})
        await client.response("resources/read", {"uri": "memo://crashed"})
        refused = await client.response("resources/read", {"uri": "memo://refused"})
    # the outer middleware sees the inner one's failure as the answer it gets: -32603
    assert seen == [("crash", True), ("memo://crashed", -32603), ("memo://refused", -32603)]
    assert refused["error"]["code"] == -32603
