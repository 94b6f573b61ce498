#!/usr/bin/env bash
# Scale-out tests on real engines: PostgreSQL (Debian's package, installed if missing) and a
# Chroma server (`chroma run`, shipped with chromadb), both on 127.0.0.1 in a temp folder,
# stopped on exit; nginx (Debian's package, installed if missing) for the load-balancer test,
# which starts its own. If any cannot start, this fails with the reason: skipping is not passing.
# `scripts/scale-tests.sh --run CMD...` runs CMD on those services instead of the scale tests.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pgbin)" ]; then
  echo "[scale] installing PostgreSQL (Debian package)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq postgresql >/dev/null
fi
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "[scale] installing nginx (Debian package; the service itself is not started)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq && RUNLEVEL=1 $SUDO apt-get install -y -qq nginx-light >/dev/null \
    || RUNLEVEL=1 $SUDO apt-get install -y -qq nginx >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "[scale] FAIL: nginx could not be installed"; exit 1; }
export RELAIS_SCALE_NGINX="$NGINX"
PGBIN=$(pgbin)
[ -n "$PGBIN" ] || { echo "[scale] FAIL: PostgreSQL could not be installed"; exit 1; }

free_port() { "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d /tmp/relais-scale.XXXXXX)
PGPORT=$(free_port); CHROMA_PORT_FREE=$(free_port)
as_pg=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown -R postgres "$WORK"; as_pg=(runuser -u postgres --)
fi
chroma_pid=""
cleanup() {
  [ -n "$chroma_pid" ] && kill "$chroma_pid" 2>/dev/null || true
  "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "[scale] PostgreSQL on 127.0.0.1:$PGPORT"
"${as_pg[@]}" "$PGBIN/initdb" -D "$WORK/pg" -A trust -U postgres >/dev/null
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -o "-p $PGPORT -h 127.0.0.1 -k $WORK -c max_connections=200" -l "$WORK/pg.log" -w start >/dev/null \
  || { echo "[scale] FAIL: PostgreSQL did not start"; cat "$WORK/pg.log"; exit 1; }
"$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -qc "CREATE DATABASE relais" >/dev/null

echo "[scale] Chroma server on 127.0.0.1:$CHROMA_PORT_FREE"
mkdir -p "$WORK/chroma"
"$VENV/bin/chroma" run --path "$WORK/chroma" --host 127.0.0.1 --port "$CHROMA_PORT_FREE" >"$WORK/chroma.log" 2>&1 &
chroma_pid=$!
for _ in $(seq 1 120); do
  if curl -fs "http://127.0.0.1:$CHROMA_PORT_FREE/api/v2/heartbeat" >/dev/null 2>&1; then break; fi
  kill -0 "$chroma_pid" 2>/dev/null || { echo "[scale] FAIL: Chroma server exited"; cat "$WORK/chroma.log"; exit 1; }
  sleep 0.5
done
curl -fs "http://127.0.0.1:$CHROMA_PORT_FREE/api/v2/heartbeat" >/dev/null || { echo "[scale] FAIL: Chroma server did not answer"; exit 1; }

export RELAIS_SCALE_DATABASE_URL="postgresql://postgres@127.0.0.1:$PGPORT/relais"
export RELAIS_SCALE_CHROMA="127.0.0.1:$CHROMA_PORT_FREE"
if [ "${1:-}" = "--run" ]; then shift; "$@"; exit $?; fi  # another command on these services (bench_load --nginx)
if [ $# -gt 0 ]; then targets=("$@"); else targets=(tests); fi
"$VENV/bin/pytest" -q -m scale "${targets[@]}"
