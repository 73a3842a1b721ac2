"""The kinds of value only ``mcptrio serve`` has: plugin names, prefixes, the session limits, a rate
limit, a state URL and the authorization table, each parsed by the code it belongs to."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import attrs

from ..app.admission import RateLimit
from ..app.namespaces import check_namespace
from ..runtime.limits import SessionLimits
from ..targets import resolved_against
from . import auth_settings
from .setting_kinds import MISSING, Kind, Names, Repeatable, Seconds, Setting, Settled, Whole, flag_names
from .usage import UsageError


class TargetName(Kind):
    """A Python file or module to serve (``mcptrio.targets``): the command's first word, or the file's
    ``target``, where a relative path is taken from the config file's folder."""

    metavar = "TARGET"

    def add_flag(self, parser: argparse._ActionsContainer, setting: Setting) -> None:
        parser.add_argument(setting.key, nargs="?", metavar=self.metavar, help=setting.flag_help())

    def flag_doc(self, setting: Setting) -> str:
        return "`TARGET` (the first word)"

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        if flag is not None:
            return flag
        if file is MISSING:
            return None
        config = settled["config"]
        return resolved_against(str(file), config.parent) if isinstance(config, Path) else file


class PluginNames(Kind):
    """Plugin names: ``"a,b"`` on the command line, a list (or that string) in the file."""

    toml = 'a list of plugin names (or one string "a,b")'
    metavar = "A,B"

    def shown(self) -> str:
        return "list of strings, or one comma-separated string"

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) or Names().accepts(value)

    def check(self, setting: Setting, value: Any) -> object:
        names = value.split(",") if isinstance(value, str) else value
        return tuple(name.strip() for name in names if name.strip())


class Tags(PluginNames):
    """Component tags: ``"a,b"`` on the command line, a list (or that string) in the file."""

    toml = 'a list of tags (or one string "a,b")'


class Prefixes(Repeatable):
    """A table of plugin = prefix; each ``PLUGIN=PREFIX`` flag adds or replaces one entry."""

    toml = "a table of plugin = prefix strings"
    metavar = "PLUGIN=PREFIX"

    def shown(self) -> str:
        return "table: plugin = prefix"

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        base = file if file is not MISSING else setting.default_value(settled)
        prefixes = dict(base) if isinstance(base, dict) else {}
        flagged = set()
        for item in self.items(flag):
            plugin, sep, prefix = item.partition("=")
            if not sep or not plugin or not prefix:
                raise UsageError(f"{setting.flags[0]} wants PLUGIN=PREFIX, got {item!r}")
            prefixes[plugin] = prefix
            flagged.add(plugin)
        for plugin, prefix in prefixes.items():
            try:
                check_namespace(prefix)
            except ValueError as exc:
                where = setting.flags[0] if plugin in flagged else f"serve.{setting.key}"
                raise UsageError(f"{where}: the prefix of plugin {plugin!r}: {exc}") from None
        return prefixes


class Limits(Kind):
    """The ``[serve.limits]`` table as ``SessionLimits``; the setting named ``grace`` wins over its shutdown_grace."""

    toml = "a table ([serve.limits])"

    def __init__(self, grace: str) -> None:
        self.grace = grace

    def shown(self) -> str:
        return "table"

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict)

    def unknown_keys(self, where: str, value: object) -> list[str]:
        known = attrs.fields_dict(SessionLimits)
        return [f"{where}.{key}" for key in value if key not in known] if isinstance(value, dict) else []

    def file_problem(self, where: str, value: object) -> str | None:
        if not isinstance(value, dict):
            return super().file_problem(where, value)
        for key, item in value.items():
            least = 1 if attrs.fields_dict(SessionLimits)[key].type in (int, "int") else 0
            problem = (Whole() if least else Seconds()).file_problem(f"{where}.{key}", item)
            if problem is None and not least <= item < math.inf:
                problem = f"{where}.{key} must be at least {least}, got {item!r}"
            if problem is not None:
                return problem
        return None

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        values: dict[str, Any] = dict(file) if isinstance(file, dict) else {}
        grace = settled[self.grace]
        if grace is not None:
            values["shutdown_grace"] = grace
        return SessionLimits(**values)


