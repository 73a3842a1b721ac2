"""GitHub's REST API description (OpenAPI 3.0.3, 13 MB, 1,223 operations), a document nobody here
wrote, loaded whole: every operation a tool, none skipped, each schema self-contained."""

from __future__ import annotations

from pathlib import Path

import orjson
from mcptrio_openapi import OpenApiSettings, RouteMap, load

GITHUB = Path(__file__).parent / "data" / "api.github.com.json.xz"


def test_github_rest_description_loads_in_full() -> None:
    loaded = load(OpenApiSettings(GITHUB))
    print(f"GitHub REST: {len(loaded.registry.tools)} tools, {len(loaded.skipped)} skipped")
    assert loaded.skipped == [] and len(loaded.registry.tools) == 1223
    assert loaded.base_url == "https://api.github.com"
    tools = {name: entry.definition() for name, entry in loaded.registry.tools.items()}
    get = tools["repos_get"]
    assert get["inputSchema"]["required"] == ["owner", "repo"] and get["annotations"]["readOnlyHint"] is True
    assert get["outputSchema"]["type"] == "object" and "full_name" in get["outputSchema"]["properties"]
    assert tools["repos_delete"]["annotations"]["destructiveHint"] is True
    assert all('"$ref":"#/components' not in orjson.dumps(tool).decode() for tool in tools.values())
    upload = tools["repos_upload-release-asset"]["inputSchema"]["properties"]["body"]
    assert upload["contentEncoding"] == "base64"  # (an application/octet-stream body)


def test_route_maps_on_a_large_document() -> None:
    maps = (
        RouteMap("exclude", tags=frozenset({"enterprise-admin", "orgs"})),
        RouteMap("exclude", methods=frozenset({"DELETE"})),
    )
    loaded = load(OpenApiSettings(GITHUB, route_maps=maps))
    kinds = loaded.kinds
    assert kinds["orgs_get"] == "exclude" and kinds["repos_delete"] == "exclude" and kinds["repos_get"] == "tool"
    assert len(loaded.registry.tools) == sum(kind == "tool" for kind in kinds.values()) < 1223
