"""One simulated client's machinery: its HTTP client and ids, the loop running random scenarios, request helpers."""

from __future__ import annotations

import collections
import json
import random
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import trio
from answer_checks import AnswerChecks
from limits import HTTP_TIMEOUT, SCENARIO_TIMEOUT
from server_process import Server
from tally import Failed, Tally


def describe(body: Any, raw: bytes | None) -> str:
    """A few words naming a request, for the trail of requests in an error report."""
    if raw is not None:
        return f"raw {raw[:24]!r}"
    if isinstance(body, list):
        return f"batch of {len(body)}"
    if isinstance(body, dict):
        params = body.get("params") if isinstance(body.get("params"), dict) else {}
        return " ".join(str(part) for part in (body.get("method"), params.get("name"), body.get("id")) if part)
    return f"{type(body).__name__} body"


def random_text(rng: random.Random) -> str:
    alphabet = "abcxyz 0123456789 \"\\/\n\t{}[]:,'é中文😀\u2028\u00a0"
    size = rng.choice((0, 1, 8, 64, 512, 2048))
    if rng.random() < 0.03:  # a large answer (ASCII, so its JSON stays well under the message limit)
        return "".join(rng.choice("abcdefghij 0123456789") for _ in range(30_000))
    return "".join(rng.choice(alphabet) for _ in range(size))


class ClientBase(AnswerChecks):
    """Runs randomly chosen ``scenarios`` (set by the subclass) until the deadline or ``max_iterations``."""

    scenarios: list[tuple[Callable[[], Any], int]]  # (scenario, weight)

    def __init__(
        self, number: int, server: Server, tally: Tally, rng: random.Random, sessions: set[str], max_message_size: int
    ) -> None:
        self.number = number
        self.server = server
        self.url = server.url
        self.tally = tally
        self.rng = rng
        self.sessions = sessions  # every legacy session opened and not yet deleted (shared)
        self.limit = max_message_size
        self.ids = 0
        self.client = httpx.AsyncClient(trust_env=False, timeout=httpx.Timeout(HTTP_TIMEOUT))
        self.scenario = ""
        self.trail: collections.deque[str] = collections.deque(maxlen=4)  # the last requests, for reports

    def next_id(self) -> str:
        self.ids += 1
        return f"c{self.number}-{self.ids}"

    async def run(self, deadline: float, max_iterations: int) -> None:
        functions = [f for f, _ in self.scenarios]
        weights = [w for _, w in self.scenarios]
        async with self.client:
            for _ in range(max_iterations):
                if trio.current_time() >= deadline or not self.server.alive():
                    return
                scenario = self.rng.choices(functions, weights)[0]
                self.scenario = scenario.__name__
                self.tally.scenarios[self.scenario] += 1
                try:
                    with trio.fail_after(SCENARIO_TIMEOUT):
                        await scenario()
                except Failed:
                    pass
                except trio.TooSlowError:
                    self.tally.bad("timeout", self.scenario, f"scenario did not finish within {SCENARIO_TIMEOUT} s")
                except (httpx.HTTPError, OSError, trio.BrokenResourceError) as exc:
                    if not self.server.alive():
                        return
                    # A request the server dropped without an answer (connection closed or reset).
                    dropped = "without sending a response" in str(exc)
                    self.report("connection_dropped" if dropped else "transport_error", f"{type(exc).__name__}: {exc}")
                except Exception as exc:  # an answer shaped so oddly that checking it failed
                    self.report("client_exception", "".join(traceback.format_exception_only(type(exc), exc)).strip())

    # -- request helpers ----------------------------------------------------------------------------

    def note(self, label: str) -> None:
        self.trail.append(label)

    def count(self, label: str) -> None:
        """One more request sent, named in the trail."""
        self.tally.requests += 1
        self.note(label)

    async def post(self, body: Any, headers: dict[str, str], *, raw: bytes | None = None) -> httpx.Response:
        """POST, read the whole answer, and check what every answer must be (no 5xx, no traceback)."""
        self.count(describe(body, raw))
        content = raw if raw is not None else json.dumps(body).encode()
        response = await self.client.post(self.url, content=content, headers=headers)
        self.check_common(response)
        return response
