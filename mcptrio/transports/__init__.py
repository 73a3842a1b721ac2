"""Bytes in and out: stdio, Streamable HTTP (its own h11 server), WebSocket, in-memory; HTTP-level concerns live here."""
