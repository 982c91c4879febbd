#!/bin/sh
# Creates the SQLite schema on the first start (an empty volume) and writes the API key from PDNS_API_KEY to a
# file only the pdns user reads, so it is on no command line; then runs PowerDNS. As PID 1 pdns_server would ignore
# SIGTERM (no handler), so this shell stays PID 1 and turns `docker stop` into `pdns_control quit`: exit code 0.
set -eu
db=/var/lib/powerdns/pdns.sqlite3
if [ ! -s "$db" ]; then
  sqlite3 "$db" </usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql
  echo "created $db"
fi
[ -n "${PDNS_API_KEY:-}" ] || { echo "PDNS_API_KEY is required (the key the DNS API sends)" >&2; exit 1; }
umask 077
printf 'api-key=%s\n' "$PDNS_API_KEY" >/etc/powerdns/api.d/api-key.conf
unset PDNS_API_KEY
"$@" &
pid=$!
trap 'pdns_control --config-dir=/etc/powerdns quit >/dev/null 2>&1 || kill "$pid"' TERM INT
status=0
wait "$pid" || status=$?
# A trapped signal ends the first wait early; the second one returns PowerDNS's own exit code.
if kill -0 "$pid" 2>/dev/null || [ "$status" -gt 128 ]; then status=0; wait "$pid" || status=$?; fi
exit "$status"
