"""The loopback redirect (RFC 8252 §7.3): a listener on 127.0.0.1 that takes the browser's one
authorization response, and the default way to send the user there.

``loopback_redirect()`` listens on a free port (or the one asked) and yields a ``Loopback``:
its ``redirect_uri`` goes in the request, ``await callback()`` returns the URL the browser was
sent to.  ``open_browser(url)`` opens the user's browser when there is a display, and always
prints the URL on stderr, so a user without one can open it elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import sys
import webbrowser
from collections.abc import AsyncIterator

import h11
import trio

from .errors import AuthorizationError

PAGE = (
    b"<!doctype html><meta charset=utf-8><title>mcptrio</title>"
    b"<p>Done: you can close this window and go back to the program.</p>"
)
MAX_HEAD = 16 * 1024


class Loopback:
    def __init__(self, port: int) -> None:
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        self._arrived = trio.Event()
        self._url: str | None = None

    async def callback(self, timeout: float) -> str:
        """The URL the authorization server sent the browser to (its query carries the answer)."""
        with trio.move_on_after(timeout):
            await self._arrived.wait()
        if self._url is None:
            raise AuthorizationError(f"no authorization response reached {self.redirect_uri} within {timeout:g} s")
        return self._url

    async def serve(self, stream: trio.SocketStream) -> None:
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        try:
            with trio.move_on_after(30):
                while True:
                    event = connection.next_event()
                    if event is h11.NEED_DATA:
                        data = await stream.receive_some(65536)
                        if not data:
                            return
                        connection.receive_data(data)
                        continue
                    if not isinstance(event, h11.Request):
                        return
                    target = event.target.decode("latin-1")
                    ours = event.method == b"GET" and target.split("?", 1)[0] == "/callback"
                    first = ours and self._url is None
                    body = PAGE if ours else b"not found"
                    headers = [
                        ("content-type", "text/html; charset=utf-8" if ours else "text/plain"),
                        ("content-length", str(len(body))),
                        ("connection", "close"),
                    ]
                    await stream.send_all(
                        connection.send(h11.Response(status_code=200 if ours else 404, headers=headers)) or b""
                    )
                    await stream.send_all(connection.send(h11.Data(data=body)) or b"")
                    await stream.send_all(connection.send(h11.EndOfMessage()) or b"")
                    if first:  # (after the page was sent: the listener closes once it is told)
                        self._url = self.redirect_uri + target[len("/callback") :]
                        self._arrived.set()
                    return
        except (h11.RemoteProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            await trio.aclose_forcefully(stream)


@contextlib.asynccontextmanager
async def loopback_redirect(port: int = 0) -> AsyncIterator[Loopback]:
    """Listen on 127.0.0.1 (``port`` 0: a free one) for the length of the block."""
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    bound = listeners[0].socket.getsockname()[1]
    loopback = Loopback(bound)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, loopback.serve, listeners)
        try:
            yield loopback
        finally:
            nursery.cancel_scope.cancel()


async def open_browser(url: str) -> None:
    """Open ``url`` in the user's browser when there is a display; print it on stderr in any case."""
    print(f"To log in, open this address in a browser:\n  {url}", file=sys.stderr, flush=True)
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform == "darwin":
        # (webbrowser without a display would start a text browser in this terminal)
        await trio.to_thread.run_sync(webbrowser.open, url)
