"""An App composed of plugins: a plugin's components as the App will serve them (owned, and renamed
into its namespace when it has one), and the clashes that refuse a plugin before anything of it is added."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from .namespaces import TOOL_NAME_RULE, check_namespace, is_tool_name, prefixed_name, prefixed_uri
from .registry import compile_template, template_shape

if TYPE_CHECKING:
    from .registry import Registry

# The registry's four tables, each with what an error calls one of its components.
TABLES = (("tools", "tool"), ("prompts", "prompt"), ("resources", "resource"), ("templates", "resource template"))


def claimed(plugin: Registry, namespace: str | None, owner: str) -> dict[str, dict[str, Any]]:
    """The plugin's tables as served: every entry owned by ``owner`` and, with a ``namespace``, renamed
    into it.  A ValueError naming the component and the rule when the namespace cannot serve it."""
    if not namespace:
        return {
            table: {key: attrs.evolve(entry, owner=owner) for key, entry in getattr(plugin, table).items()}
            for table, _ in TABLES
        }
    check_namespace(namespace)
    tools = {}
    for key, entry in plugin.tools.items():
        name = prefixed_name(namespace, key)
        if not is_tool_name(name) and is_tool_name(key):
            raise ValueError(
                f"tool {key!r} of plugin {owner!r} with the prefix {namespace!r} would be served as {name!r} "
                f"({len(name)} characters), which breaks the spec's rule for tool names: {TOOL_NAME_RULE}"
            )
        tools[name] = attrs.evolve(entry, name=name, owner=owner, namespace=namespace)
    prompts = {}
    for key, prompt in plugin.prompts.items():
        name = prefixed_name(namespace, key)
        prompts[name] = attrs.evolve(prompt, name=name, owner=owner, namespace=namespace)
    resources = {}
    for key, resource in plugin.resources.items():
        uri = _uri(namespace, key, "resource", owner)
        resources[uri] = attrs.evolve(resource, uri=uri, owner=owner, namespace=namespace)
    templates = {}
    for key, template in plugin.templates.items():
        uri = _uri(namespace, key, "resource template", owner)
        pattern, _ = compile_template(uri)
        templates[uri] = attrs.evolve(template, uri_template=uri, pattern=pattern, owner=owner, namespace=namespace)
    return {"tools": tools, "prompts": prompts, "resources": resources, "templates": templates}


def _uri(namespace: str, uri: str, kind: str, owner: str) -> str:
    try:
        return prefixed_uri(namespace, uri)
    except ValueError as exc:
        raise ValueError(f"{kind} {uri!r} of plugin {owner!r}: {exc}") from None


def check_clashes(served: Registry, staged: dict[str, dict[str, Any]], owner: str, namespace: str | None) -> None:
    """A ValueError naming both owners when a staged component has the name or URI of one ``served``
    has already (two templates clash when they match the same URIs, whatever their variables' names)."""
    advice = "include it with another prefix" if namespace else "include one of them with a prefix"
    for table, kind in TABLES:
        present: dict[str, Any] = getattr(served, table)
        if table == "templates":
            shapes = {template_shape(key): key for key in present}
            same = {key: shapes.get(template_shape(key)) for key in staged[table]}
        else:
            same = {key: key if key in present else None for key in staged[table]}
        for key, other in same.items():
            if other is None:
                continue
            theirs = present[other].owner or served.name
            which = "the one" if other == key else f"{other!r} (it matches the same URIs)"
            raise ValueError(f"{kind} {key!r} of plugin {owner!r} clashes with {which} of {theirs!r}; {advice}")
