"""A user's login with ``mcptrio.client.oauth.OAuth`` against the real authorization server
(oidc-provider): dynamic registration, authorization code + PKCE through the loopback redirect,
its login and consent pages driven over HTTP as a browser would; then calls to an mcptrio server
protected by it, a refresh after the token expired, and step-up to a wider scope.  Tokens kept per
(authorization server, resource): shared by two servers, not reused after a server moved to another
authorization server.  The same over WebSocket: the login on the upgrade's 401, step-up on its 403."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import httpx
import hypercorn.config
import hypercorn.trio
import pytest
import trio

import mcptrio.client
from mcptrio.auth import InsufficientScope, Principal
from mcptrio.auth.jwt_verifier import JwtVerifier
from mcptrio.client import McpError
from mcptrio.client.oauth import FileTokenStore, LoginRequired, OAuth
from mcptrio.transports.http import HttpConfig, McpHttpApp
from mcptrio.transports.websocket import serve_websocket

from .authserver import AuthServer
from .test_resource_server import free_port, make_app, served

MCPTRIO = [sys.executable, "-m", "mcptrio"]


class Forms(HTMLParser):
    """The forms of a page: each one's action and its inputs' names and values."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attributes: list[tuple[str, str | None]]) -> None:
        found = dict(attributes)
        if tag == "form":
            self.forms.append((found.get("action") or "", {}))
        elif tag == "input" and self.forms and found.get("name"):
            self.forms[-1][1][found["name"] or ""] = found.get("value") or ""


class Browser:
    """A user at a browser: opens the authorization page, logs in, consents; the last redirect
    lands on the client's loopback listener."""

    def __init__(self) -> None:
        self.logins = 0
        self.pages: list[str] = []  # the prompt of each form answered

    async def __call__(self, url: str) -> None:
        self.logins += 1
        async with httpx.AsyncClient(follow_redirects=True, trust_env=False, timeout=10) as browser:
            page = await browser.get(url)
            for _ in range(5):  # login, then consent (the last answer is the loopback's page)
                parser = Forms()
                parser.feed(page.text)
                if not parser.forms:
                    break
                action, fields = parser.forms[0]
                self.pages.append(fields.get("prompt") or "")
                if "login" in fields:
                    fields.update(login="ada", password="anything")
                page = await browser.post(urljoin(str(page.url), action), data=fields)
        assert "you can close this window" in page.text, page.text[:500]


