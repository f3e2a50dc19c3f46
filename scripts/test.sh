#!/usr/bin/env bash
# Set up (with test tools and chromium), lint, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
