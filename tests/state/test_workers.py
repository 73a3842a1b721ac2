"""``mcptrio serve --workers N --state redis://…``: real processes on one socket, one real Redis."""

import os
import signal
import ssl
import sys

import httpx
import pytest
import trio

from ..transports.http.client import LEGACY, call_tool, initialize, legacy_headers, modern_tool, text_of
from .processes import mcptrio_serve
from .redis_server import free_port

FRESH = httpx.Limits(max_keepalive_connections=0)  # a new connection per request: the kernel spreads them


def client():
    return httpx.AsyncClient(timeout=10, trust_env=False, limits=FRESH)


async def whoami(http, url, session_id, request_id):
    response = await http.post(url, json=call_tool("whoami", {}, request_id), headers=legacy_headers(session_id))
    assert response.status_code == 200, response.text
    return int(text_of(response.json()))


async def test_two_workers_serve_one_legacy_session_and_a_killed_worker_is_restarted(redis, tmp_path):
    async with mcptrio_serve(tmp_path, "--workers", "2", "--state", redis.url) as server, client() as http:
        with trio.fail_after(60):
            workers = server.children()
            assert len(workers) == 2
            session_id = await initialize(http, server.url)
            # The kernel picks which worker accepts each new connection, with no promise of turns:
            # ask until both have answered, within a bound (60 was once not enough).
            pids: set[int] = set()
            for n in range(600):
                pids.add(await whoami(http, server.url, session_id, n))
                if pids == set(workers):
                    break
            assert pids == set(workers), "both workers served the one session"
            victim = workers[0]
            os.kill(victim, signal.SIGKILL)
            while "starting it again" not in server.log():
                await trio.sleep(0.05)
            assert f"(pid {victim}) exited with status -9" in server.log()
            answered = [await whoami(http, server.url, session_id, 100 + n) for n in range(20)]
            assert victim not in answered
            while len(server.children()) < 2:
                await trio.sleep(0.05)
            assert victim not in server.children()
        server.process.send_signal(signal.SIGTERM)
        with trio.fail_after(30):
            assert await server.process.wait() == 0
        assert "draining 2 workers" in server.log()


async def test_sigterm_to_one_worker_leaves_the_other_serving(redis, tmp_path):
    """The draining worker stops accepting at once, so new connections go to the other one.  A
    connection it accepted just before is closed without an answer (or, in the instant before the
    drain, answered 503): a client sends such a request again, as after any dropped connection.
    (Closed with the request unread, the kernel resets it: a ReadError rather than an end.)"""
    retried = 0

    async def again(call):
        nonlocal retried
        for _ in range(5):
            try:
                return await call()
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ConnectError, AssertionError):
                retried += 1
                await trio.sleep(0.05)
        return await call()

    async with mcptrio_serve(tmp_path, "--workers", "2", "--state", redis.url) as server, client() as http:
        with trio.fail_after(60):
            first, second = server.children()
            os.kill(first, signal.SIGTERM)  # it drains and exits 0; the supervisor starts another
            session_id = await again(lambda: initialize(http, server.url))
            for n in range(10):
                assert await again(lambda: whoami(http, server.url, session_id, n)) != first
            while "starting it again" not in server.log():
                await trio.sleep(0.05)
            assert f"(pid {first}) exited with status 0" in server.log()
    assert retried <= 2, f"{retried} requests had to be sent again"


async def test_workers_on_hypercorn_serve_https_and_http2_on_the_inherited_socket(tmp_path):
    """--http-server hypercorn with TLS and two workers: each serves on the socket the supervisor
    bound, speaks HTTP/2 to a client that offers it, and drains on SIGTERM."""
    from ..client.tls import make_certificates

    certificates = make_certificates(tmp_path / "tls")
    flags = (
        "--workers",
        "2",
        "--stateless-only",
        "--http-server",
        "hypercorn",
        "--certfile",
        str(certificates.cert),
        "--keyfile",
        str(certificates.key),
    )
    async with mcptrio_serve(tmp_path, *flags) as server:
        assert server.url.startswith("https://127.0.0.1:")
        verify = ssl.create_default_context(cafile=certificates.ca)
        async with httpx.AsyncClient(timeout=10, trust_env=False, limits=FRESH, http2=True, verify=verify) as http:
            with trio.fail_after(30):
                for n in range(6):  # fresh connections: the kernel hands them to either worker
                    body, headers = modern_tool("echo", {"text": f"tls {n}"}, n)
                    answer = await http.post(server.url, json=body, headers=headers)
                    assert (answer.status_code, answer.http_version) == (200, "HTTP/2"), answer.text
                    assert text_of(answer.json()) == f"tls {n}"
        server.process.send_signal(signal.SIGTERM)
        with trio.fail_after(20):
            assert await server.process.wait() == 0
    assert server.log().count("worker serving") == 2 and "Traceback" not in server.log()


