"""Who made a request: what a verified access token says about its bearer."""

from __future__ import annotations

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
