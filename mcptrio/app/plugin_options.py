"""A plugin's own settings: the ``[plugins.NAME]`` table of the config file and ``--plugin-option NAME.KEY=VALUE``.

A plugin that takes settings registers a hook with ``@plugin.configure``; before the plugin is
served, the hook is called with a ``PluginOptions`` and reads each key through a typed getter
(``text``, ``number``, ``flag``, ...).  A getter refuses a missing or ill-typed value with an
``OptionError`` naming the key (``plugins.openapi.timeout must be ...``); a key the hook did not
read is refused as unknown.  The command line prints either as one line and exits with status 2.

Values from the file are TOML's; a flag's are strings, which the getters convert (``"2.5"`` for a
number, ``"true"`` for a flag), so one hook reads both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

_REQUIRED = object()
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class OptionError(ValueError):
    """A plugin option that is missing, ill-typed or unknown: one line naming it."""


class PluginOptions:
    """The settings given to one plugin, read once each through the typed getters."""

    def __init__(
        self, plugin: str, values: Mapping[str, object] | None = None, folders: Mapping[str, Path] | None = None
    ) -> None:
        self.plugin = plugin
        self.values = dict(values or {})
        self.folders = dict(folders or {})  # key -> the folder a relative path in it is from (the config file's)
        self.read: set[str] = set()

    def where(self, key: str) -> str:
        """How messages name ``key``: ``plugins.openapi.spec``."""
        return f"plugins.{self.plugin}.{key}"

    def given(self, key: str) -> bool:
        return key in self.values

    def _get(self, key: str, default: object, what: str) -> object:
        self.read.add(key)
        if key in self.values:
            return self.values[key]
        if default is _REQUIRED:
            raise OptionError(
                f"{self.where(key)} is required: {what} (set it in [plugins.{self.plugin}] or with "
                f"--plugin-option {self.plugin}.{key}=VALUE)"
            )
        return default

    def _refuse(self, key: str, what: str, value: object) -> OptionError:
        return OptionError(f"{self.where(key)} must be {what}, got {value!r}")

    def text(self, key: str, default: str | None | object = _REQUIRED, what: str = "a string") -> str | None:
        value = self._get(key, default, what)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._refuse(key, what, value)
        return value

    def path(self, key: str) -> Path | None:
        """A file's path (None when not given): relative in the file, from the file's folder."""
        value = self.text(key, None, "a file's path")
        if value is None:
            return None
        path = Path(value).expanduser()
        folder = self.folders.get(key)
        return folder / path if folder is not None and not path.is_absolute() else path

    def number(self, key: str, default: float, what: str = "a positive number") -> float:
        value = self._get(key, default, what)
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise self._refuse(key, what, value) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise self._refuse(key, what, value)
        return float(value)

    def whole(self, key: str, default: int, what: str = "a positive whole number") -> int:
        value = self._get(key, default, what)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self._refuse(key, what, value)
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key, default, "true or false")
        if isinstance(value, str) and value.lower() in TRUE + FALSE:
            value = value.lower() in TRUE
        if not isinstance(value, bool):
            raise self._refuse(key, "true or false", value)
        return value

    def strings(self, key: str, what: str = "a table of strings") -> dict[str, str]:
        """A table of strings (``headers = {X-Team = "a"}``); empty when not given."""
        value = self._get(key, {}, what)
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise self._refuse(key, what, value)
        return dict(value)

    def tables(self, key: str, what: str = "an array of tables") -> list[dict[str, object]]:
        """An array of tables (``[[plugins.NAME.KEY]]``); empty when not given."""
        value = self._get(key, [], what)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self._refuse(key, what, value)
        return [dict(item) for item in value]

    def unread(self) -> list[str]:
        """The keys given that no getter asked for: unknown to the plugin."""
        return [self.where(key) for key in self.values if key not in self.read]
