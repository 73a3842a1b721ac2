"""The resources of the ``resources-*`` and ``caching`` scenarios.

``caching`` reads the first resource ``resources/list`` returns, so the first one registered here
must always be readable. ``resources-subscribe``/``-unsubscribe`` use ``test://watched-resource``.
"""

from __future__ import annotations

import json
from typing import Any

from .media import PNG_BYTES
from .registry import plugin

TEMPLATE_IDS = ("1", "2", "3", "42", "123")


@plugin.resource(
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
)
async def static_text() -> str:
    return "This is the content of the static text resource."


@plugin.resource(
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (a 1x1 red PNG) for testing",
    mime_type="image/png",
)
async def static_binary() -> bytes:
    return PNG_BYTES


@plugin.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource clients may subscribe to (resources/subscribe)",
    mime_type="text/plain",
)
async def watched_resource() -> str:
    return "Watched resource content"


async def complete_template_id(value: str, context_arguments: dict[str, Any]) -> list[str]:
    """Suggest the template ids that start with what the user typed."""
    return [candidate for candidate in TEMPLATE_IDS if candidate.startswith(value)]


@plugin.resource(
    "test://template/{id}/data",
    name="template",
    title="Resource Template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
    complete={"id": complete_template_id},
)
async def template_data(id: str) -> str:  # noqa: A002  (the URI template names the variable "id")
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))
