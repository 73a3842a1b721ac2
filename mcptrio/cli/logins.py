"""Which login a client command uses for a protected HTTP or WebSocket server: ``mcptrio.client.oauth.OAuth``
with the user's token store, that logs in when the command runs on a terminal and otherwise uses
the stored tokens only (a server that needs a login then says to run ``mcptrio auth login``)."""

from __future__ import annotations

import sys
from typing import Any

from ..client.urls import is_url


def on_terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def login_for(target: Any, token: str | None, verify: Any) -> Any:
    """A protected HTTP or WebSocket server's login (``mcptrio.client.oauth.OAuth`` with the user's token
    store): started here on a terminal, else only the stored tokens (``mcptrio auth login``'s)."""
    if token is not None or not isinstance(target, str) or not is_url(target):
        return None
    from ..client.oauth import OAuth

    return OAuth(interactive=on_terminal(), verify=verify)


# -- the commands ---------------------------------------------------------------------------------
