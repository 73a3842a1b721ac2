"""The MCP spec schemas for property tests: validators per definition, and Hypothesis strategies
that generate values valid against a definition.

Validation uses jsonschema's validator class for each file's own dialect (draft-07 up to
2025-06-18, 2020-12 after), with a ``referencing`` registry holding the whole schema document, so
``$ref: "#/$defs/..."`` (or ``"#/definitions/..."``) resolves inside it.

Generation is our own small JSON Schema → Hypothesis translator for the keywords the MCP request
schemas use (``type``, ``properties``, ``required``, ``additionalProperties``, ``items``,
``minItems``/``maxItems``, ``minimum``/``maximum``, ``enum``, ``const``, ``anyOf``/``oneOf``,
``$ref``, ``format``).  ``hypothesis-jsonschema`` (0.23.1, the newest) is not usable here: with
Hypothesis 6.170 every object schema fails inside it (``'many' object has no attribute 'more'``,
a private Hypothesis API it relies on changed), and it cannot resolve the recursive ``JSONValue``
definitions of 2026-07-28.  Recursion is bounded by depth instead: past ``max_depth`` an object
gets only its required properties and an array only its ``minItems``.  In strict mode an
unknown keyword is an error (so a new schema keyword cannot silently produce invalid values);
every value a strict strategy yields is also re-validated by the caller.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import referencing
from hypothesis import strategies as st

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "data" / "spec" / "schema"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

# JSON numbers every peer can carry exactly (I-JSON); orjson refuses integers past 64 bits anyway.
MAX_SAFE_INT = 2**53 - 1


class SchemaViolation(AssertionError):
    """A value is not valid against a spec definition."""


class Spec:
    """One revision's schema.json: its definitions, validators and strategies."""

    def __init__(self, revision: str) -> None:
        self.revision = revision
        document = json.loads((SCHEMA_DIR / revision / "schema.json").read_text())
        self.dialect: str = document["$schema"]
        self.defs_key = "$defs" if "$defs" in document else "definitions"
        self.defs: dict[str, Any] = document[self.defs_key]
        self.uri = f"urn:mcp-spec:{revision}"
        resource = referencing.Resource.from_contents(document)  # the dialect comes from "$schema"
        self.registry = referencing.Registry().with_resource(self.uri, resource)
        self.validator_class = jsonschema.validators.validator_for(document)
        self._validators: dict[str, Any] = {}
        self.requests = self._union("ClientRequest")  # method -> request definition name
        self.server_notifications = self._union("ServerNotification")
        self.server_requests = self._union("ServerRequest")
        self.error_shapes = self._error_definitions()
        # The envelope names changed in 2025-11-25 (JSONRPCResponse/JSONRPCError before).
        self.result_response = "JSONRPCResultResponse" if "JSONRPCResultResponse" in self.defs else "JSONRPCResponse"
        self.error_response = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in self.defs else "JSONRPCError"

    # -- lookups --------------------------------------------------------------------------

    def _union(self, name: str) -> dict[str, str]:
        out = {}
        for branch in (self.defs.get(name) or {}).get("anyOf", []):
            member = branch["$ref"].rsplit("/", 1)[-1]
            method = self.defs[member]["properties"]["method"]["const"]
            out[method] = member
        return out

    def _error_definitions(self) -> dict[int, tuple[str, str]]:
        """code -> (definition, "error" when it describes the error object, "message" for the whole response)."""
        out: dict[int, tuple[str, str]] = {}
        for name, definition in self.defs.items():
            props = definition.get("properties") or {}
            code = (props.get("code") or {}).get("const")
            if isinstance(code, int):
                out[code] = (name, "error")
            for part in (props.get("error") or {}).get("allOf", []):
                code = ((part.get("properties") or {}).get("code") or {}).get("const")
                if isinstance(code, int):
                    out[code] = (name, "message")
        return out

    def result_definition(self, method: str) -> tuple[str, bool]:
        """The definition a successful answer to ``method`` is checked against, and whether it
        describes the whole response message (2026-07-28's ``*ResultResponse``) or only ``result``."""
        request = self.requests[method]
        stem = request[: -len("Request")]
        if f"{stem}ResultResponse" in self.defs:
            return f"{stem}ResultResponse", True
        if f"{stem}Result" in self.defs:
            return f"{stem}Result", False
        return "EmptyResult", False

    # -- validation -----------------------------------------------------------------------

    def validator(self, definition: str) -> Any:
        validator = self._validators.get(definition)
        if validator is None:
            if definition not in self.defs:
                raise KeyError(f"{self.revision} has no definition {definition}")
            root = {"$schema": self.dialect, "$ref": f"{self.uri}#/{self.defs_key}/{definition}"}
            validator = self.validator_class(root, registry=self.registry)
            self._validators[definition] = validator
        return validator

    def errors(self, definition: str, instance: Any) -> list[str]:
        found = list(self.validator(definition).iter_errors(instance))
        if not found:
            return []
        best = jsonschema.exceptions.best_match(found)
        lines = [f"{list(best.absolute_path)}: {best.message[:300]}"]
        for error in sorted(found, key=lambda e: list(map(str, e.absolute_path)))[:4]:
            context = sorted(error.context or [], key=lambda e: -len(e.absolute_path))[:3]
            lines.append(
                f"{list(error.absolute_path)}: {error.message[:200]}"
                + "".join(f"\n      · {list(c.absolute_path)}: {c.message[:160]}" for c in context)
            )
        return lines

    def check(self, definition: str, instance: Any, what: str) -> None:
        problems = self.errors(definition, instance)
        if problems:
            raise SchemaViolation(
                f"[{self.revision}] {what} is not a valid {definition}:\n  "
                + "\n  ".join(problems)
                + f"\n  instance: {json.dumps(instance, ensure_ascii=False)[:1500]}"
            )

    def is_valid(self, definition: str, instance: Any) -> bool:
        return self.validator(definition).is_valid(instance)

    # -- generation -----------------------------------------------------------------------

    def generator(
        self,
        hooks: dict[str, Callable[[st.SearchStrategy[Any]], st.SearchStrategy[Any]]] | None = None,
        max_depth: int = 3,
    ) -> Generator:
        return Generator(self.defs, self.defs_key, hooks=hooks, max_depth=max_depth)


