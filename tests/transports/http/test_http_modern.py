"""Modern Streamable HTTP (2026-07-28): stateless POSTs with the ``_meta`` envelope and the mirrored
``Mcp-Method`` / ``Mcp-Name`` / ``Mcp-Param-*`` headers; 405 for GET and DELETE; listen streams; MRTR."""

from typing import Annotated

import pytest
import trio

from mcptrio import App, Param

from ...runtime.apps import build_app
from .client import (
    META_SERVER_INFO,
    MODERN,
    SUBSCRIPTION_ID,
    SseReader,
    final_of,
    http_server,
    is_sse,
    messages_of,
    modern,
    modern_tool,
    new_client,
    sentinel,
    text_of,
    wait_until,
)

REGION_SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "description": "where", "x-mcp-header": "Region"},
        "query": {"type": "string"},
    },
    "required": ["region", "query"],
}


def header_app() -> App:
    app = build_app()

    @app.tool(input_schema=REGION_SCHEMA)
    async def execute_sql(region: str, query: str) -> str:
        return f"{region}:{query}"

    @app.tool()
    async def forecast(
        region: Annotated[str | None, Param(schema={"x-mcp-header": "Zone"})] = None,
        days: Annotated[int, Param(schema={"x-mcp-header": "Days"})] = 1,
    ) -> str:
        return f"{region}/{days}"

    return app


async def post(client, url, request):
    body, headers = request
    return await client.post(url, json=body, headers=headers)


def error_of(response):
    body = response.json()
    assert "error" in body, body
    return body["error"]


async def test_tools_call_answers_with_result_type_and_server_info(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("echo", {"text": "modern"}, 1))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in response.headers
    final = final_of(response, 1)
    assert final["result"]["resultType"] == "complete"
    assert final["result"]["_meta"][META_SERVER_INFO]["name"] == "test-server"
    assert text_of(final) == "modern"


