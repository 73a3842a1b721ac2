"""Namespaces: how a plugin's (or an upstream server's) components are renamed when served under a prefix.

Tools and prompts become ``PREFIX_name``; resource URIs and URI templates get the prefix before their
scheme with a ``+`` (``file:///a.txt`` → ``fs+file:///a.txt``, ``weather://{city}`` →
``fs+weather://{city}``), which RFC 3986 allows in a scheme and which reverses exactly.  One
namespace works for all four kinds, so it must be valid in a tool name and in a URI scheme.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

# A namespace: a URI scheme's characters that a tool name may hold too (no "+", no "_").
NAMESPACE_RULE = "a letter, then letters, digits, '-' or '.'"
_NAMESPACE = re.compile(r"[A-Za-z][A-Za-z0-9.-]*")
# What the spec says a tool name SHOULD be (server/tools, "Tool Names", 2025-11-25 and 2026-07-28).
TOOL_NAME_RULE = "1 to 128 characters, each a letter, a digit, '_', '-' or '.'"
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
# RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def check_namespace(namespace: str) -> str:
    """``namespace`` itself, or a ValueError saying the rule it breaks."""
    if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
        raise ValueError(f"namespace {namespace!r} is not valid: it must be {NAMESPACE_RULE}")
    return namespace


def is_tool_name(name: str) -> bool:
    """Does ``name`` follow the spec's rule for tool names (``TOOL_NAME_RULE``)?"""
    return _TOOL_NAME.fullmatch(name) is not None


def prefixed_name(namespace: str, name: str) -> str:
    """The name a tool or prompt ``name`` is served as under ``namespace``: ``NAMESPACE_name``
    (``name`` itself in the namespace ``""``, which is none)."""
    return f"{namespace}_{name}" if namespace else name


def own_name(namespace: str, name: str) -> str | None:
    """The tool or prompt name ``name`` stands for under ``namespace``; None if it is not one of its names."""
    if not namespace:
        return name
    head = f"{namespace}_"
    return name[len(head) :] if name.startswith(head) and len(name) > len(head) else None


def has_scheme(uri: str) -> bool:
    """Does the URI (or URI template) begin with a literal scheme, such as ``file:``?"""
    return _SCHEME.match(uri) is not None


def prefixed_uri(namespace: str, uri: str) -> str:
    """The URI (or URI template) ``uri`` is served as under ``namespace``: ``NAMESPACE+scheme:...``
    (``uri`` itself in the namespace ``""``).  A ValueError if it has no scheme to put the namespace before."""
    if not namespace:
        return uri
    if not has_scheme(uri):
        raise ValueError(f"URI {uri!r} has no scheme (such as 'file:'), so the namespace {namespace!r} cannot mark it")
    return f"{namespace}+{uri}"


def own_uri(namespace: str, uri: str) -> str | None:
    """The URI ``uri`` stands for under ``namespace`` (``prefixed_uri`` undone); None if it is not one
    of that namespace's URIs."""
    if not namespace:
        return uri
    head = f"{namespace}+"
    if not uri.startswith(head):
        return None
    rest = uri[len(head) :]
    return rest if has_scheme(rest) else None


class ServedResource(Protocol):
    """A resource as ``served_uri`` needs it (a ``ResourceEntry``)."""

    @property
    def namespace(self) -> str: ...


class ServedTemplate(Protocol):
    """A resource template as ``served_uri`` needs it (a ``TemplateEntry``)."""

    @property
    def namespace(self) -> str: ...

    def match(self, uri: str) -> dict[str, str] | None: ...


class Served(Protocol):
    """The tables a server serves resources from (a Registry's), by served URI and URI template."""

    @property
    def resources(self) -> Mapping[str, ServedResource]: ...

    @property
    def templates(self) -> Mapping[str, ServedTemplate]: ...


def served_uri(served: Served, namespace: str, uri: str) -> str | None:
    """``uri`` as served in ``namespace`` when that namespace serves it (a resource of that URI, or a
    template that matches it), else None: what a plugin's own URI stands for to its clients."""
    if not has_scheme(uri):
        return None
    candidate = prefixed_uri(namespace, uri)
    resource = served.resources.get(candidate)
    if resource is not None and resource.namespace == namespace:
        return candidate
    for template in served.templates.values():
        if template.namespace == namespace and template.match(candidate) is not None:
            return candidate
    return None


def served_content(served: Served, namespace: str, blocks: list[Any]) -> list[Any]:
    """Content blocks (a tool's result, a prompt's message, a read's contents) with the URIs of the
    namespace's own resources they name (``resource_link``, embedded ``resource``, contents items) as
    served; other URIs are left as they are."""
    return [_served_block(served, namespace, block) for block in blocks]


def _served_block(served: Served, namespace: str, block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    uri = block.get("uri")
    if isinstance(uri, str) and (mine := served_uri(served, namespace, uri)) is not None:
        return {**block, "uri": mine}
    embedded = block.get("resource")
    if block.get("type") == "resource" and isinstance(embedded, dict):
        inner = _served_block(served, namespace, embedded)
        return block if inner is embedded else {**block, "resource": inner}
    return block
