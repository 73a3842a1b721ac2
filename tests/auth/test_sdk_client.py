"""End to end with the official MCP SDK client (``mcp`` 2.3.0) and a real authorization server.

``mcptrio serve`` runs from the command line with ``--auth-issuer`` and a ``[serve.auth]`` table
that makes the bench plugin's ``echo`` need ``files:write``.  The SDK's
``ClientCredentialsOAuthProvider`` meets the 401, reads the Protected Resource Metadata, gets a
token from oidc-provider by client credentials, and calls tools; ``echo`` answers 403
``insufficient_scope``, the SDK steps up to a token with the union of scopes, and the call
succeeds.  Both eras.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
import trio
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

MCPTRIO = [sys.executable, "-m", "mcptrio"]


class MemoryTokens:
    """The SDK's TokenStorage, in memory; remembers every token it was given."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def serve(tmp_path: Path, issuer: str) -> tuple[trio.Process, str, Path]:
    config = tmp_path / "mcptrio.toml"
    config.write_text(
        '[serve]\nplugins = ["bench"]\ntransport = "http"\nport = 0\n'
        f'[serve.auth]\nissuer = "{issuer}"\nscopes = ["mcp:read"]\n'
        '[serve.auth.tool_scopes]\necho = ["files:write"]\n'
    )
    stderr_path = tmp_path / "stderr.log"
    with open(stderr_path, "wb") as err:
        process = await trio.lowlevel.open_process(
            MCPTRIO + ["serve", "--config", str(config)], stderr=err, stdin=subprocess.DEVNULL
        )
    with trio.fail_after(20):
        while not (found := re.search(r"serving bench at (\S+)", stderr_path.read_text())):
            assert process.poll() is None, stderr_path.read_text()
            await trio.sleep(0.05)
    return process, found.group(1), stderr_path


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_authorizes_steps_up_and_calls(tmp_path: Path, auth_server: Any, mode: str) -> None:
    process, url, stderr_path = await serve(tmp_path, auth_server.issuer)
    storage = MemoryTokens()
    provider = ClientCredentialsOAuthProvider(url, storage, "alpha", "alpha-secret", issuer=auth_server.issuer)
    try:
        async with httpx2.AsyncClient(auth=provider, timeout=20) as http:
            with trio.fail_after(30):
                async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                    assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
                    slept = await client.call_tool("sleep", {"ms": 1})
                    assert slept.content[0].text == "slept 1 ms"
                    first_scopes = set(storage.tokens.scope.split())
                    echoed = await client.call_tool("echo", {"text": "stepped up"})  # 403, step up, retry
                    assert echoed.content[0].text == "stepped up"
    finally:
        process.terminate()
        with trio.move_on_after(10):
            await process.wait()
        if process.poll() is None:
            process.kill()
    assert first_scopes == {"mcp:read"}  # what the 401's challenge asked for, no more
    assert set(storage.tokens.scope.split()) == {"mcp:read", "files:write"}  # the union, after the 403
    log = stderr_path.read_text()
    assert "Traceback" not in log
    assert storage.tokens.access_token not in log  # tokens never reach the log
