"""``mcptrio bundle`` and ``mcptrio registry-entry`` as a publisher runs them: the bundles of the three
first-party plugins and of a served file, checked by the official MCPB CLI (``mcpb``, pinned by this
folder's package-lock.json) and started as a desktop client starts them — unpacked into an empty folder,
their manifest's own ``mcp_config`` run with ``${__dirname}`` and ``${user_config.KEY}`` substituted, by
a Python with nothing installed; the ``server.json`` of each plugin checked against the registry's
schema, pinned here (server.schema.json: byte for byte the published 2025-12-11 file, sha256 below)."""

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from . import installing
from .installing import call, client_command

HERE = Path(__file__).resolve().parent
MCPB = HERE / "node_modules" / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"
SCHEMA = HERE / "server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
MCPTRIO = [sys.executable, "-m", "mcptrio.cli"]
PLUGINS = ("everything", "filesystem", "openapi")

SERVED_FILE = '''"""Notes: a served file, bundled with the packages it needs."""

import os

import mcptrio

app = mcptrio.App("notes", version="1.2.0", title="Notes")
app.user_setting("greeting", env="NOTES_GREETING", title="Greeting", description="How the server greets")


@app.tool
def greet(name: str) -> str:
    """Greet someone, as the user configured."""
    return f"{os.environ.get('NOTES_GREETING') or 'hello'}, {name}"


@app.prompt(description="Ask about a topic")
def ask(topic: str) -> str:
    return f"Tell me about {topic}"
'''

