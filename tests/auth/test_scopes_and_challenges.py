"""Scope policy and challenge formats, through the public API (no authorization server needed)."""

from __future__ import annotations

import orjson
import pytest

import mcptrio
from mcptrio.auth import AuthConfig, InsufficientScope, InvalidToken, Principal, ScopePolicy
from mcptrio.auth.errors import AuthUnavailable, InvalidRequest, MissingToken
from mcptrio.auth.gate import Gate

RESOURCE = "https://mcp.example.com/public/mcp"


class NoVerifier:
    async def verify(self, token: str) -> Principal:  # pragma: no cover - not called here
        raise InvalidToken("unused")

    async def aclose(self) -> None: ...


def gate(**options) -> Gate:
    return Gate(AuthConfig(issuer="https://as.example.com", verifier=NoVerifier(), **options), RESOURCE)


def test_hierarchies_are_transitive_and_the_needed_scopes_add_up():
    policy = ScopePolicy(
        frozenset({"mcp"}),
        tools={"write_file": ["files:write"]},
        implied={"admin": ["files:write"], "files:write": ["files:read"]},
    )
    needed = policy.needed("tools/call", {"name": "write_file"}, frozenset({"files:read"}))
    assert needed == {"mcp", "files:write", "files:read"}
    assert policy.missing(frozenset({"mcp", "admin"}), needed) == frozenset()
    assert policy.missing(frozenset({"mcp", "files:read"}), needed) == {"files:write"}
    assert policy.needed("tools/list", {}) == {"mcp"}


def test_declared_scopes_of_tools_prompts_resources_and_templates():
    app = mcptrio.App(
        "scoped",
        auth=AuthConfig(
            issuer="https://as.example.com", verifier=NoVerifier(), scopes=["mcp"], tool_scopes={"plain": ["ops"]}
        ),
    )

    @app.tool(scopes=["files:write"])
    async def write() -> str:
        return ""

    @app.tool()
    async def plain() -> str:
        return ""

    @app.prompt(scopes=["prompts"])
    async def hello() -> str:
        return ""

    @app.resource("file:///{path}", scopes=["files:read"])
    async def file(path: str) -> str:
        return path

    assert app.scopes.needed("tools/call", {"name": "write"}) == {"mcp", "files:write"}
    assert app.scopes.needed("tools/call", {"name": "plain"}) == {"mcp", "ops"}
    assert app.scopes.needed("prompts/get", {"name": "hello"}) == {"mcp", "prompts"}
    assert app.scopes.needed("resources/read", {"uri": "file:///notes.txt"}) == {"mcp", "files:read"}
    assert app.scopes.needed("tools/call", {"name": "nonexistent"}) == {"mcp"}
    with pytest.raises(TypeError):
        app.tool(scopes="files:write")
    with pytest.raises(ValueError):
        app.tool(scopes=["two words"])


def test_metadata_follows_rfc_9728_from_the_configured_url():
    door = gate(scopes=["mcp:read"], resource_name="Notes", resource_documentation="https://docs.example.com")
    assert door.metadata_paths == (
        "/.well-known/oauth-protected-resource/public/mcp",
        "/.well-known/oauth-protected-resource",
    )
    assert door.metadata_url == "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
    assert orjson.loads(door.metadata) == {
        "resource": RESOURCE,
        "authorization_servers": ["https://as.example.com"],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp:read"],
        "resource_name": "Notes",
        "resource_documentation": "https://docs.example.com",
    }


def header(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    (value,) = [v for k, v in headers if k == name]
    return value.decode()


def test_each_failure_has_its_challenge():
    door = gate(scopes=["mcp:read"])
    meta = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"'

    status, headers, body = door.challenge(MissingToken("this server needs an access token"))
    assert status == 401
    assert header(headers, b"www-authenticate") == f'Bearer scope="mcp:read", {meta}'  # no error attribute
    assert orjson.loads(body)["error"] == "unauthorized"

    status, headers, body = door.challenge(InvalidToken('the token has "expired"'))
    assert status == 401
    assert header(headers, b"www-authenticate") == (
        f'Bearer error="invalid_token", error_description="the token has expired", scope="mcp:read", {meta}'
    )
    assert orjson.loads(body) == {"error": "invalid_token", "error_description": 'the token has "expired"'}

    status, headers, body = door.challenge(InsufficientScope(frozenset({"files:write", "mcp:read"})))
    assert status == 403
    challenge = header(headers, b"www-authenticate")
    assert challenge.startswith('Bearer error="insufficient_scope"')
    assert 'scope="files:write mcp:read"' in challenge and meta in challenge
    assert orjson.loads(body)["scope"] == "files:write mcp:read"

    status, headers, _ = door.challenge(InvalidRequest("token in the query string"))
    assert status == 400 and 'error="invalid_request"' in header(headers, b"www-authenticate")

    status, headers, body = door.challenge(AuthUnavailable("down", retry_after=7))
    assert status == 503 and header(headers, b"retry-after") == "7"
    assert orjson.loads(body)["error"] == "temporarily_unavailable"


async def test_the_door_refuses_before_asking_the_verifier():
    door = gate()
    with pytest.raises(InvalidRequest):
        await door.authenticate(b"Bearer abc", b"access_token=abc")
    with pytest.raises(MissingToken):
        await door.authenticate(None)
    with pytest.raises(MissingToken):
        await door.authenticate(b"Basic dXNlcjpwYXNz")
    with pytest.raises(InvalidToken):
        await door.authenticate(b"Bearer ")
    with pytest.raises(InvalidToken):
        await door.authenticate(b"Bearer two tokens")


def test_configuration_mistakes_are_refused():
    with pytest.raises(ValueError):
        AuthConfig(issuer="ftp://as.example.com")
    with pytest.raises(ValueError):
        AuthConfig(issuer="https://as.example.com", introspection_url="https://as.example.com/introspect")
    with pytest.raises(ValueError):
        AuthConfig(issuer="https://as.example.com", scopes=["offline_access"])
