"""``mcptrio serve TARGET`` and ``mcptrio call TARGET``: a Python file or module served without
packaging it, through the real command, over stdio, HTTP and WebSocket."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import trio

import mcptrio.client
from mcptrio.targets import looks_like_target
from mcptrio.testing import open_process_client

from . import INITIALIZE
from .test_cli import MCPTRIO, fake_distribution, one_line_error, run, served

WEATHER = """
    import mcptrio
    from helpers import shout

    plugin = mcptrio.Registry("weather", title="Weather", version="1.4")


    @plugin.tool
    async def echo(text: str) -> str:
        return shout(text)
"""


def write(path, source):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture
def weather(tmp_path):
    """A plain file with a module beside it that it imports."""
    write(tmp_path / "proj" / "helpers.py", "def shout(text: str) -> str:\n    return text.upper()\n")
    return write(tmp_path / "proj" / "weather.py", WEATHER)


async def test_a_file_is_served_over_stdio_named_as_its_registry(weather, tmp_path):
    async with open_process_client(MCPTRIO + ["serve", str(weather)]) as client:
        assert client.initialize_result["serverInfo"] == {"name": "weather", "title": "Weather", "version": "1.4"}
        result = await client.call_tool("echo", {"text": "hi"})
        assert result["content"][0]["text"] == "HI"  # (helpers.py, beside the file, imported)
    assert client.end.process.returncode == 0


async def test_a_file_inside_a_package_is_imported_as_part_of_it(tmp_path):
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "words.py", "GREETING = 'hello from a sibling'\n")
    server = write(
        tmp_path / "pkg" / "sub" / "server.py",
        """
        import mcptrio
        from .words import GREETING
        from pkg.sub import words

        def make():
            app = mcptrio.App("packaged")

            @app.tool
            async def greet() -> str:
                return f"{GREETING}, {words.__name__}"

            return app
        """,
    )
    async with open_process_client(MCPTRIO + ["serve", f"{server}:make", "--name", "renamed"]) as client:
        assert client.initialize_result["serverInfo"]["name"] == "renamed"
        result = await client.call_tool("greet")
        assert result["content"][0]["text"] == "hello from a sibling, pkg.sub.words"
    assert client.end.process.returncode == 0


async def test_a_file_beside_plugins_and_names_when_several_are_served(weather):
    async with open_process_client(
        MCPTRIO + ["serve", str(weather), "--plugins", "bench", "--prefix", "bench=b"]
    ) as client:
        info = client.initialize_result["serverInfo"]
        assert info["name"] == "mcptrio" and "title" not in info  # several served: the fallback
        names = {tool["name"] for tool in (await client.request("tools/list"))["tools"]}
        assert {"echo", "b_echo"} <= names
        assert (await client.call_tool("b_echo", {"text": "x"}))["content"][0]["text"] == "x"


async def test_one_plugin_gives_its_name_and_its_distribution_version_and_flags_win():
    async with open_process_client(MCPTRIO + ["serve", "--plugins", "bench"]) as client:
        assert client.initialize_result["serverInfo"] == {"name": "bench", "version": "0.1.0"}
    command = MCPTRIO + ["serve", "--plugins", "bench", "--name", "mine", "--title", "My server"]
    async with open_process_client(command) as client:
        assert client.initialize_result["serverInfo"] == {"name": "mine", "title": "My server", "version": "0.1.0"}


async def test_the_config_file_names_the_target_from_its_own_folder(weather, tmp_path):
    config = write(
        tmp_path / "proj" / "mcptrio.toml",
        '[serve]\ntarget = "weather.py:plugin"\nname = "from-toml"\ntitle = "From TOML"\n',
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = MCPTRIO + ["serve", "--config", str(config)]
    async with open_process_client(["sh", "-c", f'cd "{elsewhere}" && exec "$@"', "sh", *command]) as client:
        assert client.initialize_result["serverInfo"] == {"name": "from-toml", "title": "From TOML", "version": "1.4"}
        assert (await client.call_tool("echo", {"text": "toml"}))["content"][0]["text"] == "TOML"


async def test_a_file_over_http_and_websocket(weather, tmp_path):
    for transport in ("http", "ws"):
        argv = ["serve", str(weather), "--transport", transport, "--port", "0"]
        async with served(argv, tmp_path / f"{transport}.stderr") as (_, url):
            assert f"serving weather at {url}" in (tmp_path / f"{transport}.stderr").read_text()
            async with mcptrio.client.connect(url) as client:
                assert client.server_info.name == "weather" and client.server_info.title == "Weather"
                result = await client.call_tool("echo", {"text": transport})
                assert result.content[0].text == transport.upper()


def test_call_list_and_inspect_take_a_file(weather):
    done = run(["call", str(weather), "echo", "text=hi"])
    assert (done.returncode, done.stdout.strip()) == (0, "HI"), done.stderr
    done = run(["list", str(weather), "--json"])
    assert done.returncode == 0 and [tool["name"] for tool in json.loads(done.stdout)] == ["echo"]
    done = run(["inspect", str(weather)])
    assert done.returncode == 0 and done.stdout.startswith("weather 1.4"), done.stdout


def test_a_module_target_from_the_working_directory(tmp_path):
    write(tmp_path / "tools_pkg" / "__init__.py", "")
    write(
        tmp_path / "tools_pkg" / "server.py",
        """
        import mcptrio

        def build():
            registry = mcptrio.Registry("moduled")

            @registry.tool
            def add(a: int, b: int) -> int:
                return a + b

            return registry
        """,
    )
    done = run(["call", "tools_pkg.server:build", "add", "a=2", "b=3"], cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, '{"result":5}'), done.stderr


@pytest.mark.parametrize(
    "files, target, says",
    [
        ({}, "missing.py", "missing.py: no such file"),
        ({"bad.py": "def broken(:\n"}, "bad.py", "bad.py: cannot import it: SyntaxError (line 1)"),
        (
            {"raises.py": "raise RuntimeError('no network')\n"},
            "raises.py",
            "cannot import it: RuntimeError: no network",
        ),
        ({"empty.py": "x = 1\n"}, "empty.py", "empty.py: empty defines no mcptrio.Registry or App"),
        (
            {"two.py": "import mcptrio\nb = mcptrio.Registry('b')\na = mcptrio.App('a')\n"},
            "two.py",
            "two.py: two defines 2 Registries/Apps (a, b): name one, as two.py:a",
        ),
        ({"one.py": "import mcptrio\np = mcptrio.Registry()\n"}, "one.py:q", "one.py:q: one has no attribute 'q'"),
        (
            {"num.py": "import mcptrio\np = mcptrio.Registry()\nn = 3\n"},
            "num.py:n",
            "num.py:n: n is a int, not a mcptrio.Registry or App (or a function returning one)",
        ),
        (
            {"afactory.py": "import mcptrio\nasync def make():\n    return mcptrio.Registry()\n"},
            "afactory.py:make",
            "afactory.py:make: make must be a plain function (def) returning a Registry or App",
        ),
        (
            {"failing.py": "def make():\n    raise LookupError('no config')\n"},
            "failing.py:make",
            "failing.py:make: make() failed: LookupError: no config",
        ),
        ({}, "no_such_module_here.sub", "no_such_module_here.sub: no module named 'no_such_module_here'"),
        ({"os.py": "import mcptrio\np = mcptrio.Registry()\n"}, "os.py", "the name 'os' is already taken by"),
    ],
)
def test_a_bad_target_is_one_line_and_exit_2(tmp_path, files, target, says):
    for name, source in files.items():
        write(tmp_path / name, source)
    line = one_line_error(run(["serve", target], cwd=tmp_path))
    assert says in line, line
    line = one_line_error(run(["call", target, "echo"], cwd=tmp_path))
    assert says in line, line


def test_a_plugin_name_given_as_a_target_gets_a_hint():
    line = one_line_error(run(["serve", "bench"]))
    assert line.endswith("(to serve the plugin bench: --plugins bench)"), line


def test_an_app_target_refuses_the_settings_it_carries_in_its_code(tmp_path):
    app = write(tmp_path / "app.py", "import mcptrio\napp = mcptrio.App('configured-in-code')\n")
    line = one_line_error(run(["serve", str(app), "--rate-limit", "5/s", "--thread-limit", "3"]))
    assert line.endswith(
        f"{app} is an App, configured in its code: set rate_limit, thread_limit there "
        "(or serve a Registry, which these settings configure)"
    ), line


def test_looks_like_target():
    for text in ("weather.py", "a/b.py:app", "./server", "pkg.module", "pkg.module:make", "mod:app"):
        assert looks_like_target(text), text
    for text in ("echo", "http://x/mcp", "--plugins", "", "tools"):
        assert not looks_like_target(text), text


async def test_reload_serves_an_edit_of_the_file_and_of_a_module_beside_it(weather, tmp_path):
    stderr = tmp_path / "server.stderr"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    argv = ["serve", str(weather), "--transport", "http", "--port", "0", "--reload"]
    async with served(argv, stderr, env) as (_, url), mcptrio.client.connect(url) as client:
        with trio.fail_after(30):
            assert (await client.call_tool("echo", {"text": "a"})).content[0].text == "A"
            weather.write_text(
                textwrap.dedent(WEATHER) + "\n\n@plugin.tool\nasync def added() -> str:\n    return 'new'\n"
            )
            while "reloaded" not in stderr.read_text():
                await trio.sleep(0.05)
            assert (await client.call_tool("added")).content[0].text == "new"
            (weather.parent / "helpers.py").write_text("def shout(text: str) -> str:\n    return text * 2\n")
            while stderr.read_text().count("reloaded") < 2:
                await trio.sleep(0.05)
            assert (await client.call_tool("echo", {"text": "b"})).content[0].text == "bb"
            weather.write_text("def broken(:\n")
            while "reload failed, the previous version keeps serving" not in stderr.read_text():
                await trio.sleep(0.05)
            assert (await client.call_tool("echo", {"text": "c"})).content[0].text == "cc"


def test_two_distributions_registering_one_plugin_name_are_refused_and_listed(tmp_path):
    plugin = "import mcptrio\nplugin = mcptrio.Registry('weather')\n"
    fake_distribution(tmp_path / "a", "weather_one", {"weather": "weather_one:plugin"}, {"weather_one": plugin})
    fake_distribution(tmp_path / "b", "weather_two", {"weather": "weather_two:plugin"}, {"weather_two": plugin})
    path = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    line = one_line_error(run(["serve", "--plugins", "weather"], path))
    assert line.endswith(
        "failed to load plugin 'weather': 2 installed distributions register it: weather_one 1.2.3 "
        "(weather_one:plugin) and weather_two 1.2.3 (weather_two:plugin); uninstall all but one"
    ), line
    done = run(["plugins"], path)
    rows = [row for row in done.stdout.splitlines() if row.startswith("weather ")]
    assert len(rows) == 2 and all("CLASH: 2 distributions register 'weather'" in row for row in rows), rows
    assert {row.split()[1] for row in rows} == {"weather_one", "weather_two"}


def test_python_m_mcptrio_serves_a_file_too(weather):
    done = subprocess.run(
        [sys.executable, "-m", "mcptrio", "call", str(weather), "echo", "text=m"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "M", done.stderr


def test_a_file_installed_for_a_client_answers_as_the_client_runs_it(weather, tmp_path):
    """``mcptrio install`` writes the file's absolute path; run from elsewhere, as a desktop client
    runs it (no shell, a bare PATH), the command serves the file, named as its Registry."""
    env = dict(os.environ, HOME=str(tmp_path))
    done = subprocess.run(
        MCPTRIO + ["install", "mcp-json", "weather.py"], capture_output=True, text=True, env=env, cwd=weather.parent
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["weather"]
    answered = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **entry.get("env", {})},
        cwd="/",
        timeout=60,
    )
    answer = json.loads(answered.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"] == {"name": "weather", "title": "Weather", "version": "1.4"}, answered.stderr
