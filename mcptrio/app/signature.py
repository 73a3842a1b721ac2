"""A tool function's input/output JSON Schemas, argument binding and structured results.

``ToolSignature.from_function`` inspects an async tool function once, at registration: it builds
(or takes verbatim) the schemas, compiles their validators and fails with ``TypeError`` on anything
it cannot express.  Per call, ``bind`` validates the client's arguments and converts them to the
declared Python types, and ``structured`` / ``validate_output`` produce ``structuredContent``.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import re
import reprlib
import types
import typing
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Union

import jsonschema_rs

from .context import Context
from .pydantic_types import ValueRefused, is_model
from .schema_from_hints import (
    DATA_KEYWORDS,
    NO_DEFAULT,
    SCHEMA_MAPS,
    NoneType,
    Param,
    SchemaBuilder,
    UnsupportedType,
    annotate,
    converter,
    is_mapping,
    is_object_class,
    json_default,
    strip_annotated,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["ArgumentError", "OutputError", "Param", "ToolSignature"]


class ArgumentError(ValueError):
    """The client's arguments do not fit the tool's input schema; the message is one readable line."""


class OutputError(ValueError):
    """A tool's structured result does not fit its output schema."""


_NO_HINT: Any = inspect.Parameter.empty


def _anything(arguments: Any) -> bool:
    return True


