"""A FastAPI application nobody here wrote the OpenAPI document of, served by a real ASGI server on a
loopback port: its document fetched from /openapi.json and every operation called as a tool through
mcptrio's own client, each structured answer checked against the output schema the tool publishes."""

from __future__ import annotations

import base64

import jsonschema
import trio
from mcptrio_openapi import OpenApiSettings, RouteMap, load
from shop_api import PNG

import mcptrio
import mcptrio.client


async def served(url: str, **settings: object):
    """The shop's document fetched as ``mcptrio serve`` does (in a thread: the API runs in this loop)."""
    return await trio.to_thread.run_sync(lambda: load(OpenApiSettings(f"{url}/openapi.json", **settings)))


def app_of(registry: mcptrio.Registry) -> mcptrio.App:
    app = mcptrio.App(name="shop")
    app.include(registry)
    return app


def check_structured(tool: dict, result) -> object:
    """The result's structuredContent, valid against the tool's published outputSchema."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    jsonschema.validate(result.structured_content, tool["outputSchema"])
    return result.structured_content


async def test_every_route_as_a_tool(shop: str) -> None:
    loaded = await served(shop)
    assert loaded.skipped == [] and loaded.base_url == shop
    assert set(loaded.kinds.values()) == {"tool"} and len(loaded.kinds) == 12
    app = loaded.registry
    with trio.fail_after(30):
        async with mcptrio.client.connect(app_of(app)) as client:
            tools = {tool["name"]: tool for tool in (await client.request("tools/list", {}))["tools"]}
            assert tools["get_item"]["annotations"]["readOnlyHint"] is True
            assert tools["delete_item"]["annotations"]["destructiveHint"] is True
            assert tools["set_tags"]["annotations"]["idempotentHint"] is True
            create = tools["create_item"]["inputSchema"]
            assert {"name", "color", "dimensions"} <= set(create["required"])
            assert "id" not in create["properties"]  # readOnly: the client does not send it
            assert create["properties"]["color"]["enum"] == ["red", "green", "blue"]
            assert create["properties"]["dimensions"]["properties"]["width"]["exclusiveMinimum"] == 0
            assert "secret_note" not in str(tools["create_item"]["outputSchema"])  # writeOnly: never answered

            page = check_structured(tools["list_items"], await client.call_tool("list_items", {"color": "red"}))
            assert page == {"items": [page["items"][0]], "total": 1} and page["items"][0]["name"] == "kite"
            item = check_structured(tools["get_item"], await client.call_tool("get_item", {"item_id": 2}))
            assert item["dimensions"] == {"width": 0.3, "height": 0.5}
            new = {"name": "boat", "color": "blue", "dimensions": {"width": 2, "height": 1}, "secret_note": "x"}
            made = check_structured(tools["create_item"], await client.call_tool("create_item", new))
            assert made["id"] == 3 and made["color"] == "blue"
            tags = check_structured(
                tools["set_tags"], await client.call_tool("set_tags", {"item_id": 3, "body": ["a"]})
            )
            assert tags == {"result": ["a"]}
            stats = check_structured(tools["stats"], await client.call_tool("stats"))
            assert stats == {"items": 3}

            photo = await client.call_tool("item_photo", {"item_id": 1})
            assert not photo.is_error and photo.content[0].type == "image"
            assert photo.content[0].mime_type == "image/png" and photo.content[0].data == PNG
            label = await client.call_tool("item_label", {"item_id": 7})
            assert label.content[0].text == "item 7"
            gone = await client.call_tool("delete_item", {"item_id": 3})
            assert not gone.is_error and gone.content[0].text.startswith("HTTP 204")

            missing = await client.call_tool("get_item", {"item_id": 99})
            assert missing.is_error and missing.content[0].text.startswith("HTTP 404 Not Found from GET")
            assert "no item 99" in missing.content[0].text
            conflict = await client.call_tool("order", {"item_id": 1, "quantity": 2})
            assert conflict.is_error
            assert conflict.content[0].text.endswith(": Out of stock — item 1 has none left")
            refused = await client.call_tool("create_item", {**new, "color": "pink"})
            assert refused.is_error and "color" in refused.content[0].text  # (checked before any HTTP)


async def test_route_maps_make_resources_and_leave_out(shop: str) -> None:
    maps = (
        RouteMap("exclude", tags=frozenset({"admin"})),
        RouteMap("resource", methods=frozenset({"GET"})),
    )
    loaded = await served(shop, route_maps=maps)
    kinds = loaded.kinds
    assert kinds["delete_item"] == "exclude" and "delete_item" not in loaded.registry.tools
    assert kinds["stats"] == "resource" and kinds["get_item"] == "template" and kinds["item_photo"] == "template"
    assert kinds["list_items"] == "resource" and kinds["create_item"] == "tool"
    with trio.fail_after(30):
        async with mcptrio.client.connect(app_of(loaded.registry)) as client:
            listed = await client.request("resources/templates/list", {})
            assert {t["uriTemplate"] for t in listed["resourceTemplates"]} >= {"openapi://items/{item_id}"}
            item = await client.request("resources/read", {"uri": "openapi://items/1"})
            assert '"kite"' in item["contents"][0]["text"]
            photo = await client.request("resources/read", {"uri": "openapi://items/1/photo"})
            assert base64.b64decode(photo["contents"][0]["blob"]) == PNG
