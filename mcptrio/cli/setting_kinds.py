"""``Setting``, one declared ``mcptrio serve`` setting, and the kinds of value a setting holds.

A kind knows, for its values: what the TOML file must hold (and the one-line message when it does
not), how its flag is added to the parser and read back, how the flag, the file and the default
combine and are checked, and how the reference page shows it.  ``serve_settings`` declares each
setting once, with one of these kinds.  They are plain classes, not attrs classes: every stdio
server defines them as it starts, and making an attrs class costs far more than a plain one.
"""

from __future__ import annotations

import argparse
import enum
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .usage import UsageError

TRANSPORTS = ("stdio", "http", "ws")


class Missing(enum.Enum):
    MISSING = "missing"


MISSING = Missing.MISSING  # a key the file does not hold


class Settled(Protocol):
    """The other settings' values, for a default or a check that depends on them."""

    def __getitem__(self, key: str) -> object: ...


class Computed:
    """A default worked out when the settings are resolved: from other settings, or from what is installed."""

    def __init__(self, make: Callable[[Settled], object], doc: str) -> None:
        self.make = make
        self.doc = doc  # what the reference page and the flag's help say it is


class Setting:
    """One serve setting: its kind, help, section, flags, default and doc.  Declared as a class
    attribute of ``ServeSettings``, whose name is its key in ``[serve]``."""

    key: str

    def __init__(
        self,
        kind: Kind,
        help: str,
        section: str,
        *,
        flags: tuple[str, ...] = (),
        default: object = None,
        default_doc: str = "",
        doc: str = "",
        transports: tuple[str, ...] = TRANSPORTS,
        refused_elsewhere: str = "",
        in_file: bool = True,
        label: str = "",
        metavar: str | None = None,
        hidden: bool = False,
    ) -> None:
        self.kind = kind
        self.help = help  # the flag's help; the reference page's meaning unless ``doc`` says more
        self.section = section  # the reference page's section
        self.flags = flags
        self.default = default
        self.default_doc = default_doc  # the reference page's default, when the value does not say it well
        self.doc = doc
        self.transports = transports
        self.refused_elsewhere = refused_elsewhere  # the error when set on another transport ("": ignored there)
        self.in_file = in_file  # False: a flag only
        self.label = label  # what value messages call it (default: the key)
        self.metavar = metavar
        self.hidden = hidden  # a flag for mcptrio's own use, in no help and no page

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    @property
    def name(self) -> str:
        return self.label or self.key

    def default_value(self, settled: Settled) -> object:
        return self.default.make(settled) if isinstance(self.default, Computed) else self.default

    def shown_default(self) -> str:
        """The default as the reference page shows it (Markdown)."""
        if self.default_doc:
            return self.default_doc
        if isinstance(self.default, Computed):
            return self.default.doc
        return "none" if self.default is None else f"`{toml_text(self.default)}`"

    def flag_help(self) -> str:
        if self.hidden:
            return argparse.SUPPRESS
        text = self.help
        if self.transports != TRANSPORTS:
            text = f"{'/'.join(self.transports)}: {text}"
        if self.kind.flag_shows_default():
            text += self._default_in_help()
        return (text + self.kind.help_suffix).replace("%", "%%")

    def _default_in_help(self) -> str:
        said = self.default_doc or (self.default.doc if isinstance(self.default, Computed) else "")
        if said:
            return f" (default: {said.replace('`', '')})"
        if self.default in (None, False, (), {}):
            return ""
        return f" (default {toml_text(self.default).strip(chr(34))})"


def toml_text(value: object) -> str:
    """``value`` as it is written in the TOML file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(toml_text, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def flag_names(setting: Setting, joined: str = ", ") -> str:
    """The setting's flags, without what they take, as the reference page shows them."""
    return joined.join(f"`{flag}`" for flag in setting.flags)


class Kind:
    """A string, with the flag's value as given; the base of the other kinds."""

    toml = "a string"  # what the file's value must be, in its message
    metavar: str | None = None
    help_suffix = ""

    def shown(self) -> str:
        """The reference page's type."""
        return "string"

    def accepts(self, value: object) -> bool:
        return isinstance(value, str)

    def file_problem(self, where: str, value: object) -> str | None:
        """What is wrong with the file's ``value`` for ``where`` (``serve.port``), or None."""
        return None if self.accepts(value) else f"{where} must be {self.toml}, got {value!r}"

    def unknown_keys(self, where: str, value: object) -> list[str]:
        return []

    def add_flag(self, parser: argparse._ActionsContainer, setting: Setting) -> None:
        parser.add_argument(
            *setting.flags,
            dest=setting.key,
            metavar=setting.metavar or self.metavar,
            help=setting.flag_help(),
            **self.flag_options(),
        )

    def flag_options(self) -> dict[str, Any]:
        return {}

    def flag_shows_default(self) -> bool:
        """Whether the flag's help ends with the default (not for a flag that only turns something on or off)."""
        return True

    def flag_doc(self, setting: Setting) -> str:
        """The flags as the reference page shows them."""
        metavar = setting.metavar or self.metavar or setting.key.upper()
        return ", ".join(f"`{flag} {metavar}`" for flag in setting.flags)

    def given(self, args: argparse.Namespace, setting: Setting) -> object:
        """The flag's value, None when it is not given."""
        return getattr(args, setting.key, None) if setting.flags else None

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        """The flag over the file over the default, checked."""
        if flag is not None:
            return self.check(setting, flag)
        if file is not MISSING:
            return self.check(setting, file)
        return setting.default_value(settled)

    def check(self, setting: Setting, value: Any) -> object:
        return value


