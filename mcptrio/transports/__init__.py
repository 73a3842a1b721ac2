"""Bytes in and out: stdio, Streamable HTTP (on mcptrio's own HTTP/1.1 server or hypercorn), WebSocket,
in-memory; net/ holds what HTTP and WebSocket share."""
