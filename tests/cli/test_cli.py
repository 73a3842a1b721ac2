"""The ``mcptrio`` command as a user runs it: real subprocesses, real entry points."""

import contextlib
import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from mcptrio.testing import open_process_client

MCPTRIO = [sys.executable, "-m", "mcptrio.cli"]


def fake_distribution(root: Path, dist: str, plugins: dict[str, str], modules: dict[str, str]) -> None:
    """A minimal installed distribution (dist-info + modules) that importlib.metadata finds."""
    info = root / f"{dist}-1.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2.3\n")
    lines = "".join(f"{name} = {value}\n" for name, value in plugins.items())
    (info / "entry_points.txt").write_text(f"[mcptrio.plugins]\n{lines}")
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def plugin_path(tmp_path):
    fake_distribution(
        tmp_path,
        "fake_plugins",
        {
            "broken": "broken_plugin:plugin",
            "notregistry": "odd_plugin:plugin",
            "alpha": "clash_a:plugin",
            "beta": "clash_b:plugin",
            "docs_a": "docs_a:plugin",
            "docs_b": "docs_b:plugin",
            "longname": "longname:plugin",
        },
        {
            "broken_plugin": "raise ImportError('needs libfoo')\n",
            "odd_plugin": "plugin = 42\n",
            "clash_a": """
            import mcptrio
            plugin = mcptrio.Registry("alpha")
            @plugin.tool()
            async def hello() -> str:
                return "from alpha"
        """,
            "clash_b": """
            import mcptrio
            plugin = mcptrio.Registry("beta")
            @plugin.tool()
            async def hello() -> str:
                return "from beta"
        """,
            "docs_a": """
            import mcptrio
            plugin = mcptrio.Registry("docs_a")
            @plugin.resource("docs://readme")
            async def readme() -> str:
                return "read alpha"
        """,
            "docs_b": """
            import mcptrio
            plugin = mcptrio.Registry("docs_b")
            @plugin.resource("docs://readme")
            async def readme() -> str:
                return "read beta"
        """,
            "longname": """
            import mcptrio
            plugin = mcptrio.Registry("longname")
            @plugin.tool("t" * 126)
            async def long() -> str:
                return ""
        """,
        },
    )
    return tmp_path


def run(args, plugin_path=None, **kwargs):
    env = dict(os.environ)
    if plugin_path is not None:
        env["PYTHONPATH"] = f"{plugin_path}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return subprocess.run(
        MCPTRIO + args, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL, **kwargs
    )


@contextlib.asynccontextmanager
async def served(argv, stderr, env=None):
    """``mcptrio`` + ``argv`` serving over the network, its stderr in the file ``stderr``: the URL
    it says it serves at, as ``(process, url)``; stopped with SIGTERM after, which must exit 0."""
    with open(stderr, "wb") as sink:
        process = await trio.lowlevel.open_process(
            MCPTRIO + argv, stdin=subprocess.DEVNULL, stderr=sink, env=env if env is not None else dict(os.environ)
        )
    try:
        with trio.fail_after(30):
            while not (found := re.search(r"serving .* at (\S+)\n", stderr.read_text())):
                assert process.poll() is None, stderr.read_text()
                await trio.sleep(0.05)
        yield process, found.group(1)
    finally:
        process.terminate()
        with trio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, stderr.read_text()


def one_line_error(done):
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_unknown_plugin_exits_2_with_one_line():
    line = one_line_error(run(["serve", "--plugins", "no_such_plugin"]))
    assert "failed to load plugin 'no_such_plugin': no such plugin" in line


def test_plugin_that_fails_to_import(plugin_path):
    line = one_line_error(run(["serve", "--plugins", "broken"], plugin_path))
    assert line.endswith("failed to load plugin 'broken': ImportError: needs libfoo")


def test_plugin_that_is_not_a_registry(plugin_path):
    line = one_line_error(run(["serve", "--plugins", "notregistry"], plugin_path))
    assert "not a mcptrio.Registry" in line


def test_name_clash_names_both_plugins(plugin_path):
    line = one_line_error(run(["serve", "--plugins", "alpha,beta"], plugin_path))
    assert "'hello'" in line and "'beta'" in line and "'alpha'" in line and "prefix" in line


async def test_prefix_resolves_a_clash_and_plugins_compose(plugin_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(plugin_path))
    command = MCPTRIO + ["serve", "--plugins", "alpha,beta,bench", "--prefix", "beta=b"]
    async with open_process_client(command) as client:
        names = [t["name"] for t in (await client.request("tools/list"))["tools"]]
        assert names[:2] == ["hello", "b_hello"] and "echo" in names  # deterministic: load order
        result = await client.call_tool("b_hello")
        assert result["content"][0]["text"] == "from beta"
    assert client.end.process.returncode == 0