class Rate(Kind):
    """A rate limit, ``"20/s"``, as ``RateLimit``; the setting named ``burst`` gives its burst."""

    metavar = "RATE"

    def __init__(self, burst: str) -> None:
        self.burst = burst

    def shown(self) -> str:
        return 'string: `"N/s"`, `"N/m"` or `"N/h"` (a bare `"N"`: per second)'

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        rate = super().resolve(setting, flag, file, settled)
        burst = settled[self.burst]
        if rate is None:
            if burst is not None:
                raise UsageError(f"{self.burst} needs a rate limit ({setting.flags[0]} 20/s)")
            return None
        try:
            return RateLimit.parse(str(rate), burst if isinstance(burst, int) else None)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


class RedisUrl(Kind):
    """Where processes share state: a ``redis://``, ``rediss://`` or ``unix://`` URL, as ``StateUrl``."""

    toml = "a URL string"
    metavar = "URL"

    def shown(self) -> str:
        return "URL string"

    def check(self, setting: Setting, value: Any) -> object:
        from ..state import parse_state_url  # (only when it is set: stdio start-up imports nothing of state)

        try:
            return parse_state_url(value)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


class Auth(Kind):
    """The ``[serve.auth]`` table and the ``--auth-*`` flags, as ``AuthConfig`` (None: off), by ``auth_settings``."""

    toml = "a table ([serve.auth])"

    def shown(self) -> str:
        return "table"

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict)

    def add_flag(self, parser: argparse._ActionsContainer, setting: Setting) -> None:
        auth_settings.add_flags(parser)

    def flag_doc(self, setting: Setting) -> str:
        return flag_names(setting)

    def given(self, args: argparse.Namespace, setting: Setting) -> object:
        return auth_settings.flag_values(args)

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        return auth_settings.auth_config(flag if isinstance(flag, dict) else {}, file if file is not MISSING else {})


class Reshapes(Kind):
    """The ``[serve.reshape.NAME]`` tables: each tool's ``reshape_tool`` keyword arguments, a
    hidden argument's ``{value = ...}``, ``{env = "VAR"}`` or ``{claim = "name"}`` as its source."""

    toml = "a table of tables ([serve.reshape.TOOL])"
    KEYS = ("rename", "title", "description", "hide", "narrow")
    SOURCES = ("value", "env", "claim")

    def shown(self) -> str:
        return "table"

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict)

    def unknown_keys(self, where: str, value: object) -> list[str]:
        if not isinstance(value, dict):
            return []
        return [
            f"{where}.{tool}.{key}"
            for tool, table in value.items()
            if isinstance(table, dict)
            for key in table
            if key not in self.KEYS
        ]

    def file_problem(self, where: str, value: object) -> str | None:
        if not isinstance(value, dict):
            return super().file_problem(where, value)
        for tool, table in value.items():
            at = f"{where}.{tool}"
            if not isinstance(table, dict):
                return f"{at} must be a table, got {table!r}"
            for key in ("rename", "title", "description"):
                if key in table and not isinstance(table[key], str):
                    return f"{at}.{key} must be a string, got {table[key]!r}"
            for key in ("hide", "narrow"):
                if key in table and not isinstance(table[key], dict):
                    return f"{at}.{key} must be a table, got {table[key]!r}"
            for argument, source in table.get("hide", {}).items():
                if not isinstance(source, dict) or len(source) != 1 or next(iter(source)) not in self.SOURCES:
                    return f'{at}.hide.{argument} must be one of {{value = ...}}, {{env = "VAR"}}, {{claim = "name"}}'
                if "value" not in source and not isinstance(next(iter(source.values())), str):
                    return f"{at}.hide.{argument}: the variable or claim must be a string, got {source!r}"
            for argument, keywords in table.get("narrow", {}).items():
                if not isinstance(keywords, dict):
                    return f"{at}.narrow.{argument} must be a table of schema keywords, got {keywords!r}"
        return None

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        out: dict[str, dict[str, Any]] = {}
        for tool, table in (file if isinstance(file, dict) else {}).items():
            changes = dict(table)
            if "hide" in changes:
                from ..app.reshape import Fixed, FromEnv, FromPrincipal  # (only a server that reshapes loads it)

                changes["hide"] = {
                    argument: Fixed(source["value"])
                    if "value" in source
                    else FromEnv(source["env"])
                    if "env" in source
                    else FromPrincipal(source["claim"])
                    for argument, source in changes["hide"].items()
                }
            out[tool] = changes
        return out


