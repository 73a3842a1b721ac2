#!/usr/bin/env bash
# Set up the project in ./.venv (idempotent) and run the main job or the test suite.
#   bash scripts/dev.sh serve [mcptrio serve options]   # default: --plugins everything over stdio
#   bash scripts/dev.sh test [pytest options]           # the whole suite, as CI runs it
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv

setup_python() {
    if [ ! -x "$VENV/bin/python" ]; then
        "$PYTHON" -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c constraints.txt "$@" \
        -e . $(for p in plugins/*/ examples/plugin_package/; do printf -- '-e %s ' "$p"; done)
}

case "${1:-}" in
    serve)
        shift
        setup_python >&2
        if [ $# -eq 0 ]; then set -- --plugins everything; fi
        exec "$VENV/bin/mcptrio" serve "$@"
        ;;
    test)
        shift
        setup_python -e '.[test]'
        # The official conformance suite and a Node >= 22 to run it, pinned by conformance/package-lock.json.
        npm ci --prefix conformance --no-audit --no-fund --loglevel=error
        # A real OAuth authorization server for the authorization tests (oidc-provider), pinned likewise.
        npm ci --prefix tests/auth/oidc --no-audit --no-fund --loglevel=error
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    *)
        echo "usage: bash scripts/dev.sh serve [options] | test [pytest options]" >&2
        exit 2
        ;;
esac
