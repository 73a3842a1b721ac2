"""Accessors the fixtures share."""

from __future__ import annotations

from typing import Any

from mcptrio import App, Context


def request_params(ctx: Context) -> dict[str, Any]:
    """The raw ``params`` of the request being served (to see whether it echoed a ``requestState``)."""
    return ctx.params


def app_of(ctx: Context) -> App:
    """The App serving this request (to send list-changed notifications)."""
    return ctx.app
