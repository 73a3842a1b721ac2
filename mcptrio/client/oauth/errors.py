"""The errors of the client's OAuth: one line each, saying what went wrong and what to do."""

from __future__ import annotations


class AuthorizationError(Exception):
    """The client could not get (or was refused) a token for the server."""


class LoginRequired(AuthorizationError):
    """The server wants a token, none is stored, and logging in needs a user who is not there."""

    def __init__(self, server_url: str) -> None:
        super().__init__(f"{server_url} needs a login: run `mcptrio auth login {server_url}`")
        self.server_url = server_url
