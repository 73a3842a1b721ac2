"""Server-sent events as the client reads them: each message's data, and the stream's last event
id and ``retry`` (what resuming a broken legacy stream needs: a GET with ``Last-Event-ID`` after
waiting ``retry`` milliseconds)."""

from __future__ import annotations

from collections.abc import AsyncIterator

DEFAULT_RETRY = 1.0  # seconds before a reconnection, when the server named none
MAX_RETRY = 60.0  # a server's retry longer than this is taken as this


class EventStream:
    """The state of one logical stream across its connections."""

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.retry: float = DEFAULT_RETRY

    async def messages(self, lines: AsyncIterator[str]) -> AsyncIterator[str]:
        """The data of each event on one connection, in order (an event without data — the
        priming event, which only carries an id — yields nothing)."""
        data: list[str] = []
        async for line in lines:
            if line == "":
                if data:
                    joined, data = "\n".join(data), []
                    if joined:
                        yield joined
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field == "id" and "\0" not in value:
                self.last_id = value
            elif field == "retry" and value.isdigit():
                self.retry = min(int(value) / 1000, MAX_RETRY)