def test_a_resource_clash_names_both_plugins(plugin_path):
    line = one_line_error(run(["serve", "--plugins", "docs_a,docs_b"], plugin_path))
    assert "resource 'docs://readme' of plugin 'docs_b' clashes with the one of 'docs_a'" in line


async def test_a_prefix_serves_a_plugins_resources_under_its_scheme(plugin_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(plugin_path))
    command = MCPTRIO + ["serve", "--plugins", "docs_a,docs_b", "--prefix", "docs_b=b"]
    async with open_process_client(command) as client:
        listed = [r["uri"] for r in (await client.request("resources/list"))["resources"]]
        assert listed == ["docs://readme", "b+docs://readme"]
        read = await client.request("resources/read", {"uri": "b+docs://readme"})
        assert read["contents"] == [{"uri": "b+docs://readme", "text": "read beta"}]
    assert client.end.process.returncode == 0


@pytest.mark.parametrize(
    "args, shown",
    [
        (["--prefix", "docs_b=my_b"], "--prefix: the prefix of plugin 'docs_b': namespace 'my_b' is not valid"),
        (["--prefix", "docs_b=b+c"], "namespace 'b+c' is not valid: it must be a letter, then letters, digits"),
    ],
)
def test_an_invalid_prefix_is_a_one_line_usage_error(plugin_path, tmp_path, args, shown):
    assert shown in one_line_error(run(["serve", "--plugins", "docs_a,docs_b", *args], plugin_path))
    config = tmp_path / "serve.toml"
    config.write_text('[serve]\nplugins = ["docs_a", "docs_b"]\nprefixes = { docs_b = "1b" }\n')
    line = one_line_error(run(["serve", "--config", str(config)], plugin_path))
    assert "serve.prefixes: the prefix of plugin 'docs_b': namespace '1b' is not valid" in line


def test_a_prefix_that_makes_a_tool_name_too_long_is_a_one_line_error(plugin_path):
    line = one_line_error(run(["serve", "--plugins", "longname", "--prefix", "longname=ab"], plugin_path))
    assert f"tool '{'t' * 126}' of plugin 'longname' with the prefix 'ab' would be served as" in line
    assert "(129 characters)" in line and "rule for tool names: 1 to 128 characters" in line


@pytest.mark.parametrize("where", ["flag", "file"])
def test_a_tag_no_component_has_is_a_one_line_error(plugin_path, tmp_path, where):
    if where == "flag":
        args = ["serve", "--plugins", "alpha", "--exclude-tags", "nosuchtag"]
    else:
        config = tmp_path / "serve.toml"
        config.write_text('[serve]\nplugins = ["alpha"]\nexclude_tags = ["nosuchtag"]\nvisibility = "filter"\n')
        args = ["serve", "--config", str(config)]
    line = one_line_error(run(args, plugin_path))
    assert "exclude_tags: no tool, prompt or resource has the tag 'nosuchtag'" in line


def test_a_bad_visibility_is_a_one_line_error():
    line = one_line_error(run(["serve", "--plugins", "x", "--visibility", "hide"]))
    assert "--visibility" in line and "hide" in line


def test_plugins_lists_name_distribution_version(plugin_path):
    done = run(["plugins"], plugin_path)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert any(line.split()[:3] == ["bench", "mcptrio-bench", "0.1.0"] for line in lines), lines
    assert any(line.split()[:3] == ["broken", "fake_plugins", "1.2.3"] for line in lines), lines
    assert [line.split()[0] for line in lines] == sorted(line.split()[0] for line in lines)


def test_config_unknown_keys_are_errors(tmp_path):
    config = tmp_path / "mcptrio.toml"
    config.write_text('[serve]\nplugins = ["bench"]\ncolour = "blue"\n[serve.limits]\nspeed = 3\n')
    line = one_line_error(run(["serve", "--config", str(config)]))
    assert "unknown key(s): serve.colour, serve.limits.speed" in line


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('port = "abc"', "serve.port must be a whole number, got 'abc'"),
        ("port = -5", "port must be 0 to 65535 (0: any free port), got -5"),
        ("host = 5", "serve.host must be a string, got 5"),
        ('prefixes = "x"', "serve.prefixes must be a table of plugin = prefix strings, got 'x'"),
        ("limits = 5", "serve.limits must be a table ([serve.limits]), got 5"),
        ('path = "mcp"', "path must start with / and hold no ?, # or space, got 'mcp'"),
        ('legacy_sse = "no"', "serve.legacy_sse must be true or false, got 'no'"),
        ('allowed_hosts = "example.com"', "serve.allowed_hosts must be a list of strings, got 'example.com'"),
        ("name = 3", "serve.name must be a string, got 3"),
        ('transport = "udp"', "transport must be one of stdio, http, ws, got 'udp'"),
        ('response_mode = "xml"', "response_mode must be one of auto, json, sse, got 'xml'"),
        ("[serve.limits]\nmax_in_flight = 0", "serve.limits.max_in_flight must be at least 1, got 0"),
        ('[serve.limits]\nrequest_timeout = "x"', "serve.limits.request_timeout must be a number, got 'x'"),
    ],
)
def test_config_values_of_the_wrong_type_are_one_line_errors(tmp_path, line, says):
    config = tmp_path / "mcptrio.toml"
    config.write_text(f'[serve]\nplugins = ["bench"]\n{line}\n')
    assert says in one_line_error(run(["serve", "--config", str(config)]))


