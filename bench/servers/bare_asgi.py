"""The floor under every HTTP figure: a minimal ASGI app answering a fixed JSON-RPC result.

    python bare_asgi.py --server mcptrio --port N     # mcptrio's own HTTP/1.1 server, as `mcptrio serve` runs it
    python bare_asgi.py --server uvicorn --port N     # uvicorn on asyncio, as the SDK uses it
    (on stock hypercorn: on_hypercorn.py bare)

It reads the request body and answers 200 ``application/json`` with a constant body the size
of an echo answer, so its rate is what the HTTP server and the client alone can do.
"""

from __future__ import annotations

import argparse
import signal

BODY = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            break
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", choices=("mcptrio", "uvicorn"), required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    # It stops on SIGINT (Ctrl-C, or the bench), also when started from a shell that has it
    # ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.server == "uvicorn":
        import uvicorn

        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
        return
    import trio

    from mcptrio.transports.http.server.http11_server import Http11Server

    async def serve() -> None:  # the settings serve_http uses (mcptrio/transports/http/serving.py)
        listeners = await trio.open_tcp_listeners(args.port, host=args.host)
        await Http11Server(app, header_timeout=30, max_head_size=64 * 1024).serve(listeners, trio.sleep_forever)

    trio.run(serve)


if __name__ == "__main__":
    main()
