"""OpenAPI schemas as the self-contained JSON Schemas MCP tools publish.

Every ``$ref`` is looked up through ``referencing`` and inlined; a recursive one is kept once under
``$defs`` and referred to as ``#/$defs/Name``.  OpenAPI 3.0's dialect becomes JSON Schema
(``nullable``, boolean ``exclusiveMinimum``), keywords only documentation uses are left out, and a
property ``readOnly`` leaves an input schema (the client does not send it) and one ``writeOnly``
leaves an output schema (the API does not answer it).
"""

from __future__ import annotations

from typing import Any, Literal

from .document import Refs

Direction = Literal["input", "output"]
DROPPED = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example", "$schema", "$id"})
HIDDEN = {"input": "readOnly", "output": "writeOnly"}


class Inliner:
    """Turns a document's schemas into self-contained ones; what it inlined without meeting a
    recursion is remembered, so a schema used by many operations is worked out once."""

    def __init__(self) -> None:
        self.done: dict[tuple[int, str], Any] = {}

    def walk(self, direction: Direction) -> Walk:
        """A walk through the schemas of one tool's input (or output), sharing one ``$defs``."""
        return Walk(self, direction)


class Walk:
    """One schema's inlining: the refs being inlined (to see a recursion) and the ``$defs`` it needs."""

    def __init__(self, inliner: Inliner, direction: Direction) -> None:
        self.inliner, self.direction = inliner, direction
        self.stack: list[int] = []
        self.names: dict[int, str] = {}  # a recursive target's name in $defs
        self.defs: dict[str, Any] = {}
        self.recursions = 0

    def schema(self, node: Any, at: Refs, where: str) -> dict[str, Any]:
        """``node`` (a schema at ``where``) inlined, as an object (``true``: ``{}``)."""
        out = self.node(node, at, where)
        return out if isinstance(out, dict) else {} if out is not False else {"not": {}}

    def node(self, node: Any, at: Refs, where: str) -> Any:
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            return self.ref(node, at, where)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in DROPPED or key.startswith("x-"):
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
                if isinstance(value, dict):
                    value = {name: self.node(sub, at, where) for name, sub in value.items()}
                if key == "properties" and isinstance(value, dict):
                    hidden = [
                        name for name, sub in value.items() if isinstance(sub, dict) and sub.get(HIDDEN[self.direction])
                    ]
                    value = {name: sub for name, sub in value.items() if name not in hidden}
                    if hidden and isinstance(node.get("required"), list):
                        out["required"] = [name for name in node["required"] if name not in hidden]
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems") and isinstance(value, list):
                value = [self.node(sub, at, where) for sub in value]
            elif key in ("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames"):
                value = self.node(value, at, where)
            elif key == "required" and "required" in out:
                continue
            out[key] = value
        return _json_schema(out, node)

    def ref(self, node: dict[str, Any], at: Refs, where: str) -> Any:
        ref = node["$ref"]
        target, inner = at.lookup(ref, where)
        key = (id(target), self.direction)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if id(target) in self.stack:  # a recursion: kept under $defs
            self.recursions += 1
            name = self.names.setdefault(id(target), self._def_name(ref))
            return self._with({"$ref": f"#/$defs/{name}"}, siblings, at, where)
        if key in self.inliner.done:
            return self._with(self.inliner.done[key], siblings, at, where)
        self.stack.append(id(target))
        before = self.recursions
        body = self.node(target, inner, f"{where} ({ref})")
        self.stack.pop()
        if id(target) in self.names:  # it refers to itself, somewhere inside
            self.defs[self.names[id(target)]] = body
            body = {"$ref": f"#/$defs/{self.names[id(target)]}"}
        elif self.recursions == before:  # (closed: the same wherever it is used)
            self.inliner.done[key] = body
        return self._with(body, siblings, at, where)

    def _with(self, body: Any, siblings: dict[str, Any], at: Refs, where: str) -> Any:
        """A ref's target with the keywords beside the ref (3.1: ``description``, ``nullable`` ...)."""
        if not siblings or not isinstance(body, dict):
            return body
        extra = self.node(siblings, at, where)
        if "$ref" in body:
            return {"allOf": [body], **extra}
        return {**body, **extra}

    def _def_name(self, ref: str) -> str:
        name = ref.rsplit("/", 1)[-1] or "schema"
        taken = set(self.names.values())
        candidate, n = name, 1
        while candidate in taken:
            n += 1
            candidate = f"{name}{n}"
        return candidate


def _json_schema(out: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0's keywords as JSON Schema's."""
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif kind is None and "enum" not in out:
            out = {"anyOf": [out, {"type": "null"}]}
    for bound in ("Minimum", "Maximum"):
        flag = out.get(f"exclusive{bound}")
        if isinstance(flag, bool):
            del out[f"exclusive{bound}"]
            limit = bound.lower()
            if flag and limit in out:
                out[f"exclusive{bound}"] = out.pop(limit)
    return out


def object_schema(
    properties: dict[str, Any], required: list[str], defs: dict[str, Any] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    if defs:
        out["$defs"] = defs
    return out
