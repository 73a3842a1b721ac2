"""The operations of an OpenAPI document, each as what one MCP tool needs: a name, a description, one
input schema for its parameters and JSON body, the output schema of its 2xx JSON answer, and where
each argument goes in the HTTP request.

A problem with one operation is a ``DocumentError`` naming it and its JSON pointer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from .document import DocumentError, Refs, pointer
from .schemas import Inliner, Walk, object_schema

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
STYLES = {"path": ("simple",), "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
          "header": ("simple",), "cookie": ("form",)}  # fmt: skip
DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})  # (OpenAPI: ignored as parameters)
JSON_MEDIA = re.compile(r"^application/(?:[\w.-]+\+)?json$|^\*/\*$")
FORM_MEDIA = "application/x-www-form-urlencoded"
OCTETS = "application/octet-stream"
NAME_RULE = re.compile(r"[^A-Za-z0-9_.-]+")


@attrs.frozen
class Argument:
    """Where one input property goes: ``location`` is path, query, header, cookie, body (the whole
    body) or field (a property of an object body given at the top level)."""

    name: str  # the tool's property
    location: str
    wire_name: str  # the API's name for it
    style: str = "form"
    explode: bool = True
    as_json: bool = False  # a parameter whose ``content`` is JSON: sent serialized


@attrs.frozen
class Operation:
    name: str
    method: str  # upper case
    path: str
    where: str  # its JSON pointer
    summary: str | None
    description: str | None
    tags: frozenset[str]
    arguments: tuple[Argument, ...]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_output: bool  # the answer is not an object: structuredContent is {"result": answer}
    body_media: str | None  # how the body is sent: JSON or a form
    answer_media: str | None  # the media type of its documented 2xx answer
    server: str | None = None  # its own server (the operation's or its path's), when it names one

    @property
    def path_variables(self) -> tuple[str, ...]:
        return tuple(arg.name for arg in self.arguments if arg.location == "path")


def first_server(node: dict[str, Any]) -> str | None:
    """The URL of the first of ``node``'s ``servers``, its variables at their defaults."""
    servers = node.get("servers")
    if not (isinstance(servers, list) and servers and isinstance(servers[0], dict)):
        return None
    url = servers[0].get("url")
    if not isinstance(url, str):
        return None
    for name, variable in (servers[0].get("variables") or {}).items():
        if isinstance(variable, dict) and "default" in variable:
            url = url.replace("{" + name + "}", str(variable["default"]))
    return url


def tool_name(text: str) -> str:
    """``text`` as a tool name MCP allows (letters, digits, ``_ - .``, at most 128)."""
    return NAME_RULE.sub("_", text).strip("_")[:128]


def read_operations(
    document: dict[str, Any],
    at: Refs,
    *,
    hidden_parameters: Iterable[tuple[str, str]] = (),
    skip_invalid: bool = False,
) -> tuple[list[Operation], list[str]]:
    """Every operation of the document, and the one-line problems of those skipped (``skip_invalid``;
    else the first problem is raised).  ``hidden_parameters``: (location, name) of the parameters the
    credentials fill in, which no tool asks for."""
    hidden = {(location, name.lower()) for location, name in hidden_parameters}
    inliner = Inliner()
    found: list[Operation] = []
    skipped: list[str] = []
    names: dict[str, str] = {}
    for path, item in document.get("paths", {}).items():
        item_where = pointer("paths", path)
        try:
            if isinstance(item, dict) and "$ref" in item:
                item, _ = at.lookup(item["$ref"], item_where)
            if not isinstance(item, dict):
                raise DocumentError(f"{item_where}: a path item must be an object")
        except DocumentError as exc:
            if not skip_invalid:
                raise
            skipped.append(str(exc))
            continue
        for method in METHODS:
            if method not in item:
                continue
            where = pointer("paths", path, method)
            try:
                operation = _operation(item, method, path, where, at, inliner, hidden)
                if operation.name in names:
                    raise DocumentError(
                        f"{where}: two operations are named {operation.name!r} (the other: {names[operation.name]}); "
                        "give one another operationId"
                    )
            except DocumentError as exc:
                if not skip_invalid:
                    raise
                skipped.append(str(exc))
                continue
            names[operation.name] = where
            found.append(operation)
    return found, skipped