class Upstreams(Repeatable):
    """The ``[serve.upstreams.NAME]`` tables, and each ``NAME=COMMAND-OR-URL`` flag adding or replacing
    one, as ``mcptrio.gateway.Upstream``s by name (the gateway is imported only when there is one)."""

    toml = "a table of tables ([serve.upstreams.NAME])"
    metavar = "NAME=COMMAND-OR-URL"

    def shown(self) -> str:
        return "table"

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict) and all(isinstance(table, dict) for table in value.values())

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        tables = file if isinstance(file, dict) else {}
        items = self.items(flag)
        if not tables and not items:
            return {}
        from ..gateway import Upstream

        config = settled["config"]
        folder = config.parent if isinstance(config, Path) else None
        out: dict[str, Any] = {}
        named_by = {name: f"[serve.upstreams.{name}]" for name in tables}
        try:
            for name, table in tables.items():
                if folder is not None and isinstance(table.get("cwd"), str):
                    table = {**table, "cwd": str(folder / table["cwd"])}
                out[name] = Upstream.from_table(name, table)
            for item in items:
                upstream = Upstream.from_flag(item)
                if upstream.name in out:
                    first = named_by[upstream.name]
                    raise ValueError(f"upstream {upstream.name!r} is named twice: by {first} and by --upstream {item}")
                out[upstream.name], named_by[upstream.name] = upstream, f"--upstream {item}"
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return out


class ServersFile(Kind):
    """An ``mcpServers`` file (``mcp.json``) whose servers are served as upstreams; in the config
    file, a relative path is taken from its folder."""

    metavar = "FILE"

    def shown(self) -> str:
        return "path"

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        path = flag if flag is not None else file if file is not MISSING else None
        if path is None:
            return {}
        config = settled["config"]
        if flag is None and isinstance(config, Path) and not Path(str(path)).is_absolute():
            path = config.parent / str(path)
        from ..gateway import Upstream

        try:
            return {upstream.name: upstream for upstream in Upstream.from_servers_file(str(path))}
        except ValueError as exc:
            raise UsageError(f"{setting.flags[0]}: {exc}") from None


class PluginTables(Repeatable):
    """The ``[plugins.NAME]`` tables, and each ``NAME.KEY=VALUE`` flag setting one key (a string, which the
    plugin's getters convert), as ``PluginOptions`` by plugin name; each plugin checks its own keys."""

    toml = "a table per plugin ([plugins.NAME])"
    metavar = "NAME.KEY=VALUE"

    def shown(self) -> str:
        return "table"

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        from ..app.plugin_options import PluginOptions

        tables = file if isinstance(file, dict) else {}
        config = settled["config"]
        folder = config.parent if isinstance(config, Path) else None
        out = {
            name: PluginOptions(name, table, dict.fromkeys(table, folder) if folder is not None else None)
            for name, table in tables.items()
        }
        for item in self.items(flag):
            key, equals, value = item.partition("=")
            name, dot, key = key.strip().partition(".")
            if not (equals and dot and name and key):
                raise UsageError(f"{setting.flags[0]} takes NAME.KEY=VALUE (openapi.spec=api.json), got {item!r}")
            options = out.setdefault(name, PluginOptions(name))
            options.values[key] = value
            options.folders.pop(key, None)  # (a relative path on the command line is from the working folder)
        return out
