#!/usr/bin/env bash
# Set up, seed the demo deal (idempotent), warm up and open the dashboard on http://127.0.0.1:8501.
# It listens on 127.0.0.1 only; RETRIEVAL_LAB_ADDRESS=0.0.0.0 (or any address) serves elsewhere on purpose,
# and so does passing --server.address yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${PORT:-8501}"
address="${RETRIEVAL_LAB_ADDRESS:-127.0.0.1}"
echo "retrieval-lab: setting up .venv (the first time installs the packages: about a minute)…"
bash scripts/setup.sh
echo "retrieval-lab: loading the demo deal (kept as it is if already loaded)…"
.venv/bin/python -m pipeline seed-demo
extra=()
if [[ "$address" == "0.0.0.0" || "$address" == "::" ]]; then
  # Streamlit would print network URLs and ask the internet for this machine's external IP: say it here
  extra=(--logger.hideWelcomeMessage true)
  echo "retrieval-lab: serving on every interface ($address), as RETRIEVAL_LAB_ADDRESS asks:" \
    "open http://localhost:$port here, or this machine's address and port $port elsewhere"
fi
exec .venv/bin/python -m dashboard.serve --server.port "$port" --server.address "$address" "${extra[@]}" "$@"
