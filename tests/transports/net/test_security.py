"""Checks before anything else: Origin and Host allow-lists (DNS rebinding), body size, media types."""

import json
from urllib.parse import urlsplit

import pytest
import trio

from mcptrio import SessionLimits
from mcptrio.transports.http import HttpConfig

from ..http.client import (
    MODERN,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    rpc,
    text_of,
)


async def post_modern(client, url, extra=None, **kwargs):
    body, headers = modern_tool("echo", {"text": "hi"}, 1, **kwargs)
    headers.update(extra or {})
    return await client.post(url, json=body, headers=headers)


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "https://attacker.test:8443", "null", "http://127.0.0.1.evil.example", "file://"]
)
async def test_bad_origin_is_403(app, origin):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post_modern(client, url, {"origin": origin})
    assert response.status_code == 403, response.text
    body = response.json()
    assert body["error"]["code"] == -32600
    assert body.get("id") is None


async def test_bad_origin_is_403_for_get_delete_and_initialize(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            evil = {"origin": "http://evil.example"}
            get = await client.get(url, headers={**legacy_headers(session_id), **evil})
            delete = await client.delete(url, headers={**legacy_headers(session_id), **evil})
            params = {"protocolVersion": "2025-11-25", "capabilities": {}}
            init = await client.post(url, json=rpc("initialize", params, 1), headers={**legacy_headers(), **evil})
            still = await client.post(url, json=rpc("ping", {}, 2), headers=legacy_headers(session_id))
    assert get.status_code == 403
    assert delete.status_code == 403
    assert init.status_code == 403
    assert "mcp-session-id" not in init.headers
    assert still.status_code == 200  # the refused DELETE did not end the session


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "attacker.test:1234", "127.0.0.2"])
async def test_bad_host_is_421(app, host):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post_modern(client, url, {"host": host})
    assert response.status_code == 421, response.text


async def test_loopback_host_and_origin_are_accepted(app):
    async with http_server(app) as url, new_client() as client:
        port = urlsplit(url).port
        with trio.fail_after(10):
            for host, origin in (
                (f"localhost:{port}", "http://localhost:5173"),
                (f"127.0.0.1:{port}", f"http://127.0.0.1:{port}"),
                ("LOCALHOST", "https://localhost"),
                (f"[::1]:{port}", "http://[::1]:3000"),
            ):
                response = await post_modern(client, url, {"host": host, "origin": origin})
                assert response.status_code == 200, (host, origin, response.status_code, response.text)
                assert text_of(final_of(response)) == "hi"
            no_origin = await post_modern(client, url)
    assert no_origin.status_code == 200


async def test_allowed_origins_list_admits_a_named_origin(app):
    config = HttpConfig(allowed_origins=("https://app.example",))
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(10):
            named = await post_modern(client, url, {"origin": "https://app.example"})
            other_scheme = await post_modern(client, url, {"origin": "http://app.example"})
            other = await post_modern(client, url, {"origin": "https://app.example.evil"})
    assert named.status_code == 200, named.text
    assert other_scheme.status_code == 403
    assert other.status_code == 403


LIMITS = SessionLimits(max_message_size=2048)


async def test_body_over_the_limit_is_413(app):
    async with http_server(app, limits=LIMITS) as url, new_client() as client:
        with trio.fail_after(10):
            body, headers = modern_tool("echo", {"text": "x" * 10_000}, 1)
            response = await client.post(url, json=body, headers=headers)
            small = await post_modern(client, url)
    assert response.status_code == 413, response.text
    assert small.status_code == 200


async def test_chunked_body_over_the_limit_is_413(app):
    async with http_server(app, limits=LIMITS) as url, new_client() as client:
        body, headers = modern_tool("echo", {"text": "x" * 10_000}, 1)
        data = json.dumps(body).encode()
        chunks_sent = []

        async def chunks():
            for start in range(0, len(data), 512):
                chunks_sent.append(start)
                yield data[start : start + 512]

        with trio.fail_after(10):
            response = await client.post(url, content=chunks(), headers=headers)
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == 413, response.text


async def test_chunked_body_under_the_limit_is_served(app):
    async with http_server(app, limits=LIMITS) as url, new_client() as client:
        body, headers = modern_tool("echo", {"text": "chunky"}, 1)
        data = json.dumps(body).encode()

        async def chunks():
            for start in range(0, len(data), 64):
                yield data[start : start + 64]

        with trio.fail_after(10):
            response = await client.post(url, content=chunks(), headers=headers)
    assert response.status_code == 200, response.text
    assert text_of(final_of(response)) == "chunky"


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
async def test_wrong_content_type_is_415(app, content_type):
    async with http_server(app) as url, new_client() as client:
        body, headers = modern_tool("echo", {"text": "hi"}, 1)
        if content_type is None:
            del headers["content-type"]
        else:
            headers["content-type"] = content_type
        with trio.fail_after(10):
            response = await client.post(url, content=json.dumps(body).encode(), headers=headers)
    assert response.status_code == 415, response.text


async def test_content_type_with_charset_is_accepted(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post_modern(client, url, {"content-type": "application/json; charset=utf-8"})
    assert response.status_code == 200


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream", "text/html"])
async def test_post_accept_must_list_both_types_else_406(app, accept):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await post_modern(client, url, {"accept": accept})
    assert response.status_code == 406, response.text


async def test_get_accept_without_event_stream_is_406(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.get(url, headers={"accept": "application/json", "mcp-session-id": session_id})
    assert response.status_code == 406


async def test_invalid_json_body_is_400_parse_error(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await client.post(
                url,
                content=b"{not json",
                headers={
                    "accept": "application/json, text/event-stream",
                    "content-type": "application/json",
                    "mcp-protocol-version": MODERN,
                },
            )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


async def test_other_paths_are_404(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            body, headers = modern_tool("echo", {"text": "hi"}, 1)
            response = await client.post(url.replace("/mcp", "/other"), json=body, headers=headers)
    assert response.status_code == 404