async def test_login_call_refresh_and_step_up(auth_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    browser = Browser()
    store = FileTokenStore(tmp_path / "oauth")
    # (/short/: the authorization server makes tokens for this resource that live 2 seconds)
    async with served(make_app(auth_server.issuer), path="/short/mcp") as url:
        auth = OAuth(store=store, user_agent=browser, timeout=20)
        with trio.fail_after(60):
            async with mcptrio.client.connect(url, era="legacy", auth=auth) as client:
                first = await client.call_tool("whoami")
                assert not first.is_error and '"mcp:read"' in first.content[0].text
                assert browser.logins == 1 and browser.pages == ["login", "consent"], browser.pages
                assert auth.session is not None and auth.session.tokens.refresh_token

                await trio.sleep(2.5)  # the access token has expired: refreshed, no new login
                old = auth.session.tokens.access_token
                assert not (await client.call_tool("whoami")).is_error
                assert browser.logins == 1 and auth.session.tokens.access_token != old

                wrote = await client.call_tool("write_file", {"path": "a.txt"})  # needs files:write: step-up
                assert wrote.content[0].text == "wrote a.txt" and browser.logins == 2
                assert {"mcp:read", "files:write"} <= set(auth.session.scopes)

        # kept for the next run, readable by the user alone, no refresh token in the logs
        files = list((tmp_path / "oauth").iterdir())
        assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
        assert stat.S_IMODE((tmp_path / "oauth").stat().st_mode) == 0o700
        assert auth.session.tokens.refresh_token not in caplog.text

        with trio.fail_after(30):
            again = OAuth(store=store, interactive=False)  # a later run: the stored tokens, refreshed
            async with mcptrio.client.connect(url, auth=again) as client:
                assert not (await client.call_tool("write_file", {"path": "b.txt"})).is_error
        assert browser.logins == 2


async def test_without_a_user_a_login_is_a_clear_error(auth_server, tmp_path):
    async with served(make_app(auth_server.issuer)) as url:
        with trio.fail_after(30), pytest.raises(McpError) as raised:
            async with mcptrio.client.connect(url, auth=OAuth(store=FileTokenStore(tmp_path), interactive=False)):
                pass
        assert str(LoginRequired(url)) in str(raised.value)


async def test_the_cli_logs_in_keeps_the_login_and_logs_out(auth_server, tmp_path):
    """``mcptrio auth login URL`` prints the address (no display here); a browser follows it; the
    tokens are kept for ``mcptrio call`` (not on a terminal), until ``mcptrio auth logout``."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_CONFIG_HOME"] = str(tmp_path)
    browser = Browser()

    async def mcptrio(*args: str) -> subprocess.CompletedProcess[bytes]:
        return await trio.run_process([*MCPTRIO, *args], capture_stdout=True, capture_stderr=True, check=False, env=env)

    async with served(make_app(auth_server.issuer)) as url:
        with trio.fail_after(90):
            process = await trio.lowlevel.open_process(
                [*MCPTRIO, "auth", "login", url], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            seen = b""
            while b"in a browser:\n  " not in seen or not seen.endswith(b"\n"):  # (the address, whole)
                chunk = await process.stderr.receive_some(4096)
                assert chunk, seen
                seen += chunk
            address = seen.decode().split("open this address in a browser:\n", 1)[1].split()[0]
            await browser(address)
            assert await process.wait() == 0
            said = (await process.stdout.receive_some(4096)).decode()
            assert said.startswith(f"logged in to {url} at {auth_server.issuer}"), said

            status = await mcptrio("auth", "status", "--json")
            [row] = json.loads(status.stdout)
            assert row["server"] == url and row["issuer"] == auth_server.issuer and row["refreshable"]
            assert b"access_token" not in status.stdout and b"eyJ" not in status.stdout

            called = await mcptrio("call", url, "whoami")  # (not a terminal: the kept tokens only)
            assert called.returncode == 0 and b"mcp:read" in called.stdout, called.stderr

            assert (await mcptrio("auth", "logout", url)).stdout.decode().startswith(f"logged out of {url}")
            refused = await mcptrio("call", url, "whoami")
            assert refused.returncode == 2
            assert (
                refused.stderr.decode().strip()
                == f"mcptrio: error: {url} needs a login: run `mcptrio auth login {url}`"
            )


async def kept(store: FileTokenStore) -> tuple[dict[str, dict[str, str]], set[str]]:
    """The store's index (server URL -> its issuer and resource) and its token entries' keys."""
    entries = await store.entries()
    index = {key.removeprefix("server "): json.loads(value) for key, value in entries.items() if key[:7] == "server "}
    return index, {key for key in entries if key.startswith("tokens ")}


async def test_two_servers_of_one_resource_share_a_login(auth_server, tmp_path, caplog):
    """Two MCP servers behind one origin (/mcp/a, /mcp/b), both the resource /mcp of one
    authorization server: the login to the first serves the second (after its discovery)."""
    caplog.set_level(logging.DEBUG)
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    apps = {name: make_app(auth_server.issuer, public_url=resource) for name in "ab"}
    endpoints = {name: McpHttpApp(app, HttpConfig(path=f"/mcp/{name}")) for name, app in apps.items()}

    async def proxy(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # (the apps run around the server, below)
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
        else:  # (the resource metadata, at the origin, is the same in both)
            await endpoints["b" if scope["path"].startswith("/mcp/b") else "a"](scope, receive, send)

    config = hypercorn.config.Config()
    config.bind, config.accesslog, config.graceful_timeout = [f"127.0.0.1:{port}"], None, 1
    browser = Browser()
    store = FileTokenStore(tmp_path / "oauth")
    stop = trio.Event()
    with trio.fail_after(60):
        async with apps["a"].running(), apps["b"].running(), trio.open_nursery() as nursery:
            await nursery.start(functools.partial(hypercorn.trio.serve, proxy, config, shutdown_trigger=stop.wait))
            first = OAuth(store=store, user_agent=browser, timeout=20)
            async with mcptrio.client.connect(f"{resource}/a", auth=first) as client:
                assert not (await client.call_tool("whoami")).is_error and browser.logins == 1
            second = OAuth(store=store, interactive=False)  # (no user: a login would fail)
            async with mcptrio.client.connect(f"{resource}/b", auth=second) as client:
                assert not (await client.call_tool("whoami")).is_error
            stop.set()
    assert browser.logins == 1 and second.session is not None
    assert second.session.tokens.access_token == first.session.tokens.access_token
    index, tokens = await kept(store)
    where = {"issuer": auth_server.issuer, "resource": resource}
    assert index == {f"{resource}/a": where, f"{resource}/b": where}
    assert tokens == {f"tokens {auth_server.issuer} {resource}"}
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in (tmp_path / "oauth").iterdir())
    assert first.session.tokens.refresh_token and first.session.tokens.refresh_token not in caplog.text


async def test_a_server_moved_to_another_authorization_server_gets_a_token_of_that_one(auth_server, tmp_path, caplog):
    """The same URL, restarted behind another authorization server: the old one's token is refused,
    the new one logs the user in, the index follows; the old login stays kept (another server of
    that authorization server and resource may use it)."""
    caplog.set_level(logging.DEBUG)
    browser = Browser()
    store = FileTokenStore(tmp_path / "oauth")
    port = free_port()
    with AuthServer() as moved_to, trio.fail_after(90):
        async with served(make_app(auth_server.issuer), port=port) as url:
            async with mcptrio.client.connect(url, auth=OAuth(store=store, user_agent=browser, timeout=20)) as client:
                assert not (await client.call_tool("whoami")).is_error
        async with served(make_app(moved_to.issuer), port=port) as url:
            auth = OAuth(store=store, user_agent=browser, timeout=20)
            async with mcptrio.client.connect(url, auth=auth) as client:
                assert not (await client.call_tool("whoami")).is_error
            assert browser.logins == 2 and auth.session is not None and auth.session.issuer == moved_to.issuer
            later = OAuth(store=store, interactive=False)  # a later run: the new login, straight from the index
            async with mcptrio.client.connect(url, auth=later) as client:
                assert not (await client.call_tool("whoami")).is_error
            assert later.session is not None and later.session.issuer == moved_to.issuer
        index, tokens = await kept(store)
        assert index == {url: {"issuer": moved_to.issuer, "resource": url}}
        assert tokens == {f"tokens {auth_server.issuer} {url}", f"tokens {moved_to.issuer} {url}"}
    assert auth.session.tokens.refresh_token not in caplog.text


@contextlib.asynccontextmanager
async def served_over_websocket(app: mcptrio.App, path: str = "/mcp") -> AsyncIterator[str]:
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        yield await nursery.start(
            functools.partial(serve_websocket, app, port=0, path=path, shutdown_trigger=stop.wait)
        )
        stop.set()


async def test_login_over_websocket_then_a_refreshed_token_on_the_next_upgrade(auth_server, tmp_path, caplog):
    """A ws:// server refuses the upgrade with 401: the client reads the resource metadata at the
    http:// origin, logs the user in, and upgrades again with the token.  A later connection
    whose token has expired upgrades with a refreshed one, no new login."""
    caplog.set_level(logging.DEBUG)
    browser = Browser()
    store = FileTokenStore(tmp_path / "mcptrio" / "oauth")  # (where the CLI looks, below)
    # (/short/: the authorization server makes tokens for this resource that live 2 seconds)
    async with served_over_websocket(make_app(auth_server.issuer), path="/short/mcp") as url:
        resource = "http" + url[len("ws") :]
        first = OAuth(store=store, user_agent=browser, timeout=20)
        with trio.fail_after(60):
            async with mcptrio.client.connect(url, auth=first) as client:
                who = await client.call_tool("whoami")
                assert not who.is_error and '"mcp:read"' in who.content[0].text
            assert browser.logins == 1 and first.session is not None and first.session.resource == resource
            await trio.sleep(2.5)
            later = OAuth(store=store, interactive=False)
            async with mcptrio.client.connect(url, auth=later, era="legacy") as client:
                assert not (await client.call_tool("whoami")).is_error
        assert browser.logins == 1 and later.session is not None
        assert later.session.tokens.access_token != first.session.tokens.access_token
    index, tokens = await kept(store)
    assert index == {resource: {"issuer": auth_server.issuer, "resource": resource}}
    assert tokens == {f"tokens {auth_server.issuer} {resource}"}
    assert later.session.tokens.refresh_token and later.session.tokens.refresh_token not in caplog.text

    # the CLI sees the login (under the http twin), and forgets it given the ws:// URL
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}

    async def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return await trio.run_process([*MCPTRIO, *args], capture_stdout=True, capture_stderr=True, check=False, env=env)

    with trio.fail_after(60):
        [row] = json.loads((await cli("auth", "status", "--json")).stdout)
        assert (row["server"], row["issuer"], row["resource"]) == (resource, auth_server.issuer, resource)
        logout = await cli("auth", "logout", url)
        assert logout.stdout.decode().startswith(f"logged out of {url}"), logout.stderr
        assert json.loads((await cli("auth", "status", "--json")).stdout) == []


async def test_over_websocket_without_a_user_a_login_is_a_clear_error(auth_server, tmp_path):
    async with served_over_websocket(make_app(auth_server.issuer)) as url:
        with trio.fail_after(30), pytest.raises(McpError) as raised:
            async with mcptrio.client.connect(url, auth=OAuth(store=FileTokenStore(tmp_path), interactive=False)):
                pass
        assert raised.value.message == f"{url} needs a login: run `mcptrio auth login {url}`"
        assert raised.value.data == {"authorization": True}


class WritersOnly:
    """A token verifier that lets in only tokens with ``files:write``: the upgrade is refused with
    ``403 insufficient_scope`` (mcptrio's own WebSocket server checks scopes per message)."""

    def __init__(self, inner: JwtVerifier) -> None:
        self.inner = inner

    async def verify(self, token: str) -> Principal:
        principal = await self.inner.verify(token)
        if "files:write" not in principal.scopes:
            raise InsufficientScope(frozenset({"mcp:read", "files:write"}))
        return principal

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_over_websocket_a_403_insufficient_scope_at_the_upgrade_steps_up(auth_server, tmp_path):
    port = free_port()
    verifier = WritersOnly(JwtVerifier(auth_server.issuer, f"http://127.0.0.1:{port}/mcp", leeway=0))
    browser = Browser()
    auth = OAuth(store=FileTokenStore(tmp_path), user_agent=browser, timeout=20)
    stop = trio.Event()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            app = make_app(auth_server.issuer, verifier=verifier)
            url = await nursery.start(functools.partial(serve_websocket, app, port=port, shutdown_trigger=stop.wait))
            async with mcptrio.client.connect(url, auth=auth) as client:
                wrote = await client.call_tool("write_file", {"path": "a.txt"})
            stop.set()
    assert wrote.content[0].text == "wrote a.txt"
    assert browser.logins == 2 and auth.session is not None  # the login for the 401, the step-up for the 403
    assert {"mcp:read", "files:write"} <= set(auth.session.scopes)
