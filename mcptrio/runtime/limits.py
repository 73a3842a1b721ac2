"""Every knob that bounds a session, in one frozen place."""

from __future__ import annotations

import attrs

from ..framing import DEFAULT_MAX_MESSAGE_SIZE


@attrs.frozen(kw_only=True)
class SessionLimits:
    """Limits and timeouts of one session; each is configurable, each is answered clearly."""

    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    max_in_flight: int = 256  # concurrent requests per session
    request_timeout: float = 300.0  # seconds a handler may run (per-request deadline)
    client_request_timeout: float = 60.0  # seconds to wait for the client to answer us
    shutdown_grace: float = 5.0  # seconds in-flight requests get to finish at shutdown
    outbox_size: int = 256  # messages queued for the writer before workers wait
    input_state_ttl: float = 600.0  # seconds a sealed requestState stays valid (2026-07-28)
