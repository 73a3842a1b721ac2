"""Bytes in and out: stdio, Streamable HTTP (hypercorn), WebSocket, in-memory; HTTP-level concerns live here."""
