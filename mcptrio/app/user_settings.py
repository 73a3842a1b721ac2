"""What a user is asked for when they install a server: a folder, a key, a URL, each passed to the
server as an environment variable.  A plugin declares them with ``plugin.user_setting(...)``; the
one declaration is what ``mcptrio bundle`` writes as the bundle's ``user_config`` (the client's form)
and ``mcptrio registry-entry`` as the registry's ``environmentVariables``.

A setting with ``option`` fills that plugin option (``[plugins.NAME] KEY``) from its environment
variable when the option is not given otherwise, so a plugin configured by options needs no code of
its own to read it; without ``option`` the plugin reads the variable itself.
"""

from __future__ import annotations

import re
from typing import Literal

import attrs

Kind = Literal["string", "number", "boolean", "directory", "file"]
KINDS: tuple[Kind, ...] = ("string", "number", "boolean", "directory", "file")
KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_key(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not KEY.match(value):
        raise ValueError(f"user setting {attribute.name} {value!r}: use letters, digits and _ (not first a digit)")


def _check_kind(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in KINDS:
        raise ValueError(f"user setting kind {value!r}: one of {', '.join(KINDS)}")


@attrs.frozen
class UserSetting:
    """One value the user gives at install time, passed to the server in the environment variable ``env``."""

    key: str = attrs.field(validator=_check_key)  # its name in a bundle's user_config
    env: str = attrs.field(validator=_check_key)  # the environment variable the server reads
    title: str
    description: str
    kind: Kind = attrs.field(default="string", validator=_check_kind)
    required: bool = False
    sensitive: bool = False  # a secret: masked in forms, stored by the client as one
    default: str | None = None
    option: str | None = None  # the plugin option the variable fills when set