@cache
def spec(revision: str) -> Spec:
    return Spec(revision)


# -- generation ---------------------------------------------------------------------------------

ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "$anchor",
        "$defs",
        "definitions",
    }
)
SUPPORTED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "$ref",
        "format",
        "minLength",
        "maxLength",
    }
)

keys = st.text(min_size=0, max_size=8)
texts = st.text(max_size=16)
safe_ints = st.integers(-MAX_SAFE_INT, MAX_SAFE_INT)
json_scalars = st.none() | st.booleans() | safe_ints | st.floats(allow_nan=False, allow_infinity=False) | texts
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=8,
)
uris = st.one_of(
    st.builds(
        "{}:{}".format,
        st.sampled_from(["test", "file", "https", "urn", "x-y.z+w"]),
        st.text(st.characters(codec="ascii", exclude_characters="\x00"), max_size=24),
    ),
    st.builds("test://{}".format, st.text(max_size=12)),
    texts,  # "format" is an annotation to the validators: any string is valid
)
uri_templates = st.sampled_from(["test://template/{id}/data", "file:///{path}", "x://{a}/{b*}"]) | texts
base64_strings = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))


class Generator:
    """Hypothesis strategies for values valid against a schema (see the module docstring).

    ``hooks`` maps a definition name to a function that receives the generic strategy for it and
    returns the one to use (to mix in the names and URIs a real server knows).
    """

    def __init__(
        self,
        defs: dict[str, Any],
        defs_key: str = "$defs",
        *,
        hooks: dict[str, Callable[[st.SearchStrategy[Any]], st.SearchStrategy[Any]]] | None = None,
        max_depth: int = 3,
        strict: bool = True,
    ) -> None:
        self.defs = defs
        self.defs_key = defs_key
        self.hooks = hooks or {}
        self.max_depth = max_depth
        self.strict = strict
        self._memo: dict[tuple[str, int], st.SearchStrategy[Any]] = {}

    def definition(self, name: str, depth: int = 0) -> st.SearchStrategy[Any]:
        key = (name, min(depth, self.max_depth))
        if key not in self._memo:
            self._memo[key] = st.nothing()  # placeholder against (impossible) unbounded recursion
            generic = self.schema(self.defs[name], key[1])
            hook = self.hooks.get(name)
            self._memo[key] = hook(generic) if hook is not None else generic
        return self._memo[key]

    def schema(self, schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
        if schema is True or schema == {}:
            return json_values
        if schema is False:
            return st.nothing()
        unknown = set(schema) - SUPPORTED - ANNOTATIONS
        if unknown and self.strict:
            raise NotImplementedError(f"keywords {sorted(unknown)} are not supported: {schema}")
        if "$ref" in schema:
            ref = schema["$ref"]
            for prefix in ("#/$defs/", "#/definitions/"):
                if ref.startswith(prefix):
                    return self.definition(ref[len(prefix) :], depth)
            raise NotImplementedError(f"$ref {ref}")
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        branches = schema.get("anyOf") or schema.get("oneOf")
        if branches:
            rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf") and k not in ANNOTATIONS}
            return st.one_of(
                [
                    self.schema({**rest, **branch} if rest and isinstance(branch, dict) else branch, depth)
                    for branch in branches
                ]
            )
        kinds = schema.get("type")
        if kinds is None:
            if "properties" in schema or "required" in schema:
                kinds = "object"
            else:
                return json_values
        if isinstance(kinds, list):
            return st.one_of([self._typed(kind, schema, depth) for kind in kinds])
        return self._typed(kinds, schema, depth)

    def _typed(self, kind: str, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            low = schema.get("minItems", 0)
            deep = depth >= self.max_depth
            high = low if deep else schema.get("maxItems", low + 3)
            return st.lists(self.schema(schema.get("items", {}), depth + 1), min_size=low, max_size=high)
        if kind == "string":
            fmt = schema.get("format")
            if fmt == "uri":
                base = uris
            elif fmt == "uri-template":
                base = uri_templates
            elif fmt == "byte":
                base = base64_strings
            else:
                base = texts
            low, high = schema.get("minLength"), schema.get("maxLength")
            if low is not None or high is not None:
                base = base.filter(lambda s: (low is None or len(s) >= low) and (high is None or len(s) <= high))
            return base
        if kind == "integer":
            low = max(schema.get("minimum", -MAX_SAFE_INT), -MAX_SAFE_INT)
            high = min(schema.get("maximum", MAX_SAFE_INT), MAX_SAFE_INT)
            return st.integers(int(low), int(high))
        if kind == "number":
            low, high = schema.get("minimum"), schema.get("maximum")
            ints = st.integers(
                int(low) if low is not None else -MAX_SAFE_INT, int(high) if high is not None else MAX_SAFE_INT
            )
            return st.floats(low, high, allow_nan=False, allow_infinity=False) | ints
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        raise NotImplementedError(f"type {kind}")

    def _object(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        props: dict[str, Any] = schema.get("properties") or {}
        required = list(schema.get("required") or [])
        deep = depth >= self.max_depth
        mandatory = {name: self.schema(props.get(name, {}), depth + 1) for name in required}
        optional = (
            {} if deep else {name: self.schema(sub, depth + 1) for name, sub in props.items() if name not in required}
        )
        base = st.fixed_dictionaries(mandatory, optional=optional)
        extra = schema.get("additionalProperties", True)
        if extra is False or deep:
            return base
        values = self.schema(extra, depth + 1) if isinstance(extra, dict) else json_values
        extras = st.dictionaries(keys.filter(lambda k: k not in props), values, max_size=2)
        return st.builds(lambda fixed, more: {**more, **fixed}, base, extras)
