"""What the plugin is told: the document, the API's base URL, the limits, the route maps and the
credentials, from the ``[plugins.openapi]`` table (or ``--plugin-option openapi.KEY=VALUE``) or
given to ``from_openapi`` in code."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from mcptrio import OptionError, PluginOptions

from .credentials import Secret
from .route_maps import RouteMap, RouteMapError

MIB = 1024 * 1024


@attrs.frozen
class OpenApiSettings:
    spec: str | Path | Mapping[str, Any]  # a file, an http(s) URL, or the document itself
    base_url: str | None = None  # default: the document's first server, else where it was fetched from
    name: str = "openapi"
    timeout: float = 30.0  # seconds, per request
    max_response_bytes: int = 10 * MIB
    skip_invalid: bool = False
    route_maps: tuple[RouteMap, ...] = ()
    headers: dict[str, str] = attrs.field(factory=dict, repr=False)
    bearer: Secret = Secret()
    basic_user: str | None = None
    basic_password: Secret = Secret()
    api_key: Secret = Secret()
    api_key_scheme: str | None = None

    @classmethod
    def from_options(cls, options: PluginOptions) -> OpenApiSettings:
        """The settings of ``[plugins.openapi]``, each checked (``OptionError`` naming the key)."""
        spec_path = options.path("spec") if options.given("spec") and not _is_url(options.values["spec"]) else None
        spec = spec_path if spec_path is not None else options.text("spec", what="the OpenAPI document: a file or URL")
        maps = []
        for index, table in enumerate(options.tables("route_maps")):
            try:
                maps.append(RouteMap.from_table(table, f"{options.where('route_maps')}[{index}]"))
            except RouteMapError as exc:
                raise OptionError(str(exc)) from None
        return cls(
            spec=spec or "",
            base_url=options.text("base_url", None, "the API's base URL"),
            name=options.plugin,
            timeout=options.number("timeout", 30.0, "a positive number of seconds"),
            max_response_bytes=options.whole("max_response_bytes", 10 * MIB),
            skip_invalid=options.flag("skip_invalid", False),
            route_maps=tuple(maps),
            headers=options.strings("headers"),
            bearer=_secret(options, "bearer"),
            basic_user=options.text("basic_user", None),
            basic_password=_secret(options, "basic_password"),
            api_key=_secret(options, "api_key"),
            api_key_scheme=options.text("api_key_scheme", None),
        )


def _is_url(value: object) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


def _secret(options: PluginOptions, key: str) -> Secret:
    """``KEY_env`` (an environment variable's name) or ``KEY_file`` (a file holding it), not both."""
    env = options.text(f"{key}_env", None, "the name of an environment variable")
    file = options.path(f"{key}_file")
    if env is not None and file is not None:
        raise OptionError(f"{options.where(key)}_env and {options.where(key)}_file: give one, not both")
    return Secret(env, file)
