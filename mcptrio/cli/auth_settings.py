"""``mcptrio serve``'s authorization settings: the ``--auth-*`` flags and the ``[serve.auth]`` table.

Flags win over the file.  The introspection client's secret is never a flag (it would show in
``ps``): it comes from ``MCPTRIO_AUTH_CLIENT_SECRET``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..auth.secret import SECRET_ENV
from .usage import UsageError

if TYPE_CHECKING:
    from ..auth.config import AuthConfig

URL_KEYS = ("issuer", "audience", "jwks_url", "introspection_url", "public_url", "resource_documentation")
TEXT_KEYS = ("client_id", "resource_name")
TABLE_KEYS = ("implied_scopes", "tool_scopes", "prompt_scopes", "resource_scopes")
AUTH_KEYS = set(URL_KEYS + TEXT_KEYS + TABLE_KEYS + ("scopes",))


FLAGS = {
    "issuer": "--auth-issuer",
    "audience": "--auth-audience",
    "jwks_url": "--auth-jwks-url",
    "introspection_url": "--auth-introspection-url",
    "client_id": "--auth-client-id",
    "scopes": "--auth-scopes",
    "public_url": "--public-url",
}


def add_flags(group: argparse._ActionsContainer) -> None:
    group.add_argument(FLAGS["issuer"], metavar="URL", help="the authorization server's issuer: turns auth on")
    group.add_argument(FLAGS["audience"], metavar="URL", help="the audience tokens must name (default: --public-url)")
    group.add_argument(FLAGS["jwks_url"], metavar="URL", help="the issuer's JWKS (default: from its metadata)")
    group.add_argument(
        FLAGS["introspection_url"],
        metavar="URL",
        help=f"check opaque tokens there (as --auth-client-id, secret in ${SECRET_ENV})",
    )
    group.add_argument(FLAGS["client_id"], metavar="ID", help="this server's client id at the introspection endpoint")
    group.add_argument(
        FLAGS["scopes"],
        metavar="A,B",
        help="scopes every request needs, except initialize, ping, logging/setLevel and "
        "server/discover (a valid token is enough for those)",
    )
    group.add_argument(
        FLAGS["public_url"],
        metavar="URL",
        help="the endpoint's URL as clients use it, e.g. https://mcp.example.com/mcp (behind a proxy)",
    )


def flag_values(args: argparse.Namespace) -> dict[str, str | None]:
    """The authorization flags given (None: not given), by ``[serve.auth]`` key."""
    return {key: getattr(args, flag.lstrip("-").replace("-", "_")) for key, flag in FLAGS.items()}


def auth_config(flags: Mapping[str, str | None], table: object) -> AuthConfig | None:
    """The ``AuthConfig`` the flags (``flag_values``) and the ``[serve.auth]`` table describe, or None
    (auth off)."""
    if not isinstance(table, dict):
        raise UsageError("config serve.auth must be a table")
    unknown = set(table) - AUTH_KEYS
    if unknown:
        raise UsageError(f"unknown key(s): {', '.join(f'serve.auth.{k}' for k in sorted(unknown))}")
    values: dict[str, Any] = {}
    for key in URL_KEYS + TEXT_KEYS:
        flag = flags.get(key)
        value = flag if flag is not None else table.get(key)
        if value is not None and not isinstance(value, str):
            raise UsageError(f"serve.auth.{key} must be a string, got {value!r}")
        if value is not None:
            values[key] = value
    scopes = flags.get("scopes")
    values["scopes"] = _scope_names(scopes if scopes is not None else table.get("scopes", []), "scopes")
    for key in TABLE_KEYS:
        values[key] = _scope_table(table.get(key, {}), key)
    if "issuer" not in values:
        others = sorted(k for k in values if k not in ("scopes",) + TABLE_KEYS) + [
            k for k in ("scopes",) + TABLE_KEYS if values[k]
        ]
        if others:
            raise UsageError(f"auth settings ({', '.join(others)}) need an issuer (--auth-issuer URL)")
        return None
    try:
        import httpx  # noqa: F401 - the verifiers need them: say so now, not on the first request
        import jwt  # noqa: F401
    except ImportError:
        raise UsageError("authorization needs PyJWT and httpx: pip install 'mcptrio[auth]'") from None
    if "introspection_url" in values:
        if not os.environ.get(SECRET_ENV):
            raise UsageError(f"introspection needs this server's client secret in ${SECRET_ENV}")
        values["client_secret"] = os.environ[SECRET_ENV]
    from ..auth.config import AuthConfig

    try:
        return AuthConfig(**values)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _scope_names(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or not all(isinstance(s, str) and s and " " not in s for s in value):
        raise UsageError(f"serve.auth.{where} must be a list of scope names, got {value!r}")
    return value


def _scope_table(value: Any, key: str) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise UsageError(f"serve.auth.{key} must be a table of name = [scopes]")
    return {name: _scope_names(scopes, f"{key}.{name}") for name, scopes in value.items()}