class ToolSignature:
    """What a tool function accepts and returns, as JSON Schema; build it with ``from_function``."""

    def __init__(
        self,
        *,
        input_schema: dict[str, Any],
        output_schema: dict[str, Any] | None,
        context_parameter: str | None,
        wraps_output: bool,
        parameters: dict[str, Any] | None,
        extra_hint: Any,
        return_type: Any,
        input_check: Callable[[Any], bool],
        output_check: Callable[[Any], bool] | None,
    ) -> None:
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.context_parameter = context_parameter
        self.wraps_output = wraps_output
        self._parameters = parameters  # name → hint; None for a verbatim input schema
        self._extra_hint = extra_hint  # hint of **kwargs values
        self._return_type = return_type
        self._verbatim_names: frozenset[str] | None = None
        # Every argument is passed as the client sent it (str, bool, or no hint): bind copies them.
        self._as_sent = parameters is not None and all(
            hint is _NO_HINT or hint is str or hint is bool for hint in (*parameters.values(), extra_hint)
        )
        # The Rust validator answers "valid?" in well under a microsecond; the Python one, only
        # asked when the answer is no, explains which field is wrong (made then: jsonschema is a
        # tenth of a server's start-up).
        self._input_check = input_check
        self._output_check = output_check

    @functools.cached_property
    def _input_validator(self) -> Any:
        return _python_validator(self.input_schema)

    @functools.cached_property
    def _output_validator(self) -> Any:
        return _python_validator(self.output_schema) if self.output_schema is not None else None

    @functools.cached_property
    def header_params(self) -> list[tuple[str, tuple[str, ...]]]:
        """(header name, argument path) of every ``x-mcp-header`` in the input schema: the
        arguments a 2026-07-28 HTTP request mirrors in ``Mcp-Param-*`` headers."""
        return _header_params(self.input_schema)

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        content_types: tuple[type, ...] = (),
        inline: bool = True,
    ) -> ToolSignature:
        """Inspect ``fn``; ``content_types`` are return types that are MCP content (no output schema);
        ``inline=False`` keeps object types under ``$defs`` (recursive ones always are)."""
        name = getattr(fn, "__qualname__", None) or repr(fn)
        try:
            target = fn.func if isinstance(fn, functools.partial) else fn
            if not inspect.isroutine(target):  # a callable object
                target = type(target).__call__
            hints = typing.get_type_hints(target, include_extras=True)
        except Exception as exc:
            raise TypeError(f"{name}: cannot resolve type hints: {exc}") from None
        context_type = _context_type()
        context: str | None = None
        parameters: dict[str, Any] = {}
        properties: dict[str, Any] = {}
        required: list[str] = []
        extra: tuple[Any, dict[str, Any]] | None = None
        builder = SchemaBuilder(inline=inline)
        accepted: set[str] = set()  # a verbatim schema: the names the function can take
        takes_any = False
        for p in inspect.signature(fn).parameters.values():
            hint = hints.get(p.name, _NO_HINT)
            base = strip_annotated(hint)
            if isinstance(base, type) and issubclass(base, context_type):
                if context is not None:
                    raise TypeError(f"{name}: more than one Context parameter ({context!r}, {p.name!r})")
                context = p.name
                continue
            if input_schema is not None:
                if p.kind is p.VAR_KEYWORD:
                    takes_any = True
                else:
                    accepted.add(p.name)
                continue
            if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
                raise TypeError(
                    f"{name}: parameter {p.name!r}: tool arguments are passed by keyword, "
                    "so positional-only and *args parameters are not supported"
                )
            try:
                schema = {} if hint is _NO_HINT else builder.schema(hint)
            except UnsupportedType as exc:
                raise TypeError(f"{name}: parameter {p.name!r}: {exc}") from None
            if p.kind is p.VAR_KEYWORD:
                extra = (hint, schema)
                continue
            if p.default is p.empty:
                required.append(p.name)
            elif (data := json_default(p.default)) is not NO_DEFAULT:
                schema["default"] = data
            properties[p.name] = schema
            parameters[p.name] = hint
        if input_schema is None:
            input_schema = {"type": "object", "properties": properties, "required": required}
            if extra is None:
                input_schema["additionalProperties"] = False
            elif extra[1]:
                input_schema["additionalProperties"] = extra[1]
            input_schema = builder.finish(input_schema)
            params: dict[str, Any] | None = parameters
        else:
            params = None
        return_type = None
        wraps = False
        if output_schema is None:
            return_type = hints.get("return", _NO_HINT)
            try:
                output_schema, wraps = _output_schema(return_type, content_types, inline)
            except UnsupportedType as exc:
                raise TypeError(f"{name}: return type: {exc}") from None
        signature = cls(
            input_schema=input_schema,
            output_schema=output_schema,
            context_parameter=context,
            wraps_output=wraps,
            parameters=params,
            return_type=return_type,
            extra_hint=extra[0] if extra else _NO_HINT,
            input_check=_checked(name, "input schema", input_schema),
            output_check=None if output_schema is None else _checked(name, "output schema", output_schema),
        )
        signature._verbatim_names = None if params is not None or takes_any else frozenset(accepted)
        return signature

    @classmethod
    def for_schema(
        cls,
        input_schema: dict[str, Any],
        name: str,
        *,
        output_schema: dict[str, Any] | None = None,
        context_parameter: str | None = None,
        check: bool = True,
    ) -> ToolSignature:
        """A signature that only checks arguments against ``input_schema`` (a reshaped tool's): its
        ``bind`` returns them as sent.  ``output_schema`` is only shown: the function returns a
        whole result.  ``TypeError`` naming ``name`` unless the input schema is valid.
        ``check=False``: the schema is only shown, and the arguments passed on unchecked (a proxied
        tool's, which the server it is passed to checks itself)."""
        return cls(
            input_schema=input_schema,
            output_schema=output_schema,
            context_parameter=context_parameter,
            wraps_output=False,
            parameters=None,
            extra_hint=_NO_HINT,
            return_type=None,
            input_check=_checked(name, "input schema", input_schema) if check else _anything,
            output_check=None,
        )

    def bind(self, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Validate the client's ``arguments`` and return the function's keyword arguments."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ArgumentError(f"invalid arguments: expected an object, got {_short(arguments)}")
        if not self._input_check(arguments):
            if (message := _describe(self._input_validator, arguments, "argument")) is not None:
                raise ArgumentError(f"invalid arguments: {message}")
        if self.context_parameter in arguments:
            raise ArgumentError(f"invalid arguments: unexpected argument {self.context_parameter!r}")
        if self._as_sent:
            return dict(arguments)
        if self._parameters is None:
            if self._verbatim_names is not None:
                # A verbatim schema may allow more than the function takes: pass only what it takes.
                return {k: v for k, v in arguments.items() if k in self._verbatim_names}
            return dict(arguments)
        return {
            key: self._structure(key, value, self._parameters.get(key, self._extra_hint))
            for key, value in arguments.items()
        }

    def structured(self, value: Any) -> Any | None:
        """The function's return value as JSON for ``structuredContent``; None without an output schema."""
        if self.output_schema is None:
            return None
        try:
            data = converter().unstructure(value, unstructure_as=self._return_type)
        except Exception:  # not what the annotation promised: let validate_output say so
            data = converter().unstructure(value)
        return {"result": data} if self.wraps_output else data

    def validate_output(self, structured: Any) -> None:
        """Raise ``OutputError`` when ``structured`` does not fit the output schema."""
        if self._output_check is None or self._output_check(structured):
            return
        if (message := _describe(self._output_validator, structured, "property")) is not None:
            raise OutputError(f"invalid structured output: {message}")

    @staticmethod
    def _structure(key: str, value: Any, hint: Any) -> Any:
        if hint is _NO_HINT or hint is str or hint is bool:
            return value  # the input schema already checked it is a JSON string or boolean
        if hint is int and type(value) is int:
            return value  # (what cattrs would return, without importing it)
        if hint is float and (type(value) is float or type(value) is int):
            return float(value)
        import cattrs  # (imported by converter() already: a lookup)

        try:
            return converter().structure(value, hint)
        except cattrs.BaseValidationError as exc:  # e.g. an attrs validator said no
            inner: list[tuple[str, ...]] = []  # per error: where Pydantic says it is inside the field

            def explain(error: BaseException, _: Any) -> str:
                inner.append(error.path if isinstance(error, ValueRefused) else ())
                return error.reason if isinstance(error, ValueRefused) else str(error)

            text = cattrs.transform_error(exc, path=key, format_exception=explain)[0]
            message, found, path = text.rpartition(" @ ")
            if not found:
                message, path = text, key
            path = ".".join((path, *inner[0])) if inner else path
        except ValueRefused as exc:  # Pydantic's first error, at a path inside the value
            message, path = exc.reason, ".".join((key, *exc.path))
        except (ValueError, TypeError) as exc:
            message, path = str(exc), key
        raise ArgumentError(_one_line(f"invalid arguments: {path!r}: {message}"))


def _header_params(schema: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, tuple[str, ...]]]:
    found = []
    for key, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        if isinstance(prop.get("x-mcp-header"), str):
            found.append((prop["x-mcp-header"], path + (key,)))
        found.extend(_header_params(prop, path + (key,)))
    return found


