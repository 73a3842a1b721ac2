#!/usr/bin/env bash
# Build the documentation site and take screenshots of some of its pages in headless Chromium
# (Debian's chromium package), to look at before a release:
#   bash scripts/docs-screenshots.sh OUT_DIR [PAGE ...]     # default pages: the home page and two guides
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: docs-screenshots.sh OUT_DIR [PAGE ...]}")
shift
if [ $# -gt 0 ]; then pages=("$@"); else pages=("" guides/middleware/ concepts/architecture/); fi
command -v chromium >/dev/null || { echo "needs Debian's chromium: apt-get install chromium" >&2; exit 2; }
mkdir -p "$out"
site=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet -d "$site"
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
.venv/bin/python -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
for page in "${pages[@]}"; do
    name=$(echo "${page:-home}" | tr '/' '_' | sed 's/_$//')
    profile=$(mktemp -d)
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
        --window-size=1280,1600 --virtual-time-budget=5000 --screenshot="$out/$name.png" \
        "http://127.0.0.1:$port/$page" >/dev/null 2>&1
    rm -rf "$profile"
    echo "$out/$name.png"
done