def _operation(
    item: dict[str, Any],
    method: str,
    path: str,
    where: str,
    at: Refs,
    inliner: Inliner,
    hidden: set[tuple[str, str]],
) -> Operation:
    node = item[method]
    if not isinstance(node, dict):
        raise DocumentError(f"{where}: an operation must be an object")
    name = tool_name(node["operationId"]) if isinstance(node.get("operationId"), str) else ""
    name = name or tool_name(re.sub(r"[^A-Za-z0-9]+", "_", f"{method}_{path}")) or method
    walk = inliner.walk("input")
    properties: dict[str, Any] = {}
    required: list[str] = []
    arguments: list[Argument] = []
    for parameter, at_where in _parameters(item, node, where, at):
        argument, schema = _parameter(parameter, at_where, at, walk, properties)
        if (argument.location, argument.wire_name.lower()) in hidden or (
            argument.location == "header" and argument.wire_name.lower() in IGNORED_HEADERS
        ):
            continue
        properties[argument.name] = schema
        arguments.append(argument)
        if parameter.get("required") or argument.location == "path":
            required.append(argument.name)
    missing = [name for name in re.findall(r"\{([^}]+)\}", path) if name not in {a.wire_name for a in arguments}]
    if missing:
        raise DocumentError(f"{where}: the path parameter {missing[0]!r} is not declared")
    body_media = _body(node, where, at, walk, properties, required, arguments)
    output_schema, wraps, answer_media = _answer(node, where, at, inliner)
    summary = node.get("summary") if isinstance(node.get("summary"), str) else None
    description = node.get("description") if isinstance(node.get("description"), str) else None
    tags = node["tags"] if isinstance(node.get("tags"), list) else []
    return Operation(
        name=name,
        method=method.upper(),
        path=path,
        where=where,
        summary=summary,
        description=description,
        tags=frozenset(str(tag) for tag in tags),
        arguments=tuple(arguments),
        input_schema=object_schema(properties, required, walk.defs),
        output_schema=output_schema,
        wraps_output=wraps,
        body_media=body_media,
        answer_media=answer_media,
        server=first_server(node) or first_server(item),
    )


def _parameters(item: dict[str, Any], node: dict[str, Any], where: str, at: Refs) -> list[tuple[dict[str, Any], str]]:
    """The path item's parameters, overridden by the operation's of the same name and location."""
    chosen: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for owner, owner_where in ((item, where.rsplit("/", 1)[0]), (node, where)):
        listed = owner.get("parameters", [])
        if not isinstance(listed, list):
            raise DocumentError(f"{owner_where}/parameters must be an array")
        for index, parameter in enumerate(listed):
            at_where = f"{owner_where}/parameters/{index}"
            if isinstance(parameter, dict) and "$ref" in parameter:
                parameter, _ = at.lookup(parameter["$ref"], at_where)
            if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
                raise DocumentError(f"{at_where}: a parameter needs a name")
            chosen[(parameter["name"], str(parameter.get("in")))] = (parameter, at_where)
    return list(chosen.values())


def _parameter(
    parameter: dict[str, Any], where: str, at: Refs, walk: Walk, taken: dict[str, Any]
) -> tuple[Argument, dict[str, Any]]:
    wire_name, location = parameter["name"], parameter.get("in")
    if location not in STYLES:
        raise DocumentError(f"{where}: parameter {wire_name!r}: 'in' must be path, query, header or cookie")
    style = parameter.get("style", DEFAULT_STYLE[location])
    if style not in STYLES[location]:
        raise DocumentError(f"{where}: parameter {wire_name!r} in {location}: style {style!r} cannot be mapped")
    as_json = False
    if "schema" in parameter:
        schema = walk.schema(parameter["schema"], at, f"{where}/schema")
    elif isinstance(parameter.get("content"), dict) and parameter["content"]:
        media, content = next(iter(parameter["content"].items()))
        if not JSON_MEDIA.match(media):
            raise DocumentError(f"{where}: parameter {wire_name!r}: content {media!r} cannot be mapped")
        as_json = True
        schema = walk.schema(content.get("schema", {}), at, f"{where}/content")
    else:
        schema = {"type": "string"}
    if isinstance(parameter.get("description"), str) and "description" not in schema:
        schema = {**schema, "description": parameter["description"]}
    name = wire_name if wire_name not in taken else f"{wire_name}__{location}"
    explode = parameter.get("explode", style == "form")
    return Argument(name, location, wire_name, style, bool(explode), as_json), schema


