"""How the command answers a mistake: one line on stderr, ``mcptrio: error: …``, and exit status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class UsageError(Exception):
    """A mistake on the command line or in the config file."""


def fail(message: str) -> NoReturn:
    print(f"mcptrio: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, without the usage text."""

    def error(self, message: str) -> NoReturn:
        fail(message)
