"""What a ``WWW-Authenticate`` header asks for (RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1).

Sans-I/O: a header value in, the challenges it carries out, each a scheme and its parameters.
"""

from __future__ import annotations

import re

import attrs

# One auth-param: a token name, "=", then a quoted string (with backslash escapes) or a token.
_PARAM = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')
_SCHEME = re.compile(r"\s*,?\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?=\s|$|,)")


@attrs.frozen
class Challenge:
    scheme: str  # lowercased: "bearer", "dpop"
    params: dict[str, str]

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def scopes(self) -> list[str]:
        return self.params.get("scope", "").split()

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata")


def parse_challenges(header: str) -> list[Challenge]:
    """Every challenge in a ``WWW-Authenticate`` value (several may share one header)."""
    found: list[Challenge] = []
    position = 0
    while position < len(header):
        scheme = _SCHEME.match(header, position)
        if scheme is None:
            break
        position = scheme.end()
        params: dict[str, str] = {}
        while True:
            param = _PARAM.match(header, position)
            if param is None:
                break
            value = param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            params[param.group(1).lower()] = value
            position = param.end()
        found.append(Challenge(scheme.group(1).lower(), params))
    return found


def challenge_of(headers: list[str]) -> Challenge | None:
    """The Bearer (or DPoP) challenge among a response's ``WWW-Authenticate`` headers, if any."""
    challenges = [c for header in headers for c in parse_challenges(header)]
    for scheme in ("dpop", "bearer"):
        for challenge in challenges:
            if challenge.scheme == scheme and challenge.params:
                return challenge
    return next((c for c in challenges if c.scheme in ("bearer", "dpop")), None)