def _body(
    node: dict[str, Any],
    where: str,
    at: Refs,
    walk: Walk,
    properties: dict[str, Any],
    required: list[str],
    arguments: list[Argument],
) -> str | None:
    """The JSON (or form) request body's place in the input schema: its properties at the top level
    when it is an object none of whose names a parameter has, else one ``body`` property."""
    body = node.get("requestBody")
    if body is None:
        return None
    body_where = f"{where}/requestBody"
    if isinstance(body, dict) and "$ref" in body:
        body, _ = at.lookup(body["$ref"], body_where)
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        raise DocumentError(f"{body_where}: a request body needs content")
    media = next((m for m in content if JSON_MEDIA.match(m)), FORM_MEDIA if FORM_MEDIA in content else None)
    is_required = bool(body.get("required"))
    if media is None:
        media = next((m for m in content if m.startswith("text/") or m == OCTETS), None)
        if media is None:
            raise DocumentError(
                f"{body_where}: request body {', '.join(content)} cannot be mapped (JSON, a form, text or bytes can)"
            )
        raw = {"type": "string", "description": f"the request body ({media})"}
        if media == OCTETS:
            raw = {**raw, "contentEncoding": "base64", "description": "the request body, base64-encoded"}
        return _whole_body(raw, media, properties, required, arguments, is_required)
    schema = walk.schema((content[media] or {}).get("schema", {}), at, f"{body_where}/content/{media}")
    fields = schema.get("properties")
    if isinstance(fields, dict) and schema.get("type", "object") == "object" and not set(fields) & set(properties):
        for field, sub in fields.items():
            properties[field] = sub
            arguments.append(Argument(field, "field", field))
        if is_required:
            required.extend(name for name in schema.get("required", []) if name in fields)
        return media
    return _whole_body(schema, media, properties, required, arguments, is_required)


def _whole_body(
    schema: dict[str, Any],
    media: str,
    properties: dict[str, Any],
    required: list[str],
    arguments: list[Argument],
    is_required: bool,
) -> str:
    name = "body" if "body" not in properties else "request_body"
    properties[name] = schema
    arguments.append(Argument(name, "body", name))
    if is_required:
        required.append(name)
    return media


def _answer(
    node: dict[str, Any], where: str, at: Refs, inliner: Inliner
) -> tuple[dict[str, Any] | None, bool, str | None]:
    """The output schema of the first documented 2xx JSON answer (wrapped as ``{"result": ...}``
    when it is not an object), whether it is wrapped, and the 2xx answer's media type."""
    responses = node.get("responses", {})
    if not isinstance(responses, dict):
        raise DocumentError(f"{where}/responses must be an object")
    for status in sorted(str(code) for code in responses):
        if not (status.startswith("2") and (status.isdigit() or status.upper() == "2XX")):
            continue
        answer_where = f"{where}/responses/{status}"
        answer = responses.get(status) if status in responses else responses.get(int(status))
        if isinstance(answer, dict) and "$ref" in answer:
            answer, _ = at.lookup(answer["$ref"], answer_where)
        content = answer.get("content") if isinstance(answer, dict) else None
        if not isinstance(content, dict) or not content:
            continue
        media = next((m for m in content if JSON_MEDIA.match(m) and m != "*/*"), None)
        if media is None:
            return None, False, next(iter(content))
        walk = inliner.walk("output")
        schema = walk.schema((content[media] or {}).get("schema", {}), at, f"{answer_where}/content/{media}")
        if not schema:
            return None, False, media
        defs = schema.pop("$defs", None) if schema.get("type") == "object" else None
        if schema.get("type") == "object":
            return object_schema_of(schema, {**(defs or {}), **walk.defs}), False, media
        return object_schema({"result": schema}, ["result"], walk.defs), True, media
    return None, False, None


def object_schema_of(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "$defs": defs} if defs else schema
