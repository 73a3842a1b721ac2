"""The API's credentials, read once at start from the environment or files: static headers, an API
key placed where the document's ``apiKey`` security scheme says (header, query or cookie), a
bearer token, or a user and password (basic).

They go on every request the plugin sends and nowhere else: not in a tool's schema (the parameters
they fill are left out of it), not in a log line, never the MCP caller's own token.
"""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .document import DocumentError


@attrs.frozen(repr=False)
class Credentials:
    headers: dict[str, str] = attrs.field(factory=dict)
    query: dict[str, str] = attrs.field(factory=dict)
    cookies: dict[str, str] = attrs.field(factory=dict)
    secrets: list[str] = attrs.field(factory=list)  # every value read from the environment or a file

    def __repr__(self) -> str:  # (never the values, in a log or a traceback)
        return (
            f"Credentials(headers={sorted(self.headers)}, query={sorted(self.query)}, cookies={sorted(self.cookies)})"
        )

    def hidden_parameters(self) -> list[tuple[str, str]]:
        """(location, name) of the parameters these fill in: no tool asks the model for them."""
        return [
            *(("header", name) for name in self.headers),
            *(("query", name) for name in self.query),
            *(("cookie", name) for name in self.cookies),
        ]


@attrs.frozen
class Secret:
    """Where a secret is read from: an environment variable or a file (its first line)."""

    env: str | None = None
    file: Path | None = None

    def __bool__(self) -> bool:
        return self.env is not None or self.file is not None

    def read(self, what: str) -> str:
        if self.env is not None:
            value = os.environ.get(self.env)
            if not value:
                raise DocumentError(f"{what}: the environment variable {self.env} is not set")
            return value
        assert self.file is not None
        try:
            return self.file.read_text().strip()
        except OSError as exc:
            raise DocumentError(f"{what}: cannot read {self.file}: {exc.strerror}") from None


class Redacted(logging.Filter):
    """Hides the secrets in the log records of httpx and httpcore (at debug, httpx logs each request's
    URL, which holds an API key given in the query)."""

    LOGGERS = ("httpx", "httpcore")

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [secret for secret in secrets if secret]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "***")
            record.msg, record.args = message, None
        return True

    def __enter__(self) -> Redacted:
        for name in self.LOGGERS:
            logging.getLogger(name).addFilter(self)
        return self

    def __exit__(self, *exc: object) -> None:
        for name in self.LOGGERS:
            logging.getLogger(name).removeFilter(self)


def api_key_scheme(document: Mapping[str, Any], wanted: str | None) -> tuple[str, str, str]:
    """(scheme name, location, parameter name) of the document's ``apiKey`` security scheme: the one
    named ``wanted``, or the only one."""
    schemes = document.get("components", {}).get("securitySchemes", {})
    keys = {
        name: scheme
        for name, scheme in (schemes.items() if isinstance(schemes, dict) else [])
        if isinstance(scheme, dict) and scheme.get("type") == "apiKey"
    }
    if wanted is not None:
        if wanted not in keys:
            raise DocumentError(f"plugins.openapi.api_key_scheme: no apiKey security scheme {wanted!r} in the document")
        keys = {wanted: keys[wanted]}
    if len(keys) != 1:
        raise DocumentError(
            "plugins.openapi.api_key: the document has "
            + (
                f"several apiKey security schemes ({', '.join(keys)}): name one in api_key_scheme"
                if keys
                else "no apiKey security scheme"
            )
        )
    ((name, scheme),) = keys.items()
    location, parameter = scheme.get("in"), scheme.get("name")
    if location not in ("header", "query", "cookie") or not isinstance(parameter, str):
        raise DocumentError(f"#/components/securitySchemes/{name}: an apiKey scheme needs 'in' and 'name'")
    return name, location, parameter


def credentials(
    document: Mapping[str, Any],
    *,
    headers: Mapping[str, str] | None = None,
    bearer: Secret = Secret(),
    basic_user: str | None = None,
    basic_password: Secret = Secret(),
    api_key: Secret = Secret(),
    api_key_scheme_name: str | None = None,
) -> Credentials:
    """What every request carries, each secret read now (``DocumentError`` when one is missing)."""
    out = Credentials(headers=dict(headers or {}))
    out.secrets.extend(out.headers.values())
    if bearer:
        token = bearer.read("plugins.openapi.bearer")
        out.headers["Authorization"] = f"Bearer {token}"
        out.secrets.append(token)
    if basic_user is not None:
        password = basic_password.read("plugins.openapi.basic_password") if basic_password else ""
        token = base64.b64encode(f"{basic_user}:{password}".encode()).decode()
        out.headers["Authorization"] = f"Basic {token}"
        out.secrets.extend((password, token))
    if api_key:
        _, location, parameter = api_key_scheme(document, api_key_scheme_name)
        place = {"header": out.headers, "query": out.query, "cookie": out.cookies}[location]
        place[parameter] = api_key.read("plugins.openapi.api_key")
        out.secrets.append(place[parameter])
    return out
