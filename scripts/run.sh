#!/usr/bin/env bash
# Set up, seed the demo deal (idempotent) and open the dashboard on http://localhost:8501.
# It listens on 127.0.0.1 only; RETRIEVAL_LAB_ADDRESS=0.0.0.0 (or any address) serves elsewhere on purpose,
# and so does passing --server.address yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pipeline seed-demo
exec .venv/bin/streamlit run streamlit_app.py --server.port "${PORT:-8501}" \
  --server.address "${RETRIEVAL_LAB_ADDRESS:-127.0.0.1}" "$@"
