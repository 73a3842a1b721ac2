"""A general HTTP/1.1 server for ASGI apps on Trio, and hypercorn run the same way: no MCP in it.

``Http11Server`` (http11_server.py) reads requests with its own parser (rfc9112.py's
``RequestParser``) and writes each response in one send; ``hypercorn_server.py`` runs
hypercorn's protocol on the connections it accepts, for HTTP/2 and hypercorn's own hardening.
Both share rfc9112.py (accepting, the connection limit, TLS through ``trio.SSLStream``, the
write lock, lingering close; what is refused before the app sees it, how a response is framed)
and lifespan.py (the ASGI lifespan).  An import-linter contract keeps MCP out: the MCP endpoint
(``transports/http``) is an ASGI app like any other here.
"""
