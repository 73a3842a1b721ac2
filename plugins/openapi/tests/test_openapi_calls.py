"""How calls travel: credentials from the environment and files (never in a schema, never logged,
never the MCP caller's), a cancelled call aborting its HTTP request, the timeout and the size limit."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import hypercorn.config
import hypercorn.trio
import pytest
import trio
from mcptrio_openapi import DocumentError, OpenApiSettings, load, upstream_headers
from mcptrio_openapi.credentials import Secret
from shop_api import EXPORT, make_app

import mcptrio
import mcptrio.client

KEY, TOKEN = "k-3f9a1c7e5b", "t-8d2e6a4f0c"


@pytest.fixture
async def recording_shop() -> AsyncIterator[tuple[str, dict[str, object]]]:
    """The shop, and what its slow operation saw."""
    calls: dict[str, object] = {}
    config = hypercorn.config.Config()
    config.bind, config.accesslog, config.errorlog, config.graceful_timeout = ["127.0.0.1:0"], None, None, 1
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        serve = functools.partial(hypercorn.trio.serve, make_app(calls), config, shutdown_trigger=stop.wait)
        binds = await nursery.start(serve)
        yield binds[0], calls
        stop.set()


async def served(url: str, **settings: object) -> mcptrio.App:
    loaded = await trio.to_thread.run_sync(lambda: load(OpenApiSettings(f"{url}/openapi.json", **settings)))
    app = mcptrio.App(name="shop")
    app.include(loaded.registry)
    return app


async def test_credentials_from_env_and_file(
    recording_shop: tuple[str, dict[str, object]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    url, _ = recording_shop
    monkeypatch.setenv("SHOP_KEY", KEY)
    (tmp_path / "token").write_text(TOKEN + "\n")
    caplog.set_level(logging.DEBUG)
    app = await served(url, api_key=Secret(env="SHOP_KEY"), bearer=Secret(file=tmp_path / "token"))
    tool = app.tools["secure_echo"].definition()
    assert set(tool["inputSchema"]["properties"]) == {"x-trace", "session"}  # (the key's query parameter: not asked)
    with trio.fail_after(20):
        async with mcptrio.client.connect(app) as client:
            seen = await client.call_tool("secure_echo", {"x-trace": "abc", "session": "s1"})
    assert seen.structured_content == {"key": KEY, "bearer": TOKEN, "trace": "abc", "session": "s1"}
    assert "secure/echo" in caplog.text  # (httpx logged the request, at debug) ...
    assert KEY not in caplog.text and TOKEN not in caplog.text  # ... without the key in its URL
    assert KEY not in repr(app.tools["secure_echo"]) and TOKEN not in str(tool)


async def test_without_credentials_the_api_refuses(recording_shop: tuple[str, dict[str, object]]) -> None:
    app = await served(recording_shop[0])
    with trio.fail_after(20):
        async with mcptrio.client.connect(app) as client:
            refused = await client.call_tool("secure_echo", {})
    assert refused.is_error and refused.content[0].text.startswith(("HTTP 401", "HTTP 403"))


def test_missing_secrets_are_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SHOP_KEY", raising=False)
    document = make_app().openapi()
    with pytest.raises(DocumentError, match="^plugins.openapi.api_key: the environment variable SHOP_KEY is not set$"):
        load(OpenApiSettings(document, base_url="http://127.0.0.1:9", api_key=Secret(env="SHOP_KEY")))
    with pytest.raises(DocumentError, match=r"^plugins.openapi.bearer: cannot read .*nothing: No such file"):
        load(OpenApiSettings(document, base_url="http://127.0.0.1:9", bearer=Secret(file=tmp_path / "nothing")))


async def test_a_cancelled_call_aborts_its_request(recording_shop: tuple[str, dict[str, object]]) -> None:
    url, calls = recording_shop
    app = await served(url)
    with trio.fail_after(20):
        async with mcptrio.client.connect(app) as client:
            with trio.move_on_after(0.5) as waited:
                await client.call_tool("slow")
            assert waited.cancelled_caught and calls["slow"] == "started"
            while calls["slow"] == "started":  # (until the API sees its client go)
                await trio.sleep(0.05)
    assert calls["slow"] == "abandoned"


async def test_timeout_and_size_limit(recording_shop: tuple[str, dict[str, object]]) -> None:
    url, _ = recording_shop
    with trio.fail_after(20):
        async with mcptrio.client.connect(await served(url, timeout=0.3)) as client:
            late = await client.call_tool("slow")
        async with mcptrio.client.connect(await served(url, max_response_bytes=40)) as client:
            large = await client.call_tool("list_items")
    assert late.is_error and late.content[0].text == "GET /slow: the API did not answer within 0.3 s"
    assert large.is_error and "the answer is larger than max_response_bytes" in large.content[0].text


async def test_a_middleware_gives_each_caller_its_own_credential(
    recording_shop: tuple[str, dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_KEY", KEY)
    app = await served(recording_shop[0], api_key=Secret(env="SHOP_KEY"))
    seen_by_era = {}

    @app.use
    async def per_caller(request, call_next):
        with upstream_headers({"Authorization": f"Bearer for-{request.era}"}):
            return await call_next(request)

    with trio.fail_after(20):
        for era in ("legacy", "modern"):
            async with mcptrio.client.connect(app, era=era) as client:
                seen_by_era[era] = (await client.call_tool("secure_echo", {})).structured_content["bearer"]
    assert seen_by_era == {"legacy": "for-legacy", "modern": "for-modern"}


async def test_a_long_download_reports_progress(recording_shop: tuple[str, dict[str, object]]) -> None:
    heard: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total))

    with trio.fail_after(20):
        async with mcptrio.client.connect(await served(recording_shop[0])) as client:
            result = await client.call_tool("export", progress=progress)
    blob = result.content[0].resource
    assert not result.is_error and blob.mime_type == "application/octet-stream" and blob.blob == EXPORT
    assert len(heard) >= 5 and all(total == len(EXPORT) for _, total in heard)
    assert [done for done, _ in heard] == sorted({done for done, _ in heard})  # (increasing)