def test_bad_port_and_path_flags_are_one_line_errors():
    assert "port must be 0 to 65535" in one_line_error(run(["serve", "--plugins", "bench", "--port", "70000"]))
    assert "path must start with /" in one_line_error(run(["serve", "--plugins", "bench", "--path", "mcp"]))


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_a_port_already_taken_is_a_one_line_error(transport):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    with taken:
        line = one_line_error(run(["serve", "--plugins", "bench", "--transport", transport, "--port", str(port)]))
    assert line.endswith(f"cannot listen on 127.0.0.1:{port}: Address already in use"), line


def test_config_bad_toml_and_missing_file(tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text("[serve\n")
    assert "not valid TOML" in one_line_error(run(["serve", "--config", str(config)]))
    assert "cannot read config" in one_line_error(run(["serve", "--config", str(tmp_path / "none.toml")]))


def test_bad_flags_are_one_line_errors():
    assert "invalid choice" in one_line_error(run(["serve", "--transport", "pigeon"]))
    assert "nothing to serve: name a file or module" in one_line_error(run(["serve"]))
    assert "PLUGIN=PREFIX" in one_line_error(run(["serve", "--plugins", "bench", "--prefix", "oops"]))


def test_help_reads_well():
    done = run(["serve", "--help"])
    assert done.returncode == 0
    for flag in ("--plugins", "--transport", "--host", "--port", "--path", "--config", "--prefix"):
        assert flag in done.stdout


def test_every_command_is_listed_though_a_command_defines_only_its_own_options():
    listed = run(["--help"])
    assert listed.returncode == 0
    for command in ("serve", "plugins", "inspect", "list", "call", "read", "prompt", "new", "rotate-key"):
        assert f"    {command}" in listed.stdout
    assert "invalid choice: 'pigeon'" in one_line_error(run(["pigeon"]))
    assert "--json" in run(["call", "--help"]).stdout and "--args" in run(["call", "--help"]).stdout


async def test_config_file_serves_with_limits(tmp_path):
    config = tmp_path / "mcptrio.toml"
    config.write_text('[serve]\nplugins = ["bench"]\nname = "configured"\n[serve.limits]\nrequest_timeout = 0.5\n')
    async with open_process_client(MCPTRIO + ["serve", "--config", str(config)]) as client:
        assert client.initialize_result["serverInfo"]["name"] == "configured"
        result = await client.call_tool("sleep", {"ms": 5000})
        assert result["isError"] and "timed out after 0.5 s" in result["content"][0]["text"]
    assert client.end.process.returncode == 0


async def test_http_and_ws_transports_from_the_command_line(tmp_path):
    """`mcptrio serve --transport http|ws` serves and exits 0 on SIGTERM."""
    import re
    import signal

    import httpx
    import trio
    from trio_websocket import open_websocket_url

    for transport in ("http", "ws"):
        process = await trio.lowlevel.open_process(
            MCPTRIO
            + ["serve", "--plugins", "bench", "--transport", transport, "--port", "0", "--allowed-host", "mcp.example"],
            stderr=subprocess.PIPE,
        )
        try:
            with trio.fail_after(20):
                banner = b""
                while b"\n" not in banner:
                    banner += await process.stderr.receive_some(4096)
            url = re.search(rb"at (\S+)", banner).group(1).decode()
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}},
            }
            if transport == "http":
                async with httpx.AsyncClient() as client:
                    answer = await client.post(
                        url, json=init, headers={"accept": "application/json, text/event-stream"}
                    )
                    assert answer.status_code == 200 and "mcp-session-id" in answer.headers
                    port = url.split(":")[2].split("/")[0]
                    other = await client.post(
                        url,
                        json=init,
                        headers={"host": f"mcp.example:{port}", "accept": "application/json, text/event-stream"},
                    )
                    assert other.status_code == 200  # --allowed-host widened the allow-list
            else:
                import json as jsonlib

                async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                    await ws.send_message(jsonlib.dumps(init))
                    assert '"protocolVersion":"2025-11-25"' in await ws.get_message()
            process.send_signal(signal.SIGTERM)
            with trio.fail_after(15):
                assert await process.wait() == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()


