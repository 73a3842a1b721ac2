"""A ``--stdio`` server that exits, fails to start, is killed or closes its stdout before it answers:
the client ends at once with one error (its exit status and the last lines of its stderr), never a
hang or a traceback.  Each case runs in a loop: the hang this replaces came one run in five."""

import shlex
import sys

import pytest
import trio

from mcptrio.client import connect
from mcptrio.protocol.errors import McpError

from ..cli.test_client_commands import mcptrio, one_line_error

RUNS = 20
PYTHON = shlex.quote(sys.executable)


def python(code: str) -> str:
    return f"{PYTHON} -c {shlex.quote(code)}"


GONE = [
    ("false", "the server exited with status 1"),
    (
        python("import sys; print('starting', file=sys.stderr); print('no such config', file=sys.stderr); sys.exit(3)"),
        "the server exited with status 3; its stderr ended with: starting | no such config",
    ),
    (python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"), "the server was killed by SIGKILL"),
    # stdout closed, stdin still open: the fallback to initialize used to wait for ever on it
    (
        python("import os, sys, time; os.close(1); print('bye', file=sys.stderr); time.sleep(30)"),
        "the server closed its output; its stderr ended with: bye",
    ),
]


@pytest.mark.long
@pytest.mark.parametrize(("command", "says"), GONE, ids=["false", "exit-3", "killed", "stdout-closed"])
async def test_a_server_gone_before_it_answers_is_one_error_at_once(command: str, says: str) -> None:
    for run in range(RUNS):
        started = trio.current_time()
        with trio.fail_after(10), pytest.raises(McpError) as refused:
            async with connect(command, keep_stderr=True):
                pass
        assert says in refused.value.message, (run, refused.value.message)
        assert refused.value.data == {"transport": True}
        # (the process's own start, plus at most the second given to a server that lingers)
        assert trio.current_time() - started < 5, run


def test_the_command_says_it_in_one_line_with_status_2() -> None:
    gone = one_line_error(mcptrio("list", "--stdio", "false"))
    assert gone.endswith("the server exited with status 1")
    for _ in range(5):
        line = one_line_error(mcptrio("inspect", "--stdio", f"{PYTHON} -m mcptrio serve --plugins wether"))
        assert "the server exited with status 2" in line and "failed to load plugin 'wether'" in line, line
