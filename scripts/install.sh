#!/usr/bin/env bash
# Install Relais into .venv at the repo root: the CPU build of torch first (a plain `torch`
# would pull a multi-GB CUDA build), then the locked dependencies, then the project itself.
# Idempotent: a second run only checks what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PY=${PYTHON:-python3}
stamp="$VENV/.relais-installed"
want="$(cat requirements.lock pyproject.toml | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
start=$(date +%s)
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if ! "$VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
  echo "[install] torch 2.13.0 (CPU build)"
  "$VENV/bin/python" -m pip install -q "torch==2.13.0"
fi
"$VENV/bin/python" -m pip install -q uv
echo "[install] locked dependencies (requirements.lock)"
"$VENV/bin/uv" pip install -q --python "$VENV/bin/python" -r requirements.lock
"$VENV/bin/uv" pip install -q --python "$VENV/bin/python" --no-deps -e .
# src/ on sys.path, so packages added later need no reinstall.
site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$PWD/src" > "$site/relais-apps.pth"
echo "$want" > "$stamp"
echo "[install] done in $(( $(date +%s) - start ))s"
