"""A plugin with a resource, a template with a completer, prompts and tools that name its own
URIs: what the namespace tests serve under a prefix."""

from __future__ import annotations

from typing import Any

from mcptrio import Context, Registry, content


def files_plugin() -> Registry:
    plugin = Registry("files")

    @plugin.resource("file:///tmp/a.txt", mime_type="text/plain")
    async def a_txt() -> str:
        return "a"

    async def complete_name(value: str, context: dict) -> list[str]:
        return [name for name in ("alpha", "beta", "alps") if name.startswith(value)]

    @plugin.resource("note://{name}", complete={"name": complete_name})
    async def note(name: str) -> dict[str, Any]:
        return {"uri": f"note://{name}", "text": f"note {name}"}  # contents naming the plugin's own URI

    @plugin.prompt(complete={"name": complete_name})
    async def ask(name: str) -> str:
        return f"about {name}"

    @plugin.tool()
    async def links() -> list:
        return [
            content.resource_link("file:///tmp/a.txt", "a"),
            content.resource_link("https://example.com/", "elsewhere"),  # not the plugin's: left as it is
            content.embedded_text("note://x", "x"),
        ]

    @plugin.prompt()
    async def quote() -> list:
        return [{"role": "user", "content": content.embedded_text("file:///tmp/a.txt", "a")}]

    @plugin.tool()
    async def peek(ctx: Context) -> str:
        [item] = await ctx.read_resource("note://beta")  # its own URI, in and out
        return f"{item['uri']} {item['text']}"

    @plugin.tool()
    async def touch(uri: str, ctx: Context) -> str:
        await ctx.app.notify_resource_updated(uri)  # the plugin's own URI: it knows no other
        return "touched"

    return plugin
