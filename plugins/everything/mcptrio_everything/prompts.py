"""The prompts of the ``prompts-*`` scenarios, and the completer ``completion-complete`` queries
(``ref/prompt`` ``test_prompt_with_arguments``, argument ``arg1``)."""

from __future__ import annotations

from typing import Any

from .media import image_block
from .registry import plugin

ARG1_SUGGESTIONS = ("paris", "park", "party", "test", "testValue1")


async def complete_arg1(value: str, context_arguments: dict[str, Any]) -> list[str]:
    """Suggest fixed values for ``arg1`` that start with what the user typed."""
    return [candidate for candidate in ARG1_SUGGESTIONS if candidate.startswith(value)]


@plugin.prompt(title="Simple Test Prompt", description="A simple prompt without arguments")
async def test_simple_prompt() -> str:
    return "This is a simple prompt for testing."


@plugin.prompt(
    title="Prompt With Arguments",
    description="A prompt with two required arguments",
    arguments={"arg1": "First test argument", "arg2": "Second test argument"},
    complete={"arg1": complete_arg1},
)
async def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@plugin.prompt(
    title="Prompt With Embedded Resource",
    description="A prompt that embeds the resource it is given",
    arguments={"resourceUri": "URI of the resource to embed"},
)
async def test_prompt_with_embedded_resource(resourceUri: str) -> list[dict[str, Any]]:  # noqa: N803
    resource = {"uri": resourceUri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}
    return [
        {"role": "user", "content": {"type": "resource", "resource": resource}},
        {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
    ]


@plugin.prompt(title="Prompt With Image", description="A prompt that includes image content")
async def test_prompt_with_image() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": image_block()},
        {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
    ]
