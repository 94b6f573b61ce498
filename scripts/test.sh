#!/usr/bin/env bash
# The README's second command: install what the tests need, then run every suite:
# the fast suite, the browser test (Debian's Chromium), the scale tests (PostgreSQL + Chroma server).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False

status=0
echo "== unit and integration tests"
.venv/bin/pytest -q -p no:randomly || status=$?

if [ "${RELAIS_SKIP_BROWSER:-0}" != "1" ]; then
  echo "== browser test (Chromium)"
  bash scripts/ensure-chromium.sh
  .venv/bin/pytest -q -m browser tests/e2e || status=$?
fi

if [ "${RELAIS_SKIP_SCALE:-0}" != "1" ] && [ -x scripts/scale-tests.sh ]; then
  echo "== scale tests (PostgreSQL + Chroma server)"
  bash scripts/scale-tests.sh || status=$?
fi
exit $status