def _context_type() -> type:
    return Context


def _output_schema(hint: Any, content_types: tuple[type, ...], inline: bool) -> tuple[dict[str, Any] | None, bool]:
    """The output schema for a return annotation, and whether results are wrapped as ``{"result": ...}``."""
    if hint in (_NO_HINT, None, NoneType, Any) or _is_content(hint, content_types):
        return None, False
    builder = SchemaBuilder(inline=inline, mode="serialization")
    base = strip_annotated(hint)
    if is_object_class(base) or is_model(base):
        schema = builder.root_object(base)
        if typing.get_origin(hint) is typing.Annotated:
            annotate(schema, hint.__metadata__)
        return builder.finish(schema), False
    if is_mapping(base):
        return builder.finish(builder.schema(hint)), False
    schema = {"type": "object", "properties": {"result": builder.schema(hint)}, "required": ["result"]}
    return builder.finish(schema), True


def _is_content(hint: Any, content_types: tuple[type, ...]) -> bool:
    """True for content classes, CallToolResult, and unions/lists made only of them."""
    hint = strip_annotated(hint)
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (Union, types.UnionType):
        others = [a for a in args if a is not NoneType]
        return bool(others) and all(_is_content(a, content_types) for a in others)
    if typing.get_origin(hint) in (list, tuple, collections.abc.Sequence):
        return bool(args) and all(a is Ellipsis or _is_content(a, content_types) for a in args)
    return isinstance(hint, type) and (issubclass(hint, content_types) or hint.__name__ == "CallToolResult")


def _checked(name: str, what: str, schema: Any) -> Callable[[Any], bool]:
    """Check ``schema`` once (``TypeError`` unless it is a schema of its dialect, default 2020-12,
    whose ``$ref``s resolve locally) and return jsonschema-rs's ``is_valid`` for it, or "not
    sure" (always False: the Python validator decides) when jsonschema-rs cannot compile it."""
    if not isinstance(schema, dict):
        raise TypeError(f"{name}: the {what} must be a JSON object")
    try:
        # Compiling checks the schema against its meta-schema and resolves every $ref.
        return jsonschema_rs.validator_for(schema, retriever=_refuse_remote).is_valid
    except Exception:
        _python_validator(schema, name, what)  # says what is wrong, or the Rust one lacks a dialect or keyword
        return _not_sure


def _not_sure(instance: Any) -> bool:
    return False


