#!/usr/bin/env bash
# Set up, seed the demo deal (idempotent) and open the dashboard on http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pipeline seed-demo
exec .venv/bin/streamlit run streamlit_app.py --server.port "${PORT:-8501}" "$@"
