"""How the shared state fails, as the layers above it see it."""


class StateUnavailable(Exception):
    """The shared state cannot be reached now; the request may be retried (HTTP 503, -31503)."""

    retry_after = 1