def _python_validator(schema: dict[str, Any], name: str = "", what: str = "") -> Any:
    """jsonschema's validator for ``schema`` in its declared dialect; with ``name``, the schema is
    checked first (``TypeError`` naming the tool and what is wrong)."""
    import jsonschema
    import referencing

    validator_cls = jsonschema.Draft202012Validator
    if "$schema" in schema:
        validator_cls = jsonschema.validators.validator_for(schema, default=None)
        if validator_cls is None:
            if not name:
                validator_cls = jsonschema.Draft202012Validator
            else:
                raise TypeError(f"{name}: {what} uses an unsupported dialect {schema['$schema']!r}")
    if name:
        try:
            validator_cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise TypeError(f"{name}: invalid {what}: {_one_line(exc.message)}") from None
        if (ref := _unresolvable_ref(schema)) is not None:
            raise TypeError(f"{name}: {what} has a $ref that does not resolve locally: {ref!r}")
    return validator_cls(schema, registry=referencing.Registry())  # (validators never fetch remote $refs)


def _unresolvable_ref(schema: dict[str, Any]) -> str | None:
    """The first ``$ref`` in ``schema`` that neither it nor the dialect meta-schemas define."""
    from urllib.parse import urljoin

    import referencing.exceptions
    import referencing.jsonschema
    from jsonschema_specifications import REGISTRY as METASCHEMAS

    spec = referencing.jsonschema.specification_with(
        schema.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
    )
    resource = spec.create_resource(schema)
    registry = METASCHEMAS.with_resource(resource.id() or "", resource).crawl()

    def walk(node: Any, base: str) -> str | None:
        if isinstance(node, list):
            return next((bad for child in node if (bad := walk(child, base)) is not None), None)
        if not isinstance(node, dict):
            return None
        if isinstance(node.get("$id"), str):
            base = urljoin(base, node["$id"])
        if isinstance(ref := node.get("$ref"), str):
            try:
                registry.resolver(base).lookup(ref)
            except referencing.exceptions.Unresolvable:
                return ref
        for key, value in node.items():
            if key in SCHEMA_MAPS and isinstance(value, dict):
                value = list(value.values())
            if key not in DATA_KEYWORDS and (bad := walk(value, base)) is not None:
                return bad
        return None

    return walk(schema, resource.id() or "")


# -- error messages ----------------------------------------------------------------------------

_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 60
_repr.maxlevel = 2


def _short(value: Any) -> str:
    return _repr.repr(value)


def _one_line(text: str) -> str:
    text = " ".join(text.splitlines())
    return text if len(text) <= 500 else text[:497] + "..."


def _refuse_remote(uri: str) -> Any:
    raise ValueError(f"remote $ref not allowed: {uri}")


def _describe(validator: Any, instance: Any, noun: str) -> str | None:
    """The most relevant validation error as one line naming the field path, or None when valid."""
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    error, message = _refine(error)
    path = _path(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [_join(path, p) for p in error.validator_value if p not in error.instance]
        return _one_line(f"missing required {_names(noun, missing)}")
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        extra = [
            _join(path, k)
            for k in sorted(error.instance)
            if k not in known and not any(re.search(p, k) for p in patterns)
        ]
        if extra:
            return _one_line(f"unexpected {_names(noun, extra)}")
    if message is None:
        message = error.message
        if len(full := repr(error.instance)) > 60 and message.startswith(full):
            message = _short(error.instance) + message[len(full) :]
    return _one_line(f"{path!r}: {message}" if path else message)


def _refine(error: ValidationError) -> tuple[ValidationError, str | None]:
    """Look into anyOf/oneOf failures: follow the one branch whose type fit, or list the types."""
    from jsonschema.exceptions import best_match

    while error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        live = [errs for errs in branches.values() if not all(_type_miss(e) for e in errs)]
        if len(live) == 1:
            error = best_match(live[0])
            continue
        if not live:
            types = dict.fromkeys(t for errs in branches.values() for e in errs for t in _listed(e.validator_value))
            return error, f"{_short(error.instance)} is not of type {', '.join(map(repr, types))}"
        break
    return error, None


def _type_miss(error: ValidationError) -> bool:
    return error.validator == "type" and not error.relative_path


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _path(parts: Iterable[Any]) -> str:
    path = ""
    for part in parts:
        path = f"{path}[{part}]" if isinstance(part, int) else _join(path, part)
    return path


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _names(noun: str, names: list[str]) -> str:
    return f"{noun}{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))}"
