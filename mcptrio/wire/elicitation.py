"""Elicitation: the server asks the client's user for input, by form or by URL (``elicitation/create``).

A form's ``requestedSchema`` is a flat object of primitive schemas; PrimitiveSchemaDefinition is
told apart by ``type`` and by which of ``enum``/``oneOf``/``items.anyOf``/``enumNames`` is present.
Form params without ``mode`` are form params (``mode`` stays absent on the way back out).
"""

from typing import Any, Literal

import attrs

from ._base import MetaObject, RequestId, renamed

# -- the primitive schemas of a form ----------------------------------------------------------


@attrs.frozen(kw_only=True)
class StringSchema:
    """A free-text field."""

    type: Literal["string"] = "string"
    title: str | None = None
    description: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: Literal["email", "uri", "date", "date-time"] | None = None
    default: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class NumberSchema:
    """A number field; ``type`` is ``"number"`` or ``"integer"``."""

    type: Literal["number", "integer"] = "number"
    title: str | None = None
    description: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    default: float | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class BooleanSchema:
    """A yes/no field."""

    type: Literal["boolean"] = "boolean"
    title: str | None = None
    description: str | None = None
    default: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class EnumOption:
    """One choice of a titled enum: its value (``const``) and its display title."""

    const: str
    title: str
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class UntitledSingleSelectEnumSchema:
    """Pick one of ``enum``."""

    type: Literal["string"] = "string"
    enum: list[str]
    title: str | None = None
    description: str | None = None
    default: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class TitledSingleSelectEnumSchema:
    """Pick one of ``one_of``, each shown with its title."""

    type: Literal["string"] = "string"
    one_of: list[EnumOption]
    title: str | None = None
    description: str | None = None
    default: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class UntitledEnumItems:
    """The ``items`` of an untitled multi-select: the values to choose from."""

    type: Literal["string"] = "string"
    enum: list[str]
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class UntitledMultiSelectEnumSchema:
    """Pick any of ``items.enum``."""

    type: Literal["array"] = "array"
    items: UntitledEnumItems
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    default: list[str] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class TitledEnumItems:
    """The ``items`` of a titled multi-select: the options to choose from."""

    any_of: list[EnumOption]
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class TitledMultiSelectEnumSchema:
    """Pick any of ``items.any_of``, each shown with its title."""

    type: Literal["array"] = "array"
    items: TitledEnumItems
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    default: list[str] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class LegacyTitledEnumSchema:
    """Deprecated: pick one of ``enum``, shown as ``enum_names``; use TitledSingleSelectEnumSchema."""

    type: Literal["string"] = "string"
    enum: list[str]
    enum_names: list[str] | None = None
    title: str | None = None
    description: str | None = None
    default: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema
MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema
EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema
PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema

# -- the request ------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class RequestedSchema:
    """The form to fill in: a flat JSON Schema object of primitive fields."""

    type: Literal["object"] = "object"
    properties: dict[str, PrimitiveSchemaDefinition]
    required: list[str] | None = None
    schema: str | None = renamed("$schema")
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ElicitRequestFormParams:
    """Ask the user to fill in a form; the data goes through the client."""

    message: str
    requested_schema: RequestedSchema
    mode: Literal["form"] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ElicitRequestURLParams:
    """Send the user to a URL, for input that must not pass through the client.

    ``elicitation_id`` is legacy (2025-11-25) only.
    """

    mode: Literal["url"] = "url"
    message: str
    url: str
    elicitation_id: str | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams


@attrs.frozen(kw_only=True)
class ElicitRequest:
    """An ``elicitation/create`` request; ``jsonrpc`` and ``id`` only in legacy revisions."""

    method: Literal["elicitation/create"] = "elicitation/create"
    params: ElicitRequestParams
    jsonrpc: Literal["2.0"] | None = None
    id: RequestId | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


ElicitValue = str | int | float | bool | list[str]
"""One submitted form value."""


@attrs.frozen(kw_only=True)
class ElicitResult:
    """The client's answer to ``elicitation/create``; ``content`` only for an accepted form."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, ElicitValue] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
