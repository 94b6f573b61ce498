#!/usr/bin/env bash
# Recompile requirements.lock from pyproject.toml (all extras). torch is pinned to the CPU
# build and left out of the lock: scripts/install.sh installs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
"$VENV/bin/uv" pip compile pyproject.toml --extra postgres --extra dev \
  --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --find-links /opt/wheels --override <(echo "torch==2.13.0+cpu") \
  --no-emit-package torch --no-header -o requirements.lock
