#!/usr/bin/env bash
# Runs the token, refresh, admin, session and zone test files of both services through a real PgBouncer in
# transaction mode (issue 24), the way managed PostgreSQL and most large deployments put a pooler in front:
# each transaction may land on another server connection, so named statements and session state break there.
# Needs Debian's pgbouncer (installed by .ci/run) and the PostgreSQL of TEST_DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || { echo "pgbouncer is not installed (Debian: apt-get install pgbouncer)" >&2; exit 3; }
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)

server="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
host=$(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname)' "$server")
port=$(node -e 'const u = new URL(process.argv[1]); console.log(u.port || 5432)' "$server")
user=$(node -e 'const u = new URL(process.argv[1]); console.log(decodeURIComponent(u.username) || "postgres")' "$server")
listen=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')

dir=$(mktemp -d)
chmod 755 "$dir"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$port user=$user

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = any
pool_mode = transaction
# Hand out server connections in turn (not LIFO), so state left on one connection shows up as it would under load.
server_round_robin = 1
min_pool_size = 4
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits,options
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
INI
# PgBouncer refuses to run as root.
run_as=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "no postgres user to run pgbouncer as" >&2; exit 3; }
  chown -R postgres "$dir"
  run_as=(-u postgres)
fi
"$PGBOUNCER" -d "${run_as[@]}" "$dir/pgbouncer.ini"
stop() {
  [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p "$listen" && break
  sleep 0.2
done
pg_isready -q -h 127.0.0.1 -p "$listen" || { cat "$dir/pgbouncer.log" >&2; echo "pgbouncer did not start" >&2; exit 1; }
echo "PgBouncer $("$PGBOUNCER" --version | head -n 1) in transaction mode on 127.0.0.1:$listen"

export TEST_POOLER_URL="postgres://$user@127.0.0.1:$listen/postgres"
status=0
pnpm --filter @keyzone/auth-server exec jest --ci \
  test/token.test.ts test/refresh.test.ts test/admin/admin-users.test.ts test/admin/admin-authjs.test.ts \
  test/logout.test.ts test/user.test.ts test/auth-js.test.ts test/rate-limit.test.ts test/mfa/mfa.test.ts || status=1
pnpm --filter @keyzone/dns-session-api exec jest --ci \
  test/session.test.ts test/shared-sessions.test.ts test/zones test/users-groups.test.ts || status=1
exit $status
