"""Roots: the server asks the client which directories or files it may work on (``roots/list``)."""

from typing import Any, Literal

import attrs

from ._base import MetaObject, RequestId


@attrs.frozen(kw_only=True)
class Root:
    """A directory or file the server may operate on; ``uri`` starts with ``file://``."""

    uri: str
    name: str | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListRootsRequestParams:
    """The params of ``roots/list``: only ``_meta``."""

    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListRootsRequest:
    """A ``roots/list`` request; ``jsonrpc`` and ``id`` only in legacy revisions."""

    method: Literal["roots/list"] = "roots/list"
    params: ListRootsRequestParams | None = None
    jsonrpc: Literal["2.0"] | None = None
    id: RequestId | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListRootsResult:
    """The client's answer to ``roots/list``."""

    roots: list[Root]
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
