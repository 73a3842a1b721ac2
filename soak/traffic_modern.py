"""Modern (2026-07-28) stateless traffic: echo, sleep, server/discover and tools/list with the
``_meta`` envelope and headers."""

from __future__ import annotations

from typing import Any

from client_base import random_text
from limits import MODERN_VERSION
from traffic_cancel import CancelTraffic

from tests.transports.http.client import modern


class ModernTraffic(CancelTraffic):
    """The modern calls scenario; some sleeps are closed early."""

    async def modern_call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = self.next_id()
        body, headers = modern(method, params, request_id)
        response = await self.post(body, headers)
        result = self.result(response, request_id)
        meta = result.get("_meta") or {}
        if "io.modelcontextprotocol/serverInfo" not in meta or result.get("resultType") != "complete":
            raise self.fail("wrong_answer", f"modern {method}: result without serverInfo/resultType: {result!r:.300}")
        return result

    async def modern_calls(self) -> None:
        for _ in range(self.rng.randint(2, 8)):
            roll = self.rng.random()
            if roll < 0.55:
                text = random_text(self.rng)
                result = await self.modern_call("tools/call", {"name": "echo", "arguments": {"text": text}})
                self.check_text(result, text, "modern echo", modern_era=True)
            elif roll < 0.7:
                ms = self.rng.choice((1, 20, 100, 300))
                self.tally.events["sleeps_sent"] += 1
                result = await self.modern_call("tools/call", {"name": "sleep", "arguments": {"ms": ms}})
                self.check_text(result, f"slept {ms} ms", "modern sleep", modern_era=True)
                self.tally.events["sleeps_answered"] += 1
            elif roll < 0.8:
                result = await self.modern_call("server/discover", {})
                if MODERN_VERSION not in result.get("supportedVersions", []):
                    raise self.fail("wrong_answer", f"server/discover: {result!r:.300}")
                self.tally.ok()
            elif roll < 0.9:
                result = await self.modern_call("tools/list", {})
                if "echo" not in {t.get("name") for t in result.get("tools", [])}:
                    raise self.fail("wrong_answer", f"modern tools/list: {result!r:.300}")
                self.tally.ok()
            else:
                await self.cancel_by_closing({"mcp-protocol-version": MODERN_VERSION})
