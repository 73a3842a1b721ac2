"""Path completion for the file:// template from the client's roots (completions take a Context),
and the roots a legacy session keeps until the client sends notifications/roots/list_changed."""

from __future__ import annotations

from typing import Any

from filesystem_support import make_app

from mcptrio.testing import open_client


def _complete(value: str) -> dict[str, Any]:
    return {"ref": {"type": "ref/resource", "uri": "file:///{+path}"}, "argument": {"name": "path", "value": value}}


async def test_paths_complete_from_the_clients_roots(workspace, outside):
    (workspace / "sub" / "second.txt").write_text("2")
    asked = []

    async def list_roots(params):
        asked.append(params)
        return {"roots": [{"uri": workspace.as_uri()}]}

    async with open_client(make_app(), capabilities={"roots": {}}, handlers={"roots/list": list_roots}) as client:
        root = str(workspace).lstrip("/")
        top = await client.request("completion/complete", _complete(root[:-2]))
        assert top["completion"]["values"] == [root + "/"]
        inside = await client.request("completion/complete", _complete(root + "/"))
        assert inside["completion"]["values"] == [
            f"{root}/data.bin",
            f"{root}/image.png",
            f"{root}/notes.txt",
            f"{root}/sound.wav",
            f"{root}/sub/",
        ]
        deeper = await client.request("completion/complete", _complete(root + "/sub/s"))
        assert deeper["completion"]["values"] == [f"{root}/sub/second.txt"]
        outside_root = str(outside).lstrip("/")
        refused = await client.request("completion/complete", _complete(outside_root + "/"))
        assert refused["completion"]["values"] == []  # nothing outside the roots, and no reason given
        assert len(asked) == 4  # without roots.listChanged every request asks the client again


async def test_the_modern_era_offers_no_completion_it_cannot_ask_roots_for(workspace):
    async with open_client(make_app(), era="modern", capabilities={"roots": {}}) as client:
        result = await client.request("completion/complete", _complete(str(workspace).lstrip("/") + "/"))
        assert result["completion"]["values"] == []


async def test_a_legacy_session_keeps_its_roots_until_the_client_says_they_changed(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    current = {"roots": [{"uri": first.as_uri()}]}
    asked = []

    async def list_roots(params):
        asked.append(params)
        return current

    async with open_client(
        make_app(), capabilities={"roots": {"listChanged": True}}, handlers={"roots/list": list_roots}
    ) as client:

        async def allowed() -> str:
            result = await client.call_tool("list_allowed_roots", {})
            return result["content"][0]["text"]

        assert str(first) in await allowed()
        current = {"roots": [{"uri": second.as_uri()}]}
        assert str(first) in await allowed()  # kept: the client did not say its roots changed
        assert len(asked) == 1
        await client.notify("notifications/roots/list_changed")
        text = await allowed()
        assert str(second) in text and str(first) not in text
        assert len(asked) == 2