async def test_several_workers_without_shared_state_are_refused(tmp_path):
    done = await trio.run_process(
        [
            sys.executable,
            "-m",
            "mcptrio",
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--port",
            "0",
            "--workers",
            "2",
        ],
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "without --state would not share legacy sessions" in lines[0]
    assert "--stateless-only" in lines[0]


async def test_stateless_only_workers_need_no_state_and_refuse_initialize(tmp_path):
    async with mcptrio_serve(tmp_path, "--workers", "2", "--stateless-only") as server, client() as http:
        with trio.fail_after(30):
            body, headers = modern_tool("echo", {"text": "stateless"}, 1)
            answer = await http.post(server.url, json=body, headers=headers)
            assert answer.status_code == 200 and text_of(answer.json()) == "stateless"
            params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            refused = await http.post(
                server.url,
                json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
                headers=legacy_headers(version=None),
            )
            assert refused.status_code == 400
            assert "only the stateless 2026-07-28 protocol" in refused.json()["error"]["message"]


async def test_stateless_only_workers_seal_request_state_with_one_key(tmp_path):
    """A multi-round-trip retry may reach the other worker: without --state the supervisor gives
    every worker the same sealing key (unless MCPTRIO_STATE_KEY already does)."""
    caps = {"elicitation": {"form": {}}}
    async with (
        mcptrio_serve(tmp_path, "--workers", "2", "--stateless-only", plugins="everything") as server,
        client() as http,
    ):
        with trio.fail_after(60):
            for round in range(12):  # fresh connections: the kernel hands them to either worker
                body, headers = modern_tool("test_input_required_result_elicitation", {}, 1, capabilities=caps)
                asked = (await http.post(server.url, json=body, headers=headers)).json()["result"]
                assert asked["resultType"] == "input_required", asked
                (key,) = asked["inputRequests"]
                retry = {
                    "inputResponses": {key: {"action": "accept", "content": {"name": f"Ada{round}"}}},
                    "requestState": asked["requestState"],
                }
                body, headers = modern_tool("test_input_required_result_elicitation", {}, 2, capabilities=caps)
                body["params"].update(retry)
                answer = await http.post(server.url, json=body, headers=headers)
                assert answer.status_code == 200, answer.text
                assert text_of(answer.json()) == f"Hello, Ada{round}!", answer.text


@pytest.mark.parametrize("workers", ["1", "2"])
async def test_unreachable_state_is_one_line_and_exit_2_without_the_password(tmp_path, workers):
    url = f"redis://:hunter2secret@127.0.0.1:{free_port()}/0"
    done = await trio.run_process(
        [
            sys.executable,
            "-m",
            "mcptrio",
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--port",
            "0",
            "--workers",
            workers,
            "--state",
            url,
        ],
        capture_stderr=True,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "cannot reach the state store at redis://:***@127.0.0.1" in err
    assert "hunter2secret" not in err


async def test_a_bad_state_url_is_a_usage_error(tmp_path):
    done = await trio.run_process(
        [
            sys.executable,
            "-m",
            "mcptrio",
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--state",
            "http://:pw@example/0",
        ],
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 2
    assert "state URL must start with redis://" in done.stderr.decode() and ":pw@" not in done.stderr.decode()


def test_a_workers_command_line_keeps_everything_but_the_worker_count():
    from mcptrio.cli.worker_processes import child_argv

    argv = [
        "serve",
        "--plugins",
        "bench",
        "--transport",
        "http",
        "--host",
        "10.0.0.5",
        "--port",
        "0",
        "--workers=4",
        "--state",
        "redis://h:1/0",
        "--config",
        "x.toml",
    ]
    assert child_argv(argv, 7)[1:] == [
        "-m",
        "mcptrio",
        "serve",
        "--plugins",
        "bench",
        "--transport",
        "http",
        "--host",
        "10.0.0.5",
        "--port",
        "0",
        "--state",
        "redis://h:1/0",
        "--config",
        "x.toml",
        "--workers",
        "1",
        "--listen-fd",
        "7",
    ]
