"""An upstream's tools, resources, templates and prompts as entries of the app's registry tables.

Each entry's function forwards to the upstream (``Link.forward``); everything else the app does
with an entry — listing, visibility, scopes, reshaping, middleware — is as for a plugin's.  Names
are prefixed with the upstream's namespace: tools and prompts ``NAMESPACE_name``, resource URIs
and templates ``NAMESPACE+scheme://…`` (``app/namespaces.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..app.namespaces import TOOL_NAME_RULE, has_scheme, is_tool_name, prefixed_name, prefixed_uri
from ..app.registry import Completer, PromptEntry, ResourceEntry, TemplateEntry, ToolEntry, compile_template
from ..app.signature import ToolSignature


class Link(Protocol):
    """Where the entries' functions forward to (``link.Link``)."""

    name: str
    prefix: str
    owner: str

    def tool_caller(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]: ...
    def reader(self) -> Callable[..., Awaitable[list[dict[str, Any]]]]: ...
    def prompter(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]: ...
    def completer(self, ref: dict[str, Any], argument: str) -> Callable[..., Awaitable[list[str]]]: ...


log = logging.getLogger("mcptrio.gateway")

CTX = "_mcptrio_gateway_ctx"  # the context's keyword (no tool argument is named so)


def _shared(link: Link, item: dict[str, Any]) -> dict[str, Any]:
    """The fields every entry of an upstream's has: who owns it, its namespace, how it is described."""
    return {
        "owner": link.owner,
        "namespace": link.prefix,
        "title": item.get("title"),
        "description": item.get("description"),
        "icons": item.get("icons"),
    }


def _completable(
    link: Link, item: dict[str, Any], ref: dict[str, Any], arguments: Any, completes: bool
) -> dict[str, Any]:
    """The fields of a template's or a prompt's entry: the shared ones, its function's context
    keyword, and a completer per argument forwarding ``completion/complete`` when the upstream
    ``completes``."""
    complete = {argument: Completer(link.completer(ref, argument), CTX) for argument in arguments} if completes else {}
    return {**_shared(link, item), "context_parameter": CTX, "complete": complete}


def tools(link: Link, listed: list[dict[str, Any]]) -> dict[str, ToolEntry]:
    out: dict[str, ToolEntry] = {}
    for tool in listed:
        name = prefixed_name(link.prefix, tool["name"])
        if link.prefix and not is_tool_name(name):
            log.warning("upstream %s: tool %r left out: %r is not %s", link.name, tool["name"], name, TOOL_NAME_RULE)
            continue
        signature = ToolSignature.for_schema(  # (the upstream checks the arguments: it is the authority on them)
            tool.get("inputSchema") or {"type": "object"},
            name,
            output_schema=tool.get("outputSchema"),
            context_parameter=CTX,
            check=False,
        )
        out[name] = ToolEntry(
            name=name,
            fn=link.tool_caller(tool["name"]),
            signature=signature,
            annotations=tool.get("annotations"),
            meta=tool.get("_meta"),
            **_shared(link, tool),
        )
    return out


def resources(link: Link, listed: list[dict[str, Any]]) -> dict[str, ResourceEntry]:
    out: dict[str, ResourceEntry] = {}
    for resource in listed:
        if link.prefix and not has_scheme(resource["uri"]):
            log.warning("upstream %s: resource %r left out: a URI with no scheme", link.name, resource["uri"])
            continue
        uri = prefixed_uri(link.prefix, resource["uri"])
        out[uri] = ResourceEntry(
            uri=uri,
            name=resource.get("name") or resource["uri"],
            fn=link.reader(),
            context_parameter=CTX,
            mime_type=resource.get("mimeType"),
            size=resource.get("size"),
            annotations=resource.get("annotations"),
            **_shared(link, resource),
        )
    return out


def templates(link: Link, listed: list[dict[str, Any]], completes: bool) -> dict[str, TemplateEntry]:
    out: dict[str, TemplateEntry] = {}
    for template in listed:
        if link.prefix and not has_scheme(template["uriTemplate"]):
            log.warning("upstream %s: template %r left out: a URI with no scheme", link.name, template["uriTemplate"])
            continue
        uri_template = prefixed_uri(link.prefix, template["uriTemplate"])
        try:
            pattern, variables = compile_template(uri_template)
        except (ValueError, TypeError) as exc:
            log.warning("upstream %s: template %r left out: %s", link.name, template["uriTemplate"], exc)
            continue
        ref = {"type": "ref/resource", "uri": template["uriTemplate"]}
        out[uri_template] = TemplateEntry(
            uri_template=uri_template,
            name=template.get("name") or template["uriTemplate"],
            fn=link.reader(),
            pattern=pattern,
            variables=variables,
            mime_type=template.get("mimeType"),
            annotations=template.get("annotations"),
            **_completable(link, template, ref, variables, completes),
        )
    return out


def prompts(link: Link, listed: list[dict[str, Any]], completes: bool) -> dict[str, PromptEntry]:
    out: dict[str, PromptEntry] = {}
    for prompt in listed:
        name = prefixed_name(link.prefix, prompt["name"])
        arguments = tuple(
            {
                **{key: value for key, value in argument.items() if key != "required"},
                "required": bool(argument.get("required")),
            }
            for argument in prompt.get("arguments") or ()
            if isinstance(argument, dict) and isinstance(argument.get("name"), str)
        )
        ref = {"type": "ref/prompt", "name": prompt["name"]}
        out[name] = PromptEntry(
            name=name,
            fn=link.prompter(prompt["name"]),
            arguments=arguments,
            **_completable(link, prompt, ref, [a["name"] for a in arguments], completes),
        )
    return out
