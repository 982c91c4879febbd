#!/usr/bin/env bash
# Builds and starts the deployment in containers and checks it (scripts/container-test.mjs). Starts dockerd when
# it is installed and not running (machines without systemd), and makes the base images available first
# (pulled, or local stand-ins: scripts/container-stand-ins.sh). Exit code 3: no Docker engine could start.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOCKER=${DOCKER:-/usr/bin/docker}
[ -x "$DOCKER" ] || DOCKER=$(command -v docker || true)
[ -n "$DOCKER" ] || { echo "no docker client installed" >&2; exit 3; }

if ! "$DOCKER" info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 || { echo "no Docker engine installed" >&2; exit 3; }
  echo "starting dockerd (log: /var/tmp/keyzone-dockerd.log)"
  nohup dockerd >/var/tmp/keyzone-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
  "$DOCKER" info >/dev/null 2>&1 || { tail -5 /var/tmp/keyzone-dockerd.log >&2; echo "dockerd did not start" >&2; exit 3; }
fi

bash scripts/container-stand-ins.sh
node scripts/container-test.mjs
