"""One interpreter per documentation page: runs the page's Python blocks in order, in one namespace.

The test sends one JSON line per block on stdin ({"name", "code"}) and reads one JSON line back
({"ok": true} or {"ok": false, "error": traceback}) on the file descriptor given as argv[1]; what
the snippets print goes to stderr.  A block with top-level ``await`` runs under ``trio.run``.
"""

import ast
import inspect
import json
import os
import sys
import traceback
import types


def main() -> None:
    answers = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    sys.stdout = sys.stderr
    sys.path.insert(0, os.getcwd())  # modules the page wrote with `file` directives import from here
    # The blocks run as a script's body would, in the __main__ module: type hints that name a class
    # the page defined (a dataclass referring to itself) resolve through it.
    page = types.ModuleType("__main__")
    sys.modules["__main__"] = page
    namespace: dict[str, object] = page.__dict__
    for line in sys.stdin:
        request = json.loads(line)
        try:
            code = compile(request["code"], request["name"], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, namespace)
            if inspect.iscoroutine(result):
                import trio

                async def block() -> None:
                    await result

                trio.run(block)
            answers.write(json.dumps({"ok": True}) + "\n")
        except BaseException:  # noqa: BLE001 - a SystemExit or KeyboardInterrupt in a snippet is a failure too
            answers.write(json.dumps({"ok": False, "error": traceback.format_exc()}) + "\n")


if __name__ == "__main__":
    main()
