"""mcptrio as an OAuth resource server, against a real authorization server (oidc-provider).

Every test serves an App over real HTTP (or WebSocket) on 127.0.0.1 and gets its tokens from
the authorization server the module starts (``conftest.auth_server``).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import json
import re
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import jwt
import pytest
import trio
from cryptography.hazmat.primitives import serialization
from trio_websocket import ConnectionClosed, ConnectionRejected, open_websocket_url

import mcptrio
from mcptrio.auth import AuthConfig
from mcptrio.auth.jwt_verifier import JwtVerifier
from mcptrio.transports.http import HttpConfig, serve_http
from mcptrio.transports.websocket import serve_websocket

from ..transports.http.client import (
    CLIENT_INFO,
    LEGACY,
    call_tool,
    final_of,
    legacy_headers,
    modern,
    modern_tool,
    new_client,
    rpc,
)

FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def make_app(issuer: str, **auth: Any) -> mcptrio.App:
    app = mcptrio.App("protected", auth=AuthConfig(issuer=issuer, scopes=["mcp:read"], leeway=0, **auth))

    @app.tool()
    async def whoami(ctx: mcptrio.Context) -> str:
        principal = ctx.auth
        return json.dumps(
            {"subject": principal.subject, "client": principal.client_id, "scopes": sorted(principal.scopes)}
        )

    @app.tool(scopes=["files:write"])
    async def write_file(path: str) -> str:
        return f"wrote {path}"

    @app.tool(task="optional")
    async def job() -> str:
        await trio.sleep(0.1)
        return "job done"

    @app.tool()
    async def confirm(ctx: mcptrio.Context) -> str:
        answer = await ctx.elicit("Sure?", FORM, key="sure")
        return f"confirmed: {answer.get('action')}"

    return app


@contextlib.asynccontextmanager
async def served(app: mcptrio.App, path: str = "/mcp", port: int = 0, **config: Any) -> AsyncIterator[str]:
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_http, app, port=port, config=HttpConfig(path=path, **config), shutdown_trigger=stop.wait
            )
        )
        yield url
        stop.set()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def bearer(token: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    return {**(headers or {}), "authorization": f"Bearer {token}"}


def challenge(response: httpx.Response) -> dict[str, str]:
    """The WWW-Authenticate parameters."""
    value = response.headers["www-authenticate"]
    assert value.startswith("Bearer ")
    return dict(re.findall(r'(\w+)="([^"]*)"', value))


async def post_modern(
    http: httpx.AsyncClient,
    url: str,
    token: str | None,
    name: str = "whoami",
    arguments: dict[str, Any] | None = None,
    **extra: str,
) -> httpx.Response:
    body, headers = modern_tool(name, arguments or {}, 1)
    headers = bearer(token, headers) if token else headers
    headers.update(extra)
    return await http.post(url, json=body, headers=headers)


async def legacy_session(http: httpx.AsyncClient, url: str, token: str) -> str:
    params = {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}}, "clientInfo": CLIENT_INFO}
    response = await http.post(
        url, json=rpc("initialize", params, 0), headers=bearer(token, legacy_headers(None, None))
    )
    assert response.status_code == 200, response.text
    session_id = response.headers["mcp-session-id"]
    await http.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=bearer(token, legacy_headers(session_id)),
    )
    return session_id


# -- discovery ------------------------------------------------------------------------------------


async def test_protected_resource_metadata_at_both_well_known_urls(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        base = url.rsplit("/", 1)[0]
        for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
            response = await http.get(
                base + path, headers={"origin": "https://elsewhere.example", "host": "spoofed.example"}
            )
            assert response.status_code == 200
            assert response.headers["access-control-allow-origin"] == "*"
            assert response.json() == {
                "resource": url,
                "authorization_servers": [auth_server.issuer],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["mcp:read"],
            }


async def test_a_public_url_is_what_the_metadata_says_whatever_host_a_client_sends(auth_server):
    app = make_app(auth_server.issuer, public_url="https://mcp.example.com/mcp")
    async with served(app) as url, new_client() as http:
        base = url.rsplit("/", 1)[0]
        metadata = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp", headers={"host": "evil.example"})
        assert metadata.json()["resource"] == "https://mcp.example.com/mcp"
        refused = await post_modern(http, url, None)
        assert (
            challenge(refused)["resource_metadata"]
            == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        )


# -- challenges -------------------------------------------------------------------------------------


async def test_no_token_is_401_with_the_metadata_and_scope_and_no_error(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        refused = await post_modern(http, url, None)
    assert refused.status_code == 401
    params = challenge(refused)
    assert "error" not in params and params["scope"] == "mcp:read"
    assert params["resource_metadata"] == url.rsplit("/", 1)[0] + "/.well-known/oauth-protected-resource/mcp"
    assert refused.json()["error"] == "unauthorized"


async def test_a_token_for_this_resource_is_let_in_and_the_handler_sees_the_principal(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        modern_answer = await post_modern(http, url, token)
        who = json.loads(final_of(modern_answer)["result"]["content"][0]["text"])
        assert who == {"subject": "alpha", "client": "alpha", "scopes": ["mcp:read"]}
        session_id = await legacy_session(http, url, token)
        legacy_answer = await http.post(
            url, json=call_tool("whoami", {}, 2), headers=bearer(token, legacy_headers(session_id))
        )
        assert json.loads(final_of(legacy_answer)["result"]["content"][0]["text"])["subject"] == "alpha"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_missing_scope_is_the_403_step_up_naming_every_scope_needed(auth_server, era):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        narrow = auth_server.token("alpha", url, "mcp:read")
        wide = auth_server.token("alpha", url, "mcp:read files:write")
        if era == "modern":
            refused = await post_modern(http, url, narrow, "write_file", {"path": "a"})
            allowed = await post_modern(http, url, wide, "write_file", {"path": "a"})
        else:
            session = await legacy_session(http, url, narrow)
            refused = await http.post(
                url, json=call_tool("write_file", {"path": "a"}, 3), headers=bearer(narrow, legacy_headers(session))
            )
            session = await legacy_session(http, url, wide)
            allowed = await http.post(
                url, json=call_tool("write_file", {"path": "a"}, 4), headers=bearer(wide, legacy_headers(session))
            )
    assert refused.status_code == 403
    params = challenge(refused)
    assert params["error"] == "insufficient_scope" and params["scope"] == "files:write mcp:read"
    assert "offline_access" not in refused.headers["www-authenticate"]
    assert refused.json()["scope"] == "files:write mcp:read"
    assert final_of(allowed)["result"]["content"][0]["text"] == "wrote a"


async def test_the_body_wins_over_the_routing_headers_for_the_scope_check(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        narrow = auth_server.token("alpha", url, "mcp:read")
        body, headers = modern_tool("write_file", {"path": "a"}, 1)
        headers.update(bearer(narrow), **{"mcp-name": "whoami"})  # headers claim a harmless tool
        refused = await http.post(url, json=body, headers=headers)
    assert refused.status_code in (400, 403)  # a mismatch, or the scope the body's tool needs: never served
    assert "wrote" not in refused.text


async def test_a_scope_hierarchy_grants_the_narrower_scopes(auth_server):
    app = make_app(auth_server.issuer, implied_scopes={"mcp:write": ["files:write"]})
    async with served(app) as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read mcp:write")
        answer = await post_modern(http, url, token, "write_file", {"path": "b"})
    assert final_of(answer)["result"]["content"][0]["text"] == "wrote b"


async def test_two_clients_with_different_scopes(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        beta = auth_server.token("beta", url, "mcp:read")
        assert (await post_modern(http, url, beta)).status_code == 200
        assert (await post_modern(http, url, beta, "write_file", {"path": "c"})).status_code == 403
        with pytest.raises(RuntimeError, match="invalid_scope"):
            auth_server.token("beta", url, "mcp:read files:write")  # the AS does not down-scope


async def test_an_es256_token_verifies_too(auth_server):
    async with served(make_app(auth_server.issuer), path="/mcp-es") as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        assert jwt.get_unverified_header(token)["alg"] == "ES256"
        assert (await post_modern(http, url, token)).status_code == 200


async def test_an_opaque_token_by_introspection_cached_while_it_lives(auth_server, monkeypatch):
    monkeypatch.setenv("MCPTRIO_AUTH_CLIENT_SECRET", "introspector-secret")
    app = make_app(auth_server.issuer, introspection_url=auth_server.introspection_endpoint, client_id="introspector")
    async with served(app, path="/opaque/mcp") as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        assert token.count(".") != 2  # not a JWT
        for _ in range(3):
            answer = await post_modern(http, url, token)
            assert json.loads(final_of(answer)["result"]["content"][0]["text"])["subject"] == "alpha"
        other = auth_server.token("alpha", url.replace("/opaque/mcp", "/opaque/other"), "mcp:read")
        refused = await post_modern(http, url, other)
    assert refused.status_code == 401 and "another audience" in challenge(refused)["error_description"]


# -- attacks ------------------------------------------------------------------------------------------


def b64(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def forge(
    token: str,
    header: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
    signature: str | None = None,
) -> str:
    head, body, sig = token.split(".")

    def part(original: str, changes: dict[str, Any] | None) -> str:
        if changes is None:
            return original
        value = json.loads(base64.urlsafe_b64decode(original + "=" * (-len(original) % 4)))
        value.update(changes)
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return ".".join([part(head, header), part(body, payload), sig if signature is None else signature])


async def expect_invalid(http: httpx.AsyncClient, url: str, token: str, why: str) -> None:
    refused = await post_modern(http, url, token)
    assert refused.status_code == 401, refused.text
    params = challenge(refused)
    assert params["error"] == "invalid_token" and why in params["error_description"], params
    assert "result" not in refused.text


async def test_forged_tokens_are_refused(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        good = auth_server.token("alpha", url, "mcp:read")
        public_jwk = httpx.get(auth_server.jwks_uri).json()["keys"][0]
        public_pem = jwt.PyJWK.from_dict(public_jwk).key.public_bytes(
            encoding=serialization.Encoding.PEM, format=serialization.PublicFormat.SubjectPublicKeyInfo
        )
        claims = jwt.decode(good, options={"verify_signature": False})
        unsigned = forge(good, header={"alg": "none"}, signature="")
        await expect_invalid(http, url, unsigned, "algorithm")
        # HS256 "signed" with the public key as the secret (PyJWT refuses to make one: built by hand)
        head = b64({"alg": "HS256", "typ": "at+jwt", "kid": public_jwk["kid"]})
        body = b64(claims)
        mac = hmac.new(public_pem, f"{head}.{body}".encode(), hashlib.sha256).digest()
        await expect_invalid(
            http, url, f"{head}.{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}", "algorithm"
        )
        tampered = forge(good, payload={"scope": "mcp:read files:write", "sub": "admin"})
        await expect_invalid(http, url, tampered, "signature")
        await expect_invalid(http, url, "not-a-jwt-at-all", "malformed")
        not_access_token = forge(good, header={"typ": "JWT"})
        await expect_invalid(http, url, not_access_token, "at+jwt")


async def test_wrong_issuer_wrong_audience_expired_and_not_yet_valid(auth_server):
    from .authserver import AuthServer

    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        with AuthServer() as other_issuer:
            await expect_invalid(http, url, other_issuer.token("alpha", url, "mcp:read"), "signed with an unknown key")
        elsewhere = url.replace("/mcp", "/other")
        await expect_invalid(http, url, auth_server.token("alpha", elsewhere, "mcp:read"), "another audience")
        await expect_invalid(http, url, auth_server.token("future", url, "mcp:read test:not-yet"), "not valid yet")
    async with served(make_app(auth_server.issuer), path="/short/mcp") as url, new_client() as http:
        short = auth_server.token("alpha", url, "mcp:read")
        assert (await post_modern(http, url, short)).status_code == 200
        await trio.sleep(2.5)
        await expect_invalid(http, url, short, "expired")


async def test_a_token_naming_another_issuer_with_a_known_key_is_refused(auth_server):
    # The same keys, another issuer claim: only a forged token can say so; its signature fails first,
    # so check the issuer rule on its own with a verifier told to expect another issuer.
    async with (
        served(make_app("http://127.0.0.1:1/not-the-issuer", jwks_url=auth_server.jwks_uri)) as url,
        new_client() as http,
    ):
        await expect_invalid(http, url, auth_server.token("alpha", url, "mcp:read"), "another issuer")


async def test_a_flood_of_unknown_kids_fetches_the_jwks_a_bounded_number_of_times(auth_server):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    # (passed in, so the test can count its fetches; refetching at most once a second)
    verifier = JwtVerifier(auth_server.issuer, url, leeway=0, refetch_interval=1.0)
    app = make_app(auth_server.issuer, verifier=verifier)
    stop = trio.Event()
    async with trio.open_nursery() as nursery, new_client() as http:
        assert await nursery.start(functools.partial(serve_http, app, port=port, shutdown_trigger=stop.wait)) == url
        good = auth_server.token("alpha", url, "mcp:read")
        assert (await post_modern(http, url, good)).status_code == 200
        for flood in range(2):
            for n in range(50):
                refused = await post_modern(http, url, forge(good, header={"kid": f"made-up-{flood}-{n}"}))
                assert refused.status_code == 401
                assert challenge(refused)["error_description"] == "the token is signed with an unknown key"
            await trio.sleep(1.1)
        stop.set()
    # the first fetch; within its interval no refetch at all; after it, one for the second flood
    assert verifier.jwks_fetches == 2


async def test_with_the_authorization_server_down_requests_get_503_never_in(auth_server):
    from .authserver import AuthServer

    down = AuthServer()
    issuer = down.issuer
    async with served(make_app(issuer)) as url, new_client() as http:
        token = down.token("alpha", url, "mcp:read")
        down.stop()
        refused = await post_modern(http, url, token)
    assert refused.status_code == 503 and "retry-after" in refused.headers
    assert "result" not in refused.text


async def test_a_token_in_the_query_string_is_refused(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        body, headers = modern_tool("whoami", {}, 1)
        refused = await http.post(f"{url}?access_token={token}", json=body, headers=headers)
    assert refused.status_code == 400 and challenge(refused)["error"] == "invalid_request"


async def test_another_principal_gets_nothing_of_a_session_its_stream_or_its_request_state(auth_server):
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        alpha = auth_server.token("alpha", url, "mcp:read")
        beta = auth_server.token("beta", url, "mcp:read")
        session_id = await legacy_session(http, url, alpha)
        as_beta = bearer(beta, legacy_headers(session_id))
        stolen = await http.post(url, json=call_tool("whoami", {}, 5), headers=as_beta)
        unknown = await http.post(url, json=call_tool("whoami", {}, 5), headers=bearer(beta, legacy_headers("no-such")))
        assert stolen.status_code == unknown.status_code == 404 and stolen.json() == unknown.json()
        stream = await http.get(url, headers={**as_beta, "accept": "text/event-stream"})
        assert stream.status_code == 404
        assert (await http.delete(url, headers=as_beta)).status_code == 404
        # requestState sealed for alpha is worth nothing to beta
        body, headers = modern("tools/call", {"name": "confirm", "arguments": {}}, 6, capabilities={"elicitation": {}})
        first = final_of(await http.post(url, json=body, headers=bearer(alpha, headers)))["result"]
        assert first["resultType"] == "input_required"
        retry = dict(body)
        retry["params"] = {
            **body["params"],
            "requestState": first["requestState"],
            "inputResponses": {"sure": {"action": "accept", "content": {"ok": True}}},
        }
        replayed = final_of(await http.post(url, json=retry, headers=bearer(beta, headers)))
        assert replayed["error"]["message"] == "requestState failed verification"
        mine = final_of(await http.post(url, json=retry, headers=bearer(alpha, headers)))
        assert mine["result"]["content"][0]["text"] == "confirmed: accept"
        # the session still works for its own principal
        ok = await http.post(url, json=call_tool("whoami", {}, 7), headers=bearer(alpha, legacy_headers(session_id)))
        assert final_of(ok)["result"]


async def test_a_get_stream_ends_when_its_token_expires(auth_server):
    async with served(make_app(auth_server.issuer), path="/short/mcp") as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        session_id = await legacy_session(http, url, token)
        with trio.fail_after(10):
            started = trio.current_time()
            async with http.stream(
                "GET", url, headers={**bearer(token, legacy_headers(session_id)), "accept": "text/event-stream"}
            ) as stream:
                assert stream.status_code == 200
                async for _ in stream.aiter_bytes():
                    pass
        # The token lives 2 s by the provider's clock, in whole seconds (iat, exp), counted from before
        # `started`: the stream lasts between about 1 and 2 s; 0.5 tells it from one that ends at once.
        assert 0.5 < trio.current_time() - started < 6


# -- other transports -----------------------------------------------------------------------------------


async def test_websocket_serves_the_resource_metadata_as_plain_http_on_its_port(auth_server):
    """Where the upgrade's 401 challenge points (the http:// twin's well-known path): the metadata,
    as on HTTP; any other request that is not an upgrade, or a connection that sends nothing
    whole, leaves the server serving."""
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(serve_websocket, make_app(auth_server.issuer), port=0, shutdown_trigger=stop.wait)
        )
        resource = "http" + url[len("ws") :]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with trio.fail_after(10):
            for sent in (b"", b"GET /mcp HTT", b"NOT HTTP AT ALL\r\n\r\n"):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                await stream.send_all(sent)
                await stream.aclose()
            with pytest.raises(ConnectionRejected) as rejected:
                async with open_websocket_url(url, subprotocols=["mcp"]):
                    pass
            where = dict(
                re.findall(
                    r'(\w+)="([^"]*)"', {k.lower(): v for k, v in rejected.value.headers}[b"www-authenticate"].decode()
                )
            )
            async with httpx.AsyncClient(trust_env=False) as http:
                metadata = await http.get(where["resource_metadata"])
                head = await http.head(where["resource_metadata"])
                preflight = await http.options(where["resource_metadata"])
                plain = await http.get(resource)
        stop.set()
    assert where["resource_metadata"] == resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert metadata.status_code == 200 and metadata.headers["access-control-allow-origin"] == "*"
    assert metadata.json() == {
        "resource": resource,
        "authorization_servers": [auth_server.issuer],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp:read"],
    }
    assert head.status_code == 200 and head.content == b"" and preflight.status_code == 204
    assert plain.status_code == 400  # (not an upgrade, not the metadata: trio-websocket's answer)


async def test_websocket_checks_the_token_on_the_upgrade_and_scopes_per_message(auth_server):
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(serve_websocket, make_app(auth_server.issuer), port=0, shutdown_trigger=stop.wait)
        )
        with pytest.raises(ConnectionRejected) as rejected:
            async with open_websocket_url(url, subprotocols=["mcp"]):
                pass
        assert rejected.value.status_code == 401
        assert any(k.lower() == b"www-authenticate" for k, _ in rejected.value.headers)
        token = auth_server.token("alpha", "http" + url[len("ws") :], "mcp:read")
        with trio.fail_after(10):
            async with open_websocket_url(
                url, subprotocols=["mcp"], extra_headers=[("authorization", f"Bearer {token}")]
            ) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(call_tool("whoami", {}, 1)))
                who = json.loads(json.loads(await ws.get_message())["result"]["content"][0]["text"])
                await ws.send_message(json.dumps(call_tool("write_file", {"path": "x"}, 2)))
                refused = json.loads(await ws.get_message())
        stop.set()
    assert who["subject"] == "alpha"
    assert refused["error"]["code"] == -31403
    assert refused["error"]["data"] == {"error": "insufficient_scope", "requiredScopes": ["files:write", "mcp:read"]}


async def test_the_legacy_sse_transport_is_protected_too(auth_server):
    async with served(make_app(auth_server.issuer), legacy_sse=True) as url, new_client() as http:
        refused = await http.get(f"{url}/sse", headers={"accept": "text/event-stream"})
    assert refused.status_code == 401 and "resource_metadata" in refused.headers["www-authenticate"]


async def test_a_task_belongs_to_the_principal_that_made_it(auth_server):
    tasks = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    async with served(make_app(auth_server.issuer)) as url, new_client() as http:
        alpha = auth_server.token("alpha", url, "mcp:read")
        beta = auth_server.token("beta", url, "mcp:read")
        body, headers = modern("tools/call", {"name": "job", "arguments": {}}, 1, capabilities=tasks)
        created = final_of(await http.post(url, json=body, headers=bearer(alpha, headers)))["result"]
        assert created["resultType"] == "task"
        await trio.sleep(0.3)

        async def get(token: str, task_id: str) -> dict[str, Any]:
            body, headers = modern("tasks/get", {"taskId": task_id}, 2, capabilities=tasks)
            return final_of(await http.post(url, json=body, headers=bearer(token, headers)))

        theirs, unknown = await get(beta, created["taskId"]), await get(beta, "no-such-task")
        assert theirs["error"] == unknown["error"] and theirs["error"]["code"] == -32602
        mine = await get(alpha, created["taskId"])
    assert mine["result"]["status"] == "completed" and mine["result"]["result"]["content"][0]["text"] == "job done"


async def test_a_listen_stream_ends_with_its_closing_result_when_its_token_expires(auth_server):
    async with served(make_app(auth_server.issuer), path="/short/mcp") as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        body, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, 9)
        with trio.fail_after(10):
            started = trio.current_time()
            async with http.stream("POST", url, json=body, headers=bearer(token, headers)) as stream:
                assert stream.status_code == 200
                text = b"".join([chunk async for chunk in stream.aiter_bytes()]).decode()
        # The token lives 2 s by the provider's clock, in whole seconds (iat, exp), counted from before
        # `started`: the stream lasts between about 1 and 2 s; 0.5 tells it from one that ends at once.
        assert 0.5 < trio.current_time() - started < 6
    final = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and '"id":9' in line]
    assert final and "result" in final[-1]  # the graceful close of a listen stream, not an error


def test_auth_on_a_wildcard_address_needs_a_public_url():
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcptrio",
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--auth-issuer",
            "http://127.0.0.1:9",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--public-url" in done.stderr


async def test_a_websocket_connection_ends_when_its_token_expires(auth_server):
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_websocket,
                make_app(auth_server.issuer),
                port=0,
                path="/short/mcp",
                shutdown_trigger=stop.wait,
                limits=mcptrio.SessionLimits(shutdown_grace=0.5),
            )
        )
        token = auth_server.token("alpha", "http" + url[len("ws") :], "mcp:read")
        with trio.fail_after(10):
            started = trio.current_time()
            async with open_websocket_url(
                url, subprotocols=["mcp"], extra_headers=[("authorization", f"Bearer {token}")]
            ) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                with pytest.raises(ConnectionClosed):
                    while True:
                        await ws.get_message()
            # The token lives 2 s by the provider's clock, in whole seconds (iat, exp), counted from before
        # `started`: the stream lasts between about 1 and 2 s; 0.5 tells it from one that ends at once.
        assert 0.5 < trio.current_time() - started < 6
        stop.set()


async def test_on_the_legacy_sse_transport_a_missing_scope_is_a_json_rpc_error_on_the_stream(auth_server):
    from ..transports.http.client import SseReader

    async with served(make_app(auth_server.issuer), legacy_sse=True) as url, new_client() as http:
        token = auth_server.token("alpha", url, "mcp:read")
        other = auth_server.token("beta", url, "mcp:read")
        base = url.rsplit("/", 1)[0]
        with trio.fail_after(10):
            async with http.stream(
                "GET", f"{url}/sse", headers=bearer(token, {"accept": "text/event-stream"})
            ) as stream:
                reader = SseReader(stream)
                endpoint = (await reader.next()).data
                post = base + endpoint
                params = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": CLIENT_INFO}
                assert (
                    await http.post(post, json=rpc("initialize", params, 0), headers=bearer(token))
                ).status_code == 202
                await reader.until_response(0)
                # another principal cannot post into this stream: told it does not exist
                assert (
                    await http.post(post, json=call_tool("whoami", {}, 1), headers=bearer(other))
                ).status_code == 404
                await http.post(post, json=call_tool("write_file", {"path": "x"}, 2), headers=bearer(token))
                refused = (await reader.until_response(2))[-1]
    assert refused["error"]["code"] == -31403
    assert refused["error"]["data"]["requiredScopes"] == ["files:write", "mcp:read"]


async def test_a_handler_reads_a_resource_with_its_callers_scopes_and_sees_its_principal(auth_server):
    app = make_app(auth_server.issuer)

    @app.resource("files://secret", scopes=["files:read"])
    async def secret() -> str:
        return "the secret"

    @app.tool()
    async def peek(ctx: mcptrio.Context) -> str:
        assert ctx.http is not None and ctx.http.principal is ctx.auth
        try:
            return (await ctx.read_resource("files://secret"))[0]["text"]
        except mcptrio.McpError as error:
            return f"refused {error.code}: {error.message}"

    async with served(app) as url, new_client() as http:
        narrow = auth_server.token("alpha", url, "mcp:read")
        wide = auth_server.token("alpha", url, "mcp:read files:read")
        refused = await post_modern(http, url, narrow, "peek")
        allowed = await post_modern(http, url, wide, "peek")
    assert final_of(refused)["result"]["content"][0]["text"] == (
        "refused -31403: insufficient scope: this request needs files:read mcp:read"
    )
    assert final_of(allowed)["result"]["content"][0]["text"] == "the secret"
