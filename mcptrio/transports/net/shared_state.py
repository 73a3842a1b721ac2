"""Serving with state shared between processes (``--state redis://…``), for every transport."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ...state import StateUnavailable

if TYPE_CHECKING:
    from ...app import App
    from ...state import StateUrl
    from ...state.redis import RedisState
    from .config import HttpConfig


@contextlib.asynccontextmanager
async def shared_state(app: App, state: str | StateUrl | None, config: HttpConfig) -> AsyncIterator[RedisState | None]:
    """Connect to the state store named by ``state`` (None: nothing shared) and hand it to ``app``
    for the block.  StateUnavailable (one line, no password) if it can't be reached."""
    if state is None or app.shared is not None:  # (already shared by the embedding program)
        yield app.shared
        return
    from ...state.url import parse_state_url

    url = parse_state_url(state) if isinstance(state, str) else state
    try:
        from ...state.redis import open_redis_state
    except ImportError:
        raise StateUnavailable("shared state needs coredis: pip install 'mcptrio[redis]'") from None
    async with open_redis_state(
        url, event_log_size=config.event_log_size, event_log_age=config.event_log_age or config.session_idle_timeout
    ) as shared:
        app.share_state(shared)
        try:
            yield shared
        finally:
            app.shared = None
