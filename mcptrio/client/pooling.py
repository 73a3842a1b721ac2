"""How long the client keeps an idle HTTP connection for its next request (the MCP connection's and
the OAuth requests' alike): less than the 5 seconds after which many servers (Node's, uvicorn's)
close one, so that a request is not sent on a connection the server is closing."""

KEEPALIVE_EXPIRY = 2.0  # seconds
