"""Mistakes in a handler are refused when it is registered, in one line, and so at load by
``mcptrio serve``: template variables that are not the handler's parameters, and return
annotations no result can be made of."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

import mcptrio
from tests.cli.test_cli import fake_distribution, one_line_error, run


def register(kind: str, uri_or_name: str, fn, **options: Any) -> None:
    plugin = mcptrio.Registry("p")
    decorator = getattr(plugin, kind)
    decorator(uri_or_name, **options)(fn)


async def by_id(id: str) -> str: ...
async def by_ids(id: str, other: str) -> str: ...
async def by_anything(**variables: str) -> str: ...
async def by_id_with_default(id: str, version: str = "latest") -> str: ...
def by_nothing() -> str: ...


@pytest.mark.parametrize(
    "uri, fn",
    [
        ("probe://x/{id}", by_id),
        ("probe://x/{id}/{other}", by_ids),
        ("probe://x/{id}", by_anything),
        ("probe://x/{id}", by_id_with_default),
        ("probe://x", by_nothing),
    ],
)
def test_templates_whose_variables_fit_the_parameters(uri, fn):
    register("resource", uri, fn)


@pytest.mark.parametrize(
    "uri, fn, message",
    [
        (
            "probe://x/{id}",
            by_nothing,
            "resource template 'probe://x/{id}': by_nothing has no parameter 'id' for the variable {id}",
        ),
        (
            "probe://x/{id}",
            by_ids,
            "resource template 'probe://x/{id}': by_ids requires the parameter 'other', which is "
            "not a variable of the URI (add {other} to the URI or give it a default)",
        ),
        (
            "probe://x",
            by_id,
            "resource 'probe://x': by_id requires the parameter 'id', which is not a variable of the "
            "URI (a resource without {variables} passes none)",
        ),
        ("probe://{id}/{id}", by_id, "resource template 'probe://{id}/{id}': the variable {id} appears twice"),
        *(
            (
                uri,
                by_id,
                f"resource {uri!r}: a '{{' or '}}' that is not part of a {{variable}} "
                "(a template's variables are {name}, or {+name} to take '/' too)",
            )
            for uri in ("probe://{id", "probe://x/{id}}", "probe://{id}{?a,b}", "probe://x}")
        ),
    ],
)
def test_templates_whose_variables_do_not_fit_are_refused(uri, fn, message):
    with pytest.raises(TypeError) as refused:
        register("resource", uri, fn)
    assert str(refused.value) == message


async def resource_int() -> int: ...
async def resource_date() -> datetime.date: ...
async def resource_ok() -> list[str | bytes] | None: ...
async def prompt_int() -> int: ...
async def prompt_ok() -> list[str | dict[str, Any]]: ...
def completer_str(value: str, given: dict) -> str: ...
def completer_ints(value: str, given: dict) -> list[int]: ...
def completer_ok(value: str, given: dict) -> Sequence[str]: ...
def completer_iterable(value: str, given: dict) -> Iterable[str]: ...


@pytest.mark.parametrize(
    "kind, target, fn",
    [
        ("resource", "probe://r", resource_ok),
        ("prompt", "p", prompt_ok),
    ],
)
def test_return_annotations_that_fit(kind, target, fn):
    register(kind, target, fn)
    register("resource", "probe://{id}", by_id, complete={"id": completer_ok})
    register("resource", "probe://{id}", by_id, complete={"id": completer_iterable})


@pytest.mark.parametrize(
    "kind, target, fn, options, message",
    [
        (
            "resource",
            "probe://r",
            resource_int,
            {},
            "resource 'probe://r': resource_int is annotated to return int, but it must return str (text), "
            "bytes (a blob) or resource contents",
        ),
        (
            "resource",
            "probe://r",
            resource_date,
            {},
            "resource 'probe://r': resource_date is annotated to return datetime.date, but it must return str (text), "
            "bytes (a blob) or resource contents",
        ),
        (
            "prompt",
            "p",
            prompt_int,
            {},
            "prompt 'p': prompt_int is annotated to return int, but it must return str or a list of messages",
        ),
        (
            "resource",
            "probe://{id}",
            by_id,
            {"complete": {"id": completer_str}},
            "completer of 'id': completer_str is annotated to return str, but it must return a list of str",
        ),
        (
            "prompt",
            "p",
            prompt_ok,
            {"complete": {"topic": completer_ints}},
            "completer of 'topic': completer_ints is annotated to return list[int], but it must return a list of str",
        ),
    ],
)
def test_return_annotations_no_result_can_be_made_of_are_refused(kind, target, fn, options, message):
    with pytest.raises(TypeError) as refused:
        register(kind, target, fn, **options)
    assert str(refused.value) == message


class Opaque:
    pass


async def opaque() -> Opaque: ...


def test_a_tool_return_annotation_that_has_no_schema_is_refused():
    expected = r"^opaque: return type: unsupported type tests\.app\.test_handler_checks\.Opaque$"
    with pytest.raises(TypeError, match=expected):
        mcptrio.Registry("p").tool()(opaque)


def test_serve_refuses_such_a_plugin_at_load_in_one_line(tmp_path):
    fake_distribution(
        tmp_path,
        "probe_plugin",
        {"probe": "probe:plugin"},
        {
            "probe": """
        import mcptrio
        plugin = mcptrio.Registry("probe")

        @plugin.resource("probe://x/{id}")
        async def probe() -> str:
            return "never read"
    """
        },
    )
    line = one_line_error(run(["serve", "--plugins", "probe"], tmp_path))
    assert line.endswith(
        "failed to load plugin 'probe': TypeError: resource template 'probe://x/{id}': probe has no "
        "parameter 'id' for the variable {id}"
    )
