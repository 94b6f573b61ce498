#!/usr/bin/env bash
# `make bench`: the benchmarks (ingest, retrieval, SSE relay, coach turn, cold start,
# help-center answers, the same through the real app, CNIL answer sources, the shipped defaults, fifty
# simultaneous conversations with a profile of the app), each printing our figure next to a reference
# measured in the same run, then a summary table; JSON results go to $RELAIS_DATA_DIR/bench/
# (default .relais/bench/latest.json).
# Extra arguments go to the driver, e.g. `bash scripts/bench.sh --only sse coach`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False \
  TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m benchmarks "$@"
