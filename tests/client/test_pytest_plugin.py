"""mcptrio's pytest plugin, run in a pytest of its own on a throwaway test folder."""

import subprocess
import sys
import textwrap


def run_pytest(tmp_path, tests, ini="[pytest]\ntrio_mode = true\n"):
    (tmp_path / "pytest.ini").write_text(ini)
    (tmp_path / "test_it.py").write_text(textwrap.dedent(tests))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def test_an_app_of_your_own_in_both_eras_over_memory_and_http(tmp_path):
    done = run_pytest(
        tmp_path,
        """
        import pytest
        import mcptrio

        @pytest.fixture
        def mcp_app():
            app = mcptrio.App("mine")

            @app.tool()
            async def double(n: int) -> int:
                return 2 * n

            return app

        @pytest.mark.mcp_transports("memory", "http")
        async def test_double(mcp_client, mcp_setup):
            result = await mcp_client.call_tool("double", {"n": 21})
            assert result.structured_content == {"result": 42}
            assert mcp_client.era == mcp_setup[0]
        """,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout


def test_installed_plugins_over_stdio_and_one_era(tmp_path):
    done = run_pytest(
        tmp_path,
        """
        import pytest

        @pytest.mark.mcp_plugins("bench")
        @pytest.mark.mcp_transports("stdio")
        @pytest.mark.mcp_eras("legacy")
        async def test_echo(mcp_client):
            assert (await mcp_client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
            assert mcp_client.era == "legacy"
        """,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_nothing_to_serve_and_a_bad_marker_are_clear_errors(tmp_path):
    done = run_pytest(
        tmp_path,
        """
        import pytest

        async def test_nothing(mcp_client):
            pass
        """,
    )
    assert done.returncode != 0 and "mcp_client has nothing to serve" in done.stdout + done.stderr
    done = run_pytest(
        tmp_path,
        """
        import pytest

        @pytest.mark.mcp_plugins("bench")
        @pytest.mark.mcp_transports("carrier-pigeon")
        async def test_bad(mcp_client):
            pass
        """,
    )
    assert done.returncode != 0 and "unknown ['carrier-pigeon']" in done.stdout + done.stderr


def test_without_trio_mode_it_says_in_one_line_what_to_add(tmp_path):
    tests = """
        import pytest

        @pytest.mark.mcp_plugins("bench")
        async def test_echo(mcp_client):
            assert (await mcp_client.call_tool("echo", {"text": "a"})).content[0].text == "a"
        """
    done = run_pytest(tmp_path, tests, ini="[pytest]\n")
    assert done.returncode != 0
    assert "add `trio_mode = true` under [tool.pytest.ini_options]" in done.stdout
    assert "AssertionError" not in done.stdout
    marked = run_pytest(
        tmp_path,
        tests.replace("@pytest.mark.mcp_plugins", "@pytest.mark.trio\n        @pytest.mark.mcp_plugins"),
        ini="[pytest]\n",
    )
    assert marked.returncode == 0, marked.stdout
