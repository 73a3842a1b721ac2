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
    # pip compiles what it installs, but not an editable install's sources: compiled here, once, so a
    # process started with PYTHONDONTWRITEBYTECODE set (some images set it) does not compile them
    # again at every start.  (Python still checks each file's time: an edited one is read afresh.)
    "$VENV/bin/python" -m compileall -q -j 0 -x '/(node_modules|\.venv[^/]*)/' mcptrio plugins examples bench >/dev/null
}

# Debian's redis-server and haproxy for the scale-out tests, and nginx for the reverse-proxy page of
# the documentation: installed as root when missing (CI), else one line says what to install.  Held
# to bookworm's release series (7.0, 2.6 and 1.22), which the tests were written against.
debian_packages() {
    local missing=()
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ]; then
            echo "the tests need Debian's ${missing[*]}: run 'sudo apt-get install ${missing[*]}'" >&2
            exit 2
        fi
        # (all named: one already present is left as it is)
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server haproxy nginx >/dev/null 2>&1 || {
            apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server haproxy nginx >/dev/null
        }
    fi
    # (each version is read whole before it is matched: `cmd | grep -q` under pipefail fails when
    # grep stops reading early and the command gets SIGPIPE)
    local version
    version=$(redis-server --version)
    [[ $version == *" v=7.0."* ]] || { echo "redis-server 7.0.x expected: $version" >&2; exit 2; }
    version=$("$(command -v haproxy || echo /usr/sbin/haproxy)" -v)
    [[ $version == *"version 2.6."* ]] || { echo "haproxy 2.6.x expected: ${version%%$'\n'*}" >&2; exit 2; }
    version=$("$(command -v nginx || echo /usr/sbin/nginx)" -v 2>&1)
    [[ $version == *"nginx/1.22."* ]] || { echo "nginx 1.22.x expected: $version" >&2; exit 2; }
}

# `npm ci` in a folder, skipped when its node_modules was installed from the same package-lock.json.
npm_ci() {
    local dir=$1; shift
    cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json" 2>/dev/null && return 0
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error "$@"
    cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json"
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
        debian_packages
        # The Node packages install in a second process while pip installs the Python ones: pip
        # keeps one core busy for about two minutes, npm mostly waits on downloads and the disk.
        (
            # The official conformance suite and a Node >= 22 to run it, pinned by conformance/package-lock.json.
            npm_ci conformance
            # A real OAuth authorization server for the authorization tests (oidc-provider), pinned likewise.
            npm_ci tests/auth/oidc
            # Mermaid for the documentation site's diagrams, served with the site (docs/hooks/mermaid_local.py).
            npm_ci docs/hooks --ignore-scripts
            # MCP servers nobody here wrote, the upstreams of the interop and gateway tests (tests/peers/servers.py).
            npm_ci tests/peers
            # The official MCP Bundle CLI (mcpb), which validates the bundles `mcptrio bundle` writes (tests/distribution).
            npm_ci tests/distribution
            # The TypeScript SDK's servers, both generations, that bench/run.py measures mcptrio against.
            npm_ci bench/peers/ts
        ) &
        node_packages=$!
        setup_python -e '.[test]'
        wait "$node_packages" || { echo "installing the Node packages failed (its error is above)" >&2; exit 2; }
        # The whole suite runs in two processes (pytest-xdist): most of its time is spent waiting on
        # sockets and subprocesses.  Files or options named on the command line run as given.
        # (The slowest 30 are listed at the end: the suite must stay within CI's 20 minutes; the tests
        # marked `long` start first, tests/conftest.py.)
        if [ $# -eq 0 ]; then set -- -n "${MCPTRIO_TEST_PROCESSES:-2}" --durations=30; fi
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    *)
        echo "usage: bash scripts/dev.sh serve [options] | test [pytest options]" >&2
        exit 2
        ;;
esac
