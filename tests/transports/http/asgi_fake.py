"""One POST driven through an ASGI app by hand (no HTTP server): what it sends, and leaving on cue."""

import orjson
import trio

HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
]


class FakeRequest:
    """One POST through the ASGI app: its body, then ``http.disconnect`` when ``leave`` is set."""

    def __init__(self, body, headers):
        self.scope = {
            "type": "http",
            "method": "POST",
            "path": "/mcp",
            "query_string": b"",
            "headers": HEADERS + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        }
        self.body = orjson.dumps(body)
        self.leave = trio.Event()
        self.sent = []
        self.done = trio.Event()

    async def receive(self):
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message):
        self.sent.append(message)
        if not message.get("more_body", True):
            self.leave.set()  # as ASGI servers do once the response is complete

    async def run(self, asgi):
        try:
            await asgi(self.scope, self.receive, self.send)
        finally:
            self.done.set()


def body_writes(request):
    return [m["body"] for m in request.sent if m["type"] == "http.response.body"]
