"""Mistakes in a handler found when it is registered, each named in one line: a resource template
whose variables are not the handler's parameters, and a return annotation no result can be made of.

Without these, both are accepted at load and fail on the first request with an internal error.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, Union

from .schema_from_hints import strip_annotated, type_name

__all__ = ["check_completer_returns", "check_prompt_returns", "check_resource_returns", "check_variables"]

NoneType = type(None)
_SEQUENCES = (
    list,
    tuple,
    collections.abc.Sequence,
    collections.abc.Iterable,
    collections.abc.Collection,
    set,
    frozenset,
    collections.abc.Set,
)


def check_variables(fn: Callable[..., Any], uri: str, variables: tuple[str, ...], context: str | None) -> None:
    """``TypeError`` unless each template variable is a parameter of ``fn`` and each parameter
    without a default (but the Context) is a variable."""
    name = getattr(fn, "__qualname__", repr(fn))
    what = f"resource template {uri!r}" if variables else f"resource {uri!r}"
    parameters = inspect.signature(fn).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    for variable in variables:
        if variable not in parameters and not takes_any:
            raise TypeError(f"{what}: {name} has no parameter {variable!r} for the variable {{{variable}}}")
    for parameter in parameters.values():
        if parameter.name == context or parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            continue
        if parameter.name not in variables and parameter.default is parameter.empty:
            hint = (
                f"add {{{parameter.name}}} to the URI or give it a default"
                if variables
                else "a resource without {variables} passes none"
            )
            raise TypeError(
                f"{what}: {name} requires the parameter {parameter.name!r}, which is not a variable of the URI ({hint})"
            )


def check_resource_returns(fn: Callable[..., Any], uri: str) -> None:
    _check(
        fn,
        f"resource {uri!r}",
        _fits((str, bytes, bytearray, memoryview, NoneType, dict), sequences=True),
        "str (text), bytes (a blob) or resource contents",
    )


def check_prompt_returns(fn: Callable[..., Any], name: str) -> None:
    _check(fn, f"prompt {name!r}", _fits((str, dict), sequences=True), "str or a list of messages")


def check_completer_returns(fn: Callable[..., Any], argument: str) -> None:
    fits_items = _fits((str,), sequences=False)

    def fits(hint: Any) -> bool:
        hint = strip_annotated(hint)
        if hint is Any or hint is object:
            return True
        if typing.get_origin(hint) in (Union, types.UnionType):
            return all(fits(a) for a in typing.get_args(hint))
        base = typing.get_origin(hint) or hint
        if not (isinstance(base, type) and base in _SEQUENCES):
            return not isinstance(base, type)  # (a hint we cannot judge passes)
        return all(fits_items(a) for a in typing.get_args(hint) if a is not Ellipsis)

    _check(fn, f"completer of {argument!r}", fits, "a list of str")


def _fits(leaves: tuple[type, ...], *, sequences: bool) -> Callable[[Any], bool]:
    """A test of a return annotation: made of ``leaves``, MCP's own wire types, and (with
    ``sequences``) lists and tuples of them."""

    def fits(hint: Any) -> bool:
        hint = strip_annotated(hint)
        if hint is Any or hint is object:
            return True
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (Union, types.UnionType):
            return all(fits(a) for a in args)
        base = origin or hint
        if not isinstance(base, type):
            return True  # a TypeVar, a forward reference...: nothing to judge by
        if sequences and base in (list, tuple, collections.abc.Sequence):
            return all(fits(a) for a in args if a is not Ellipsis)
        return issubclass(base, leaves) or base.__module__.startswith("mcptrio.wire")

    return fits


def _check(fn: Callable[..., Any], what: str, fits: Callable[[Any], bool], expected: str) -> None:
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:
        return  # (names that resolve only at run time: the result is checked when it comes)
    if "return" in hints and not fits(hints["return"]):
        name = getattr(fn, "__qualname__", repr(fn))
        raise TypeError(
            f"{what}: {name} is annotated to return {_shown(hints['return'])}, but it must return {expected}"
        )


def _shown(hint: Any) -> str:
    return type_name(hint) if isinstance(hint, type) else repr(hint).replace("typing.", "")
