#!/usr/bin/env bash
# The LangGraph dev server (the "bring your own agent" protocol) in its own pinned venv.
#   bash scripts/langgraph-server.sh install        # create/refresh .langgraph-venv (idempotent)
#   bash scripts/langgraph-server.sh serve [PORT]   # serve langgraph.json (booking + coach) on 127.0.0.1
# RELAIS_LANGGRAPH_VENV: the venv's folder; RELAIS_LANGGRAPH_WORKDIR: where the server keeps its state.
# Its own venv because langgraph-api needs grpcio<1.82 / protobuf<7 and the project's lock has newer
# ones (chromadb, OpenTelemetry). The project's code comes from PYTHONPATH=src, its libraries are pinned
# to the lock's versions. Offline: no analytics, no version check. Licences: langgraph-api and
# langgraph-runtime-inmem are Elastic-2.0 (tests and local dev only), langgraph-cli/langgraph/sdk MIT.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv="${RELAIS_LANGGRAPH_VENV:-$root/.langgraph-venv}"
server_pins=(
  "langgraph-cli[inmem]==0.4.40"
  "langgraph-api==0.16.7"
  "langgraph-runtime-inmem==0.36.7"
)
# what the served graphs import, at the versions the project's lock pins
lock_names='^(langgraph|langgraph-sdk|langgraph-prebuilt|langgraph-checkpoint|langchain|langchain-core|pydantic|pydantic-settings|tenacity|pyyaml|httpx|orjson)=='
stamp="$venv/.relais-stamp"
want="$(printf '%s\n' "${server_pins[@]}"; grep -E "$lock_names" requirements.lock)"

install() {
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/langgraph" ]; then
    return 0
  fi
  echo "== LangGraph server venv: $venv"
  python3.11 -m venv "$venv" 2>/dev/null || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
  grep -E "$lock_names" requirements.lock > "$venv/constraints.txt"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "${server_pins[@]}" -r "$venv/constraints.txt"
  printf '%s' "$want" > "$stamp"
}

serve() {
  local port="${1:-2024}"
  install
  export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true
  export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
  cd "${RELAIS_LANGGRAPH_WORKDIR:-$root}"  # where the dev server keeps its state (.langgraph_api/)
  exec "$venv/bin/langgraph" dev --no-browser --no-reload --host 127.0.0.1 --port "$port" \
    --config "$root/langgraph.json"
}

case "${1:-serve}" in
  install) install ;;
  serve) shift || true; serve "$@" ;;
  *) echo "usage: $0 install | serve [PORT]" >&2; exit 2 ;;
esac