OPENAPI_DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "Greetings", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/nowhere"}],  # (replaced by the base_url setting)
    "paths": {
        "/greeting": {
            "get": {
                "operationId": "get_greeting",
                "summary": "The greeting of the day",
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}},
            }
        }
    },
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each bundle the tests check, built once by the command, at once (each build is its own process)."""
    folder = tmp_path_factory.mktemp("bundles")
    (folder / "notes.py").write_text(SERVED_FILE, encoding="utf-8")
    icon = folder / "icon.png"
    icon.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)  # (the CLI checks the signature)
    builds = {name: ["bundle", name] for name in PLUGINS}
    builds["notes"] = ["bundle", str(folder / "notes.py"), "--author", "A. Writer", "--icon", str(icon)]
    running = {
        name: subprocess.Popen(
            [*MCPTRIO, *args, "--out", str(folder / f"{name}.mcpb")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in builds.items()
    }
    for name, process in running.items():
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, f"{name}: {err}"
        assert out.startswith(f"wrote {folder / name}.mcpb")
    return {name: folder / f"{name}.mcpb" for name in builds}


@pytest.fixture(scope="module")
def installed(built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    """Each bundle unpacked into an empty folder and checked by the official CLI: its folder and manifest."""
    folders = {name: tmp_path_factory.mktemp("installed") / name for name in built}
    return {name: (folders[name], installing.installed(bundle, folders[name])) for name, bundle in built.items()}


@pytest.mark.parametrize("name", [*PLUGINS, "notes"])
def test_the_mcpb_cli_validates_and_reads_each_bundle(installed: dict[str, tuple[Path, dict]], name: str) -> None:
    folder, manifest = installed[name]
    assert manifest["manifest_version"] == "0.3"
    assert manifest["server"]["type"] == "python"
    assert (folder / manifest["server"]["entry_point"]).is_file()
    assert manifest["author"]["name"]
    assert manifest["compatibility"]["platforms"] == ["linux"]


def test_a_manifest_lists_the_tools_prompts_and_settings_the_plugin_declares(
    installed: dict[str, tuple[Path, dict]],
) -> None:
    import mcptrio_everything
    import mcptrio_filesystem

    everything = installed["everything"][1]
    assert {tool["name"] for tool in everything["tools"]} == set(mcptrio_everything.plugin.tools)
    assert {prompt["name"] for prompt in everything["prompts"]} == set(mcptrio_everything.plugin.prompts)
    assert "user_config" not in everything
    filesystem = installed["filesystem"][1]
    assert (filesystem["name"], filesystem["version"]) == ("mcptrio-filesystem", "0.1.0")
    assert {tool["name"] for tool in filesystem["tools"]} == set(mcptrio_filesystem.plugin.tools)
    assert filesystem["user_config"]["allowed_folders"]["type"] == "directory"
    assert filesystem["server"]["mcp_config"]["env"] == {"MCPTRIO_FS_ROOTS": "${user_config.allowed_folders}"}
    openapi = installed["openapi"][1]
    assert openapi["tools"] == [] and openapi["tools_generated"] is True  # (its tools are the document's)
    assert openapi["user_config"]["spec"]["required"] is True
    notes = installed["notes"][1]
    assert (notes["name"], notes["version"], notes["display_name"]) == ("notes", "1.2.0", "Notes")
    assert notes["description"] == "Notes: a served file, bundled with the packages it needs."
    assert notes["tools"] == [{"name": "greet", "description": "Greet someone, as the user configured."}]
    assert notes["prompts"] == [
        {"name": "ask", "text": "Ask about a topic", "description": "Ask about a topic", "arguments": ["topic"]}
    ]
    assert notes["icon"] == "icon.png" and (installed["notes"][0] / "icon.png").is_file()


# --- started as a client starts it ----------------------------------------------------------------------


async def test_the_everything_bundle_answers_a_tool_call_from_a_bare_python(
    installed: dict[str, tuple[Path, dict]], tmp_path: Path, bare_python: Path
) -> None:
    folder, manifest = installed["everything"]
    argv, env = client_command(manifest, folder, {}, bare_python)
    text, error = await call(argv, env, tmp_path, "greet", {"name": "bundle"})
    assert not error and text == "Hello, bundle!"


async def test_the_filesystem_bundle_is_confined_to_the_folder_the_user_chose(
    installed: dict[str, tuple[Path, dict]], tmp_path: Path, bare_python: Path
) -> None:
    folder, manifest = installed["filesystem"]
    chosen, other = tmp_path / "chosen", tmp_path / "other"
    chosen.mkdir(), other.mkdir()
    (chosen / "note.txt").write_text("inside", encoding="utf-8")
    (other / "note.txt").write_text("outside", encoding="utf-8")
    argv, env = client_command(manifest, folder, {"allowed_folders": str(chosen)}, bare_python)
    text, error = await call(argv, env, tmp_path, "read_text_file", {"path": str(chosen / "note.txt")})
    assert not error and text == "inside"
    text, error = await call(argv, env, tmp_path, "read_text_file", {"path": str(other / "note.txt")})
    assert error and "outside the allowed roots" in text


async def test_the_openapi_bundle_serves_the_document_and_api_the_user_names(
    installed: dict[str, tuple[Path, dict]], tmp_path: Path, bare_python: Path
) -> None:
    class Greeting(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"greeting": f"hello from {self.path}"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    api = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Greeting)
    thread = threading.Thread(target=api.serve_forever, daemon=True)
    thread.start()
    try:
        folder, manifest = installed["openapi"]
        document = tmp_path / "greetings.json"
        document.write_text(json.dumps(OPENAPI_DOCUMENT), encoding="utf-8")
        base_url = f"http://127.0.0.1:{api.server_address[1]}/v1"
        argv, env = client_command(manifest, folder, {"spec": str(document), "base_url": base_url}, bare_python)
        text, error = await call(argv, env, tmp_path, "get_greeting", {})
    finally:
        api.shutdown()
        thread.join(5)
    assert not error and "hello from /v1/greeting" in text


async def test_the_served_file_bundle_passes_its_setting(
    installed: dict[str, tuple[Path, dict]], tmp_path: Path, bare_python: Path
) -> None:
    folder, manifest = installed["notes"]
    assert manifest["server"]["mcp_config"]["env"] == {"NOTES_GREETING": "${user_config.greeting}"}
    argv, env = client_command(manifest, folder, {"greeting": "good morning"}, bare_python)
    text, error = await call(argv, env, tmp_path, "greet", {"name": "Ada"})
    assert not error and text == "good morning, Ada"


# --- the registry entry ---------------------------------------------------------------------------------


def registry_entry(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "server.json"
    done = subprocess.run([*MCPTRIO, "registry-entry", *args, "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_pinned_registry_schema_is_the_published_one() -> None:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256


@pytest.mark.parametrize("name", PLUGINS)
def test_each_plugins_server_json_validates_against_the_registry_schema(
    installed: dict[str, tuple[Path, dict]], tmp_path: Path, name: str
) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    entry = registry_entry(tmp_path, name, "--url", f"https://mcp.example.com/{name}/mcp")
    assert list(validator.iter_errors(entry)) == []
    assert entry["$schema"] == schema["$id"]
    assert entry["name"] == f"io.github.mcptrio/mcptrio-{name}"
    (package,) = entry["packages"]
    assert (package["registryType"], package["identifier"], package["version"]) == ("pypi", f"mcptrio-{name}", "0.1.0")
    assert package["runtimeHint"] == "uvx" and package["transport"] == {"type": "stdio"}
    assert [a["value"] for a in package["packageArguments"]] == ["serve", "--plugins", name]
    assert package["runtimeArguments"] == [{"type": "named", "name": "--python", "value": ">=3.11"}]
    assert entry["remotes"] == [{"type": "streamable-http", "url": f"https://mcp.example.com/{name}/mcp"}]
    # the same user settings as the bundle's: one declaration, one variable each
    manifest = installed[name][1]
    variables = [variable["name"] for variable in package.get("environmentVariables", [])]
    assert variables == list(manifest["server"]["mcp_config"]["env"])
    named = registry_entry(tmp_path, name, "--name", "io.example/tools")
    assert named["name"] == "io.example/tools" and "remotes" not in named
    assert list(validator.iter_errors(named)) == []


def test_a_project_folder_is_its_installed_distribution(tmp_path: Path) -> None:
    folder = Path(__file__).resolve().parents[2] / "plugins" / "everything"
    assert registry_entry(tmp_path, str(folder)) == registry_entry(tmp_path, "mcptrio-everything")


# --- bad input: one line, status 2 ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def strays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of things that go wrong: a plugin distribution whose module fails to import, one with
    neither a source URL nor a console script, a file without a version, a file that is not a PNG."""
    folder = tmp_path_factory.mktemp("strays")
    for dist, module, source in (
        ("broken_plugin", "broken_plugin_mod", "import no_such_module_anywhere\n"),
        ("plain_plugin", "plain_plugin_mod", "import mcptrio\n\nplugin = mcptrio.Registry('plainplug')\n"),
    ):
        info = folder / f"{dist}-0.1.0.dist-info"
        info.mkdir()
        name = dist.replace("_", "-")
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\nSummary: x\nAuthor: x\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(f"[mcptrio.plugins]\n{module}x = {module}:plugin\n", encoding="utf-8")
        (folder / f"{module}.py").write_text(source, encoding="utf-8")
    (folder / "project").mkdir()
    (folder / "project" / "pyproject.toml").write_text('[project]\nname = "never-installed"\n', encoding="utf-8")
    (folder / "unversioned.py").write_text("import mcptrio\n\nplugin = mcptrio.Registry('u')\n", encoding="utf-8")
    (folder / "not-a-png.png").write_text("GIF89a", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bundle", "broken-plugin"], "No module named 'no_such_module_anywhere'"),
        (["bundle", "no-such-distribution"], "not an installed distribution"),
        (["bundle", "{strays}/unversioned.py", "--author", "x"], "no version"),
        (["bundle", "everything", "--name", "Bad Name"], "manifest name 'bad name'"),
        (["bundle", "{strays}/missing.py"], "no such file"),
        (["bundle", "everything", "--icon", "{strays}/missing.png"], "--icon"),
        (["bundle", "everything", "--icon", "{strays}/not-a-png.png"], "not a PNG file"),
        (["bundle", "everything", "--platform", "solaris"], "a pip platform tag"),
        (["bundle", "{strays}/unversioned.py:nope"], "has no attribute 'nope'"),
        (["bundle", "{strays}"], "no pyproject.toml"),
        (["bundle", "{strays}/project"], "'never-installed' is not installed here: pip install -e"),
        (["bundle", "{strays}/unversioned.py:plugin", "--version-of", "x"], "unrecognized arguments"),
        (["registry-entry", "everything", "--out", "{strays}"], "Is a directory"),
        (["bundle", "everything", "--out", "{strays}/unversioned.py/x.mcpb"], "--out"),
        (["registry-entry", "plain-plugin"], "give --name"),
        (["registry-entry", "plain-plugin", "--name", "io.example/plain"], "console script"),
        (["registry-entry", "everything", "--name", "no-slash"], "NAMESPACE/NAME"),
        (["registry-entry", "everything", "--url", "ftp://example.com"], "--url"),
        (["registry-entry", "{strays}/unversioned.py"], "no version"),
    ],
)
def test_bad_input_is_one_line_and_status_2(strays: Path, tmp_path: Path, args: list[str], says: str) -> None:
    argv = [arg.replace("{strays}", str(strays)) for arg in args]
    env = {**os.environ, "PYTHONPATH": str(strays)}
    out = [] if "--out" in argv else ["--out", str(tmp_path / "out")]
    done = subprocess.run([*MCPTRIO, *argv, *out], capture_output=True, text=True, env=env)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("mcptrio: error: "), done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()
