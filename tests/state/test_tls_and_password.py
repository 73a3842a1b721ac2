"""``--state rediss://:password@…``: TLS to Redis with a password, which never reaches a log line."""

import subprocess
import sys

import trio

from ..transports.http.client import call_tool, initialize, legacy_headers, new_client, text_of
from .processes import mcptrio_serve
from .redis_server import redis_server

PASSWORD = "c0rrect-h0rse-battery"


async def test_tls_and_a_password_work_and_the_password_stays_out_of_the_logs(tmp_path):
    with redis_server(password=PASSWORD, tls=True) as redis:
        assert redis.url.startswith("rediss://")
        async with (
            mcptrio_serve(tmp_path, "--workers", "2", "--state", redis.url, "--log-level", "debug") as server,
            new_client() as client,
        ):
            with trio.fail_after(20):
                session_id = await initialize(client, server.url)
                answer = await client.post(
                    server.url, json=call_tool("echo", {"text": "over tls"}), headers=legacy_headers(session_id)
                )
                assert text_of(answer.json()) == "over tls"
        log = server.log()
    assert "state shared through rediss://:***@127.0.0.1" in log
    assert PASSWORD not in log


async def test_a_wrong_password_is_one_line_and_exit_2(tmp_path):
    with redis_server(password=PASSWORD) as redis:
        wrong = redis.url.replace(PASSWORD, "not-the-password")
        done = subprocess.run(
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
                "--state",
                wrong,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "refused the credentials" in done.stderr
    assert "not-the-password" not in done.stderr