async def test_tools_list_and_resources_read_and_prompts_get(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            listed = await post(client, url, modern("tools/list", {}, 1))
            read = await post(client, url, modern("resources/read", {"uri": "test://hello"}, 2))
            prompt = await post(client, url, modern("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}, 3))
    assert listed.status_code == 200
    assert "echo" in {tool["name"] for tool in final_of(listed)["result"]["tools"]}
    assert read.status_code == 200, read.text
    assert final_of(read)["result"]["contents"][0]["text"] == "hello world"
    assert prompt.status_code == 200, prompt.text
    assert "Ada" in str(final_of(prompt)["result"]["messages"])


async def test_server_discover(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern("server/discover", {}, "d"))
    assert response.status_code == 200
    result = final_of(response, "d")["result"]
    assert MODERN in result["supportedVersions"]
    assert result["resultType"] == "complete"


async def test_session_id_on_a_modern_request_is_ignored_not_echoed(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(
                client, url, modern_tool("echo", {"text": "x"}, 1, headers={"mcp-session-id": "stale-legacy-session"})
            )
    assert response.status_code == 200, response.text
    assert "mcp-session-id" not in response.headers
    assert text_of(final_of(response)) == "x"


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_get_and_delete_without_session_are_405(app, method):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await client.request(
                method, url, headers={"accept": "text/event-stream, application/json", "mcp-protocol-version": MODERN}
            )
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == "POST"


async def test_missing_mcp_method_is_400_header_mismatch(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("echo", {"text": "x"}, 7, omit=("mcp-method",)))
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32020
    assert response.json()["id"] == 7


async def test_mcp_method_mismatch_is_400(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(
                client, url, modern_tool("echo", {"text": "x"}, 7, headers={"mcp-method": "tools/list"})
            )
    assert response.status_code == 400
    assert error_of(response)["code"] == -32020


async def test_mcp_name_mismatch_is_400(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("echo", {"text": "x"}, 8, headers={"mcp-name": "sleep"}))
            missing = await post(client, url, modern_tool("echo", {"text": "x"}, 9, omit=("mcp-name",)))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32020
    assert missing.status_code == 400
    assert error_of(missing)["code"] == -32020


async def test_protocol_version_header_must_match_body(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            mismatched = await post(
                client, url, modern_tool("echo", {"text": "x"}, 1, headers={"mcp-protocol-version": "2025-11-25"})
            )
            missing = await post(client, url, modern_tool("echo", {"text": "x"}, 2, omit=("mcp-protocol-version",)))
    assert mismatched.status_code == 400
    assert error_of(mismatched)["code"] == -32020
    assert missing.status_code == 400
    assert error_of(missing)["code"] == -32020


async def test_base64_sentinel_mcp_name_is_decoded(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            ok = await post(
                client, url, modern_tool("echo", {"text": "b64"}, 1, headers={"mcp-name": sentinel("echo")})
            )
            wrong = await post(
                client, url, modern_tool("echo", {"text": "b64"}, 2, headers={"mcp-name": sentinel("sleep")})
            )
            broken = await post(
                client, url, modern_tool("echo", {"text": "b64"}, 3, headers={"mcp-name": "=?base64?!!!notbase64?="})
            )
    assert ok.status_code == 200, ok.text
    assert text_of(final_of(ok)) == "b64"
    assert wrong.status_code == 400 and error_of(wrong)["code"] == -32020
    assert broken.status_code == 400 and error_of(broken)["code"] == -32020


async def test_resource_read_name_header_is_the_uri(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            wrong = await post(
                client, url, modern("resources/read", {"uri": "test://hello"}, 1, headers={"mcp-name": "test://other"})
            )
    assert wrong.status_code == 400 and error_of(wrong)["code"] == -32020


async def test_x_mcp_header_parameter_must_be_mirrored():
    app = header_app()
    arguments = {"region": "us-west1", "query": "SELECT 1"}
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            missing = await post(client, url, modern_tool("execute_sql", arguments, 1))
            mismatched = await post(
                client, url, modern_tool("execute_sql", arguments, 2, headers={"mcp-param-region": "eu-north1"})
            )
            matching = await post(
                client, url, modern_tool("execute_sql", arguments, 3, headers={"Mcp-Param-Region": "us-west1"})
            )
            encoded = await post(
                client,
                url,
                modern_tool("execute_sql", arguments, 4, headers={"mcp-param-region": sentinel("us-west1")}),
            )
    assert missing.status_code == 400, missing.text
    assert error_of(missing)["code"] == -32020
    assert mismatched.status_code == 400
    assert error_of(mismatched)["code"] == -32020
    assert matching.status_code == 200, matching.text
    assert text_of(final_of(matching)) == "us-west1:SELECT 1"
    assert encoded.status_code == 200, encoded.text


async def test_x_mcp_header_through_param_annotation():
    app = header_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            listed = await post(client, url, modern("tools/list", {}, 1))
            schema = {t["name"]: t for t in final_of(listed)["result"]["tools"]}["forecast"]["inputSchema"]
            assert schema["properties"]["region"]["x-mcp-header"] == "Zone"
            absent = await post(client, url, modern_tool("forecast", {}, 2))  # no value: no header expected
            missing = await post(client, url, modern_tool("forecast", {"region": "north"}, 3))
            matching = await post(
                client,
                url,
                modern_tool(
                    "forecast",
                    {"region": "north", "days": 3},
                    4,
                    headers={"mcp-param-zone": "north", "mcp-param-days": "3"},
                ),
            )
            numeric = await post(
                client,
                url,
                modern_tool(
                    "forecast",
                    {"region": "north", "days": 3},
                    5,
                    headers={"mcp-param-zone": "north", "mcp-param-days": "3.0"},
                ),
            )
            wrong_number = await post(
                client,
                url,
                modern_tool(
                    "forecast",
                    {"region": "north", "days": 3},
                    6,
                    headers={"mcp-param-zone": "north", "mcp-param-days": "4"},
                ),
            )
    assert absent.status_code == 200, absent.text
    assert missing.status_code == 400 and error_of(missing)["code"] == -32020
    assert matching.status_code == 200, matching.text
    assert text_of(final_of(matching)) == "north/3"
    assert numeric.status_code == 200, numeric.text
    assert wrong_number.status_code == 400 and error_of(wrong_number)["code"] == -32020


async def test_unknown_method_is_404_method_not_found(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern("nonexistent/method", {}, 11))
            legacy_only = await post(client, url, modern("initialize", {}, 12))
    assert response.status_code == 404, response.text
    assert error_of(response)["code"] == -32601
    assert response.json()["id"] == 11
    assert legacy_only.status_code == 404
    assert error_of(legacy_only)["code"] == -32601


async def test_unsupported_version_in_meta_is_400_with_supported_list(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("echo", {"text": "x"}, 5, version="2099-01-01"))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["code"] == -32022
    assert MODERN in error["data"]["supported"]


async def test_progress_streams_without_event_ids(app):
    """Modern streams are not resumable: no ids, no priming; progress then the response."""
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("count", {"steps": 3}, 1, progress_token="mp"))
    assert response.status_code == 200
    assert is_sse(response)
    assert response.headers["x-accel-buffering"] == "no"
    assert "id:" not in response.text
    messages = messages_of(response)
    assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
    assert messages[-1]["result"]["resultType"] == "complete"


async def test_subscriptions_listen_acknowledges_then_delivers_list_changed(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            body, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, "sub-1")
            async with client.stream("POST", url, json=body, headers=headers) as response:
                assert response.status_code == 200
                assert is_sse(response)
                reader = SseReader(response)
                ack = await reader.next_message()
                assert ack["method"] == "notifications/subscriptions/acknowledged", ack
                assert ack["params"]["_meta"][SUBSCRIPTION_ID] == "sub-1"
                assert ack["params"]["notifications"] == {"toolsListChanged": True}
                await trio.sleep(0.1)  # a notification right after the ack: test_http_notifications.py
                await app.notify_prompts_changed()  # not opted in: not delivered
                await app.notify_tools_changed()
                changed = await reader.next_message()
                assert changed["method"] == "notifications/tools/list_changed", changed
                assert changed["params"]["_meta"][SUBSCRIPTION_ID] == "sub-1"
                assert "id" not in changed
            # Closing the stream ends the subscription.
            await wait_until(lambda: not app.listeners, 5, "the listener is dropped after the stream closed")


async def test_multi_round_trip_elicitation_over_http(app):
    caps = {"elicitation": {}}
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            first = await post(client, url, modern_tool("ask_name", {}, 1, capabilities=caps))
            assert first.status_code == 200, first.text
            result = final_of(first, 1)["result"]
            assert result["resultType"] == "input_required", result
            [(key, ask)] = result["inputRequests"].items()
            assert ask["method"] == "elicitation/create"
            assert ask["params"]["message"] == "Your name?"
            state = result["requestState"]
            assert isinstance(state, str) and state
            retry_params = {
                "name": "ask_name",
                "arguments": {},
                "inputResponses": {key: {"action": "accept", "content": {"name": "Grace"}}},
                "requestState": state,
            }
            second = await post(client, url, modern("tools/call", retry_params, 2, capabilities=caps))
    assert second.status_code == 200, second.text
    final = final_of(second, 2)
    assert final["result"]["resultType"] == "complete"
    assert text_of(final) == "hello Grace"


async def test_elicitation_without_capability_is_missing_capability_error(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post(client, url, modern_tool("ask_name", {}, 1))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["code"] == -32021
    assert "elicitation" in error["data"]["requiredCapabilities"]


async def test_modern_notification_post_is_202(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            body, headers = modern("tools/list", {}, 1)
            del body["id"]
            body["method"] = "notifications/roots/list_changed"
            headers["mcp-method"] = "notifications/roots/list_changed"
            response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 202, response.text


async def test_a_hidden_tools_mcp_param_headers_tell_nothing_of_it():
    """A rule hides execute_sql: called with Mcp-Param-* headers that do not match its arguments, it
    is answered byte for byte as on a server that never had it; a tool the caller sees still gets
    the 400 mismatch."""
    hidden = header_app()
    hidden.add_visibility_rule(lambda component, request: component.name != "execute_sql")
    never = build_app()
    call = modern_tool("execute_sql", {"region": "us-west1", "query": "q"}, 1, headers={"mcp-param-region": "eu"})
    answers = []
    for app in (hidden, never):
        async with http_server(app) as url, new_client() as client:
            with trio.fail_after(10):
                answers.append(await post(client, url, call))
                if app is hidden:
                    seen = await post(
                        client,
                        url,
                        modern_tool("forecast", {"region": "north"}, 2, headers={"mcp-param-zone": "south"}),
                    )
    assert (answers[0].status_code, answers[0].content) == (answers[1].status_code, answers[1].content)
    assert "unknown tool" in answers[0].text
    assert seen.status_code == 400 and error_of(seen)["code"] == -32020
