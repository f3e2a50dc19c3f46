#!/usr/bin/env bash
# Set up (with test tools and chromium), lint, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# two workers, each test file on one of them (its module fixtures built once): half the suite's time is spent
# waiting on servers, subprocesses and the browser, so two files at a time fit 2 cores
exec .venv/bin/python -m pytest -q -p no:cacheprovider --numprocesses 2 --dist loadfile --no-loadscope-reorder "$@"