@pytest.mark.parametrize(
    "flags, says",
    [
        (["--workers", "0"], "workers must be a whole number of at least 1"),
        (["--orphan-timeout", "-1"], "orphan timeout must be 0 or more seconds"),
        (["--max-requests", "0"], "max_requests must be a whole number of at least 1"),
        (["--max-streams", "0"], "max_streams must be a whole number of at least 1"),
        (["--thread-limit", "0"], "thread_limit must be a whole number of at least 1"),
        (["--max-streams-per-client", "-3"], "max_streams_per_client must be a whole number of at least 1"),
        (["--state", "memcached://127.0.0.1:11211"], "state URL must start with redis://, rediss:// or unix://"),
        (["--state", "redis://:pw@127.0.0.1:notaport/0"], "state URL has a bad port"),
        (["--state", "redis://127.0.0.1:6379/zero"], "database must be a number"),
    ],
)
def test_bad_scale_out_flags_are_one_line_errors(flags, says):
    line = one_line_error(run(["serve", "--plugins", "bench", "--transport", "http", *flags]))
    assert says in line and ":pw@" not in line


@pytest.mark.parametrize(
    "flags, says",
    [
        (["--http-server", "apache"], "invalid choice: 'apache'"),
        (["--certfile", "cert.pem"], "TLS needs both --certfile and --keyfile"),
        (["--keyfile", "key.pem"], "TLS needs both --certfile and --keyfile"),
        (["--ca-certs", "ca.pem"], "--ca-certs (client certificates) needs TLS: add --certfile and --keyfile"),
        (
            ["--certfile", "/no/cert.pem", "--keyfile", "/no/key.pem"],
            "cannot use certificate /no/cert.pem with key /no/key.pem: No such file or directory",
        ),
        (["--max-connections", "0"], "max_connections must be a whole number of at least 1"),
    ],
)
def test_bad_http_server_flags_are_one_line_errors(flags, says):
    line = one_line_error(run(["serve", "--plugins", "bench", "--transport", "http", "--port", "0", *flags]))
    assert says in line


def test_http_server_flags_on_another_transport_are_refused(tmp_path):
    says = "--http-server and TLS (--certfile, --keyfile, --ca-certs) are for --transport http"
    assert says in one_line_error(run(["serve", "--plugins", "bench", "--http-server", "hypercorn"]))
    assert says in one_line_error(
        run(["serve", "--plugins", "bench", "--transport", "ws", "--certfile", "c.pem", "--keyfile", "k.pem"])
    )
    config = tmp_path / "mcptrio.toml"
    config.write_text('[serve]\nplugins = ["bench"]\ntransport = "http"\nhttp_server = "nginx"\n')
    assert "http_server must be one of builtin, hypercorn, got 'nginx'" in one_line_error(
        run(["serve", "--config", str(config)])
    )
    config.write_text('[serve]\nplugins = ["bench"]\ntransport = "http"\ncertfile = 1\n')
    assert "serve.certfile must be a string, got 1" in one_line_error(run(["serve", "--config", str(config)]))


def test_scale_out_flags_on_the_wrong_transport_are_refused():
    assert "--workers and --stateless-only are for --transport http" in one_line_error(
        run(["serve", "--plugins", "bench", "--transport", "ws", "--workers", "2"])
    )
    assert "--state is for http and ws" in one_line_error(
        run(["serve", "--plugins", "bench", "--state", "redis://127.0.0.1:6379/0"])
    )


def test_bad_scale_out_toml_values(tmp_path):
    config = tmp_path / "mcptrio.toml"
    config.write_text('[serve]\nplugins = ["bench"]\ntransport = "http"\nstate = 6379\n')
    assert "state must be a URL string" in one_line_error(run(["serve", "--config", str(config)]))
    config.write_text('[serve]\nplugins = ["bench"]\ntransport = "http"\nworkers = 3\n')
    assert "3 workers without --state" in one_line_error(run(["serve", "--config", str(config)]))
    config.write_text('[serve]\nplugins = ["bench"]\ntransport = "http"\nmax_streams = "lots"\n')
    assert "max_streams must be a whole number" in one_line_error(run(["serve", "--config", str(config)]))


def test_rotate_key_needs_a_reachable_state():
    line = one_line_error(run(["rotate-key", "--state", "redis://:secretpw@127.0.0.1:1/0"]))
    assert "cannot reach the state store at redis://:***@127.0.0.1:1/0" in line and "secretpw" not in line


def test_version_has_one_source():
    from importlib.metadata import version

    import mcptrio

    done = run(["--version"])
    assert done.returncode == 0 and done.stdout.strip() == f"mcptrio {version('mcptrio')}"
    assert mcptrio.__version__ == version("mcptrio")
    assert (Path(mcptrio.__file__).parent / "py.typed").exists()