class Text(Kind):
    """A string, with an optional check of its own (which raises UsageError)."""

    def __init__(self, check_text: Callable[[str], str] | None = None) -> None:
        self.check_text = check_text

    def check(self, setting: Setting, value: Any) -> object:
        return value if self.check_text is None else self.check_text(value)


class FilePath(Kind):
    """A file's path."""

    metavar = "FILE"

    def shown(self) -> str:
        return "path"

    def flag_options(self) -> dict[str, Any]:
        return {"type": Path}

    def check(self, setting: Setting, value: Any) -> object:
        return Path(value)


class Choice(Kind):
    """One of a few strings (``any_case``: the file's in any case, e.g. ``"INFO"``)."""

    def __init__(self, choices: tuple[str, ...], any_case: bool = False) -> None:
        self.choices = choices
        self.any_case = any_case

    def shown(self) -> str:
        quoted = [f'`"{choice}"`' for choice in self.choices]
        return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"

    def flag_options(self) -> dict[str, Any]:
        return {"choices": self.choices}

    def flag_doc(self, setting: Setting) -> str:
        return flag_names(setting)  # (the choices are in the type)

    def check(self, setting: Setting, value: Any) -> object:
        found = value.lower() if self.any_case else value
        if found not in self.choices:
            raise UsageError(f"{setting.name} must be one of {', '.join(self.choices)}, got {value!r}")
        return found


class Whole(Kind):
    """A whole number, at least ``minimum`` (and at most ``maximum``) when they are set."""

    toml = "a whole number"
    metavar = "N"

    def __init__(
        self,
        minimum: int | None = None,
        maximum: int | None = None,
        out_of_range: str = "{name} must be a whole number of at least {minimum}, got {value!r}",
    ) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.out_of_range = out_of_range  # the message, with the setting's name, the minimum and the value

    def shown(self) -> str:
        if self.maximum is not None:
            return f"integer {self.minimum}–{self.maximum}"
        return "integer" if self.minimum is None else f"integer ≥ {self.minimum}"

    def accepts(self, value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    def flag_options(self) -> dict[str, Any]:
        return {"type": int}

    def check(self, setting: Setting, value: Any) -> object:
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            raise UsageError(self.out_of_range.format(name=setting.name, minimum=self.minimum, value=value))
        return value


class Seconds(Kind):
    """A duration: a number of seconds, 0 or more."""

    toml = "a number"
    metavar = "SECONDS"

    def shown(self) -> str:
        return "number of seconds ≥ 0"

    def accepts(self, value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    def flag_options(self) -> dict[str, Any]:
        return {"type": float}

    def check(self, setting: Setting, value: Any) -> object:
        if not 0 <= value < math.inf:
            raise UsageError(f"{setting.name} must be 0 or more seconds, got {value!r}")
        return float(value)


class YesNo(Kind):
    """True or false; the flag turns it ``"on"``, ``"off"`` (``--no-…``), or ``"both"`` ways."""

    toml = "true or false"

    def __init__(self, flag_turns: str = "on") -> None:
        self.flag_turns = flag_turns

    def shown(self) -> str:
        return "boolean"

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def add_flag(self, parser: argparse._ActionsContainer, setting: Setting) -> None:
        parser.add_argument(*setting.flags, dest=setting.key, help=setting.flag_help(), **self.flag_options())

    def flag_options(self) -> dict[str, Any]:
        actions = {"on": "store_true", "off": "store_false", "both": argparse.BooleanOptionalAction}
        return {"action": actions[self.flag_turns], "default": None}

    def flag_shows_default(self) -> bool:
        return self.flag_turns == "both"

    def flag_doc(self, setting: Setting) -> str:
        if self.flag_turns != "both":
            return flag_names(setting)
        return " / ".join(f"`{flag}` / `--no-{flag[2:]}`" for flag in setting.flags)


class Repeatable(Kind):
    """A kind whose flag may be given again and again, each time adding to the file's value."""

    help_suffix = " (repeatable)"

    def flag_options(self) -> dict[str, Any]:
        return {"action": "append"}

    def flag_doc(self, setting: Setting) -> str:
        return super().flag_doc(setting) + " (repeatable)"

    @staticmethod
    def items(flag: object) -> list[str]:
        """The flag's values in the order given (none when it is not given)."""
        return flag if isinstance(flag, list) else []


class Names(Repeatable):
    """A list of strings; each use of the flag adds one to the file's list; ``check_names`` checks them all."""

    toml = "a list of strings"

    def __init__(self, check_names: Callable[[tuple[str, ...]], None] | None = None) -> None:
        self.check_names = check_names

    def shown(self) -> str:
        return "list of strings"

    def accepts(self, value: object) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)

    def resolve(self, setting: Setting, flag: object, file: object, settled: Settled) -> object:
        base = file if file is not MISSING else setting.default_value(settled)
        names = tuple(base if isinstance(base, (list, tuple)) else ()) + tuple(self.items(flag))
        if names and self.check_names is not None:
            self.check_names(names)
        return names
