"""Who made a request: what a verified access token says about its bearer."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import attrs


@attrs.frozen
class Principal:
    """The bearer of a verified token, as handlers see it (``ctx.auth``).

    ``binding`` is what a client's state is bound to (legacy sessions, sealed ``requestState``,
    listen streams): the issuer, the subject and the OAuth client together, so the same user
    through another client, or a token from another issuer, is someone else.
    """

    subject: str
    client_id: str | None
    scopes: frozenset[str]
    expires_at: float | None  # seconds since the epoch (the token's exp), None if it does not say
    issuer: str
    claims: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    @property
    def binding(self) -> str:
        return f"{self.issuer}\x00{self.subject}\x00{self.client_id or ''}"

    def has(self, scopes: frozenset[str] | set[str]) -> bool:
        return scopes <= self.scopes


ClientKey = tuple[str, Hashable]  # ("principal", subject), ("address", address) or ("session", key)


def client_key(principal: Principal | None, address: str | None, session: Hashable = None) -> ClientKey:
    """Whom a request or stream counts against: the token's subject, else the network address, else
    the session (stdio, in-process)."""
    if principal is not None:
        return ("principal", principal.subject)
    if address is None and session is not None:
        return ("session", session)
    return ("address", address)
