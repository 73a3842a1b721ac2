"""Helpers for the filesystem plugin's tests: a client with roots, in either era."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcptrio_filesystem import plugin

import mcptrio
from mcptrio.testing import open_client

SECRET = "TOP-SECRET-OUTSIDE"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(64)


def make_app() -> mcptrio.App:
    app = mcptrio.App("filesystem-test")
    app.include(plugin)
    return app


class FsClient:
    """The testing client, answering roots/list (or not) and retrying input-required rounds."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        return await self.client.call_tool(name, arguments, resolve_input=True)

    async def ok(self, name: str, **arguments: Any) -> str:
        result = await self.call(name, **arguments)
        assert not result.get("isError"), result
        return result["content"][0]["text"]

    async def refused(self, name: str, **arguments: Any) -> str:
        result = await self.call(name, **arguments)
        assert result.get("isError") is True, result
        return result["content"][0]["text"]

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return await self.client.request("resources/read", {"uri": uri}, resolve_input=True)


@contextlib.asynccontextmanager
async def fs_client(
    era: str, *roots: Path | str, declare_roots: bool = True, names: dict[str, str] | None = None
) -> AsyncIterator[FsClient]:
    """A client whose roots are ``roots`` (file:// URIs, or raw URIs given as str)."""
    listed = []
    for root in roots:
        uri = root.as_uri() if isinstance(root, Path) else root
        entry = {"uri": uri}
        if names and uri in names:
            entry["name"] = names[uri]
        listed.append(entry)

    async def list_roots(params: dict[str, Any]) -> dict[str, Any]:
        return {"roots": listed}

    capabilities = {"roots": {"listChanged": True}} if declare_roots else {}
    handlers = {"roots/list": list_roots} if declare_roots else {}
    async with open_client(make_app(), era=era, capabilities=capabilities, handlers=handlers) as client:
        yield FsClient(client)


def assert_safe(text: str, *hidden: Path) -> None:
    """An error text reveals no outside path, no secret and no traceback."""
    assert SECRET not in text
    assert "Traceback" not in text and "internal error" not in text, text
    for path in hidden:
        assert str(path) not in text, text
