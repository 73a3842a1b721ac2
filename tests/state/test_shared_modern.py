"""The 2026-07-28 era across workers sharing a real Redis (sealing keys, listen streams), and
what happens while Redis is away: shared-state requests get a retryable 503, stateless calls go
on, and the server picks up again by itself when Redis is back."""

import contextlib

import trio

from ..transports.http.client import (
    SseReader,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern,
    modern_tool,
    new_client,
    text_of,
)
from .test_shared_sessions import worker_app, workers

CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
ANSWERS = {
    "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
        "model": "m",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]},
}


async def rounds_alternating(client, urls):
    """ask_twice needs three answers: each round goes to the next worker, carrying the state the
    previous one sealed.  Returns the final message."""
    params = {"name": "ask_twice", "arguments": {}}
    for round_ in range(6):
        url = urls[round_ % len(urls)]
        body, headers = modern("tools/call", params, round_, capabilities=CAPS)
        response = await client.post(url, json=body, headers=headers)
        final = final_of(response, round_)
        result = final.get("result", {})
        if result.get("resultType") != "input_required":
            return final
        answers = {key: ANSWERS[ask["method"]] for key, ask in result["inputRequests"].items()}
        params = {
            "name": "ask_twice",
            "arguments": {},
            "inputResponses": answers,
            "requestState": result["requestState"],
        }
    raise AssertionError("ask_twice never completed")


async def test_request_state_sealed_on_one_worker_opens_on_another(redis):
    async with workers(redis) as (apps, urls), new_client() as client:
        with trio.fail_after(20):
            final = await rounds_alternating(client, urls)
    assert text_of(final) == "Ada|hi|1"


async def test_without_shared_state_another_worker_cannot_open_it():
    """The same rounds over two workers with keys of their own: refused (the test above can fail)."""
    async with contextlib.AsyncExitStack() as stack, new_client() as client:
        urls = [await stack.enter_async_context(http_server(worker_app())) for _ in range(2)]
        with trio.fail_after(20):
            final = await rounds_alternating(client, urls)
    assert final["error"]["message"].endswith("requestState failed verification")


async def test_a_change_on_one_worker_reaches_a_listen_stream_on_another(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other:
        with trio.fail_after(20):
            body, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, "sub")
            async with other.stream("POST", b, json=body, headers=headers) as response:
                reader = SseReader(response)
                assert (await reader.next_message())["method"] == "notifications/subscriptions/acknowledged"
                body, headers = modern_tool("change_tools", {}, 1)
                changed = await client.post(a, json=body, headers=headers)
                assert text_of(final_of(changed, 1)) == "changed"
                message = await reader.next_message()
    assert message["method"] == "notifications/tools/list_changed"
    assert message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub"


async def test_redis_away_then_back(durable_redis):
    async with workers(durable_redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(30):
            session_id = await initialize(client, a)
            durable_redis.stop()
            refused = await client.post(b, json=call_tool("echo", {"text": "x"}, 1), headers=legacy_headers(session_id))
            assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
            assert refused.json()["error"]["code"] == -31503
            body, headers = modern_tool("echo", {"text": "stateless"}, 2)
            stateless = await client.post(b, json=body, headers=headers)
            assert stateless.status_code == 200 and text_of(final_of(stateless, 2)) == "stateless"
            durable_redis.start()
            for _attempt in range(50):  # the client retries as Retry-After says (sooner here)
                again = await client.post(
                    b, json=call_tool("echo", {"text": "back"}, 3), headers=legacy_headers(session_id)
                )
                if again.status_code != 503:
                    break
                await trio.sleep(0.1)
            assert again.status_code == 200 and text_of(again.json()) == "back", "the session survived"


async def test_rotating_the_sealing_key_keeps_state_sealed_before_it_until_the_next_rotation(redis):
    import subprocess
    import sys

    def rotate():
        done = subprocess.run(
            [sys.executable, "-m", "mcptrio", "rotate-key", "--state", redis.url],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0 and done.stdout.startswith("rotated the requestState sealing key at redis://")

    async def rotated(apps, before):
        with trio.fail_after(5):  # the fan-out tells every worker
            while any(app.state_keys[0] == before for app in apps):
                await trio.sleep(0.01)

    async def first_round(client, url, request_id):
        body, headers = modern("tools/call", {"name": "ask_twice", "arguments": {}}, request_id, capabilities=CAPS)
        result = final_of(await client.post(url, json=body, headers=headers), request_id)["result"]
        answers = {key: ANSWERS[ask["method"]] for key, ask in result["inputRequests"].items()}
        return {"name": "ask_twice", "arguments": {}, "inputResponses": answers, "requestState": result["requestState"]}

    async def retry(client, url, params, request_id):
        body, headers = modern("tools/call", params, request_id, capabilities=CAPS)
        return final_of(await client.post(url, json=body, headers=headers), request_id)

    async with workers(redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(30):
            sealed_with_first = await first_round(client, a, 1)
            key = apps[0].state_keys[0]
            rotate()
            await rotated(apps, key)
            assert "result" in await retry(client, b, sealed_with_first, 2), "the previous key still opens it"
            sealed_with_second = await first_round(client, b, 3)
            key = apps[0].state_keys[0]
            rotate()
            await rotated(apps, key)
            refused = await retry(client, a, sealed_with_first, 4)
            assert refused["error"]["message"].endswith("requestState failed verification")
            assert "result" in await retry(client, a, sealed_with_second, 5)
