#!/usr/bin/env bash
# Debian packages the test suites need, in one apt transaction: Chromium and its fonts (browser
# suite: Playwright's own browser download cannot work here; an emoji font so screenshots show what
# a person sees), PostgreSQL and nginx (scale suite: the nginx service itself is never started).
# Idempotent: nothing is fetched when all are there. `make test` runs it in the background while
# the Python venvs install, so apt is off the critical path.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || need+=(fonts-noto-color-emoji)
dpkg -s fonts-dejavu-core >/dev/null 2>&1 || need+=(fonts-dejavu-core)
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive RUNLEVEL=1
echo "[system] installing ${need[*]} (Debian packages)"
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
  # nginx-light is not in every Debian release: the full nginx package serves the same
  need=("${need[@]/nginx-light/nginx}")
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
