"""Clients that keep calling through failures and count what happened to every request: the
kill and restart tests report sent, answered, failed (answered with an error: never re-run),
retried (sent again: nothing to resume from), lost and duplicated."""

from __future__ import annotations

import collections
import itertools
from typing import Any

import httpx
import trio

from ..transports.http.client import SseReader, call_tool, initialize, legacy_headers, resume_headers

RETRYABLE = (httpx.TransportError,)


class Counts:
    def __init__(self) -> None:
        self.c: collections.Counter[str] = collections.Counter()
        self.responses: collections.Counter[Any] = collections.Counter()

    def __getitem__(self, key: str) -> int:
        return self.c[key]

    @property
    def duplicated(self) -> int:
        return sum(n - 1 for n in self.responses.values() if n > 1)

    def report(self) -> str:
        keys = ("sent", "answered", "failed", "retried", "resumed", "lost")
        return ", ".join(f"{k} {self.c[k]}" for k in keys) + f", duplicated {self.duplicated}"


async def calling_client(url: str, counts: Counts, name: str, calls: int, ms: int) -> None:
    """One legacy session making ``calls`` slow calls one after another, through anything."""
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        session_id = None
        for _attempt in range(100):
            try:
                session_id = await initialize(http, url)
                break
            except (AssertionError, *RETRYABLE):
                await trio.sleep(0.1)
        assert session_id is not None, "could not open a session"
        for n in range(calls):
            request_id = f"{name}-{n}"
            counts.c["sent"] += 1
            for _tries in itertools.count():
                outcome = await _one(http, url, session_id, request_id, ms, counts)
                if outcome != "retry":
                    break
                counts.c["retried"] += 1
                await trio.sleep(0.1)
            counts.c[outcome] += 1


async def _one(http: httpx.AsyncClient, url: str, session_id: str, request_id: str, ms: int, counts: Counts) -> str:
    last = None
    try:
        async with http.stream(
            "POST", url, json=call_tool("sleep", {"ms": ms}, request_id), headers=legacy_headers(session_id)
        ) as response:
            if response.status_code in (503, 404):
                return "retry"  # (404: a worker adopting a session that Redis lost is not expected here)
            assert response.status_code == 200, response.status_code
            outcome, last = await _read(SseReader(response), request_id, counts)
            if outcome is not None:
                return outcome
    except RETRYABLE:
        pass
    if last is None:
        return "retry"  # no event id: the request never ran or can't be resumed: send it again
    for _ in range(50):
        try:
            async with http.stream("GET", url, headers=resume_headers(session_id, last)) as response:
                if response.status_code == 503:
                    await trio.sleep(0.1)
                    continue
                if response.status_code == 404:
                    return "retry"  # no event of its stream reached the shared log: it never got far
                counts.c["resumed"] += 1
                outcome, seen = await _read(SseReader(response), request_id, counts)
                last = seen or last
                if outcome is not None:
                    return outcome
        except RETRYABLE:
            await trio.sleep(0.1)
    return "lost"


async def _read(reader: SseReader, request_id: str, counts: Counts) -> tuple[str | None, str | None]:
    last = None
    while (event := await reader.next()) is not None:
        if event.id:
            last = event.id
        if event.data:
            message = event.message
            if message.get("id") == request_id and "method" not in message:
                counts.responses[request_id] += 1
                return ("answered" if "result" in message else "failed"), last
    return None, last
