#!/usr/bin/env bash
# `npm test`'s pretest, beside ensure-chromium.sh. The warehouse tests run against real servers:
# MariaDB (the mysql sink) is started when it is down; ClickHouse (Debian's clickhouse-server, 18.16)
# is installed when missing and started when it does not answer. Where this user may do neither, it
# stops before the suite starts with the one command that fixes it.
set -euo pipefail

as_root=()
may_admin() {
  if [ "$(id -u)" = 0 ]; then return 0; fi
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then as_root=(sudo -n); return 0; fi
  return 1
}

wait_for() { # seconds, command...
  local seconds=$1; shift
  for _ in $(seq $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

mariadb_up() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 -u root ping; }
start_mariadb='start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd'
if [ -z "${CALLSYNC_TEST_MYSQL_URL:-}" ] && ! mariadb_up >/dev/null 2>&1; then
  if ! may_admin || [ ! -x /usr/sbin/mariadbd ]; then
    echo "error: MariaDB is not answering on 127.0.0.1:3306 (the mysql sink's tests use it)" >&2
    echo "fix: $start_mariadb   (or set CALLSYNC_TEST_MYSQL_URL)" >&2
    exit 1
  fi
  echo "MariaDB is down: starting it" >&2
  "${as_root[@]}" sh -c "$start_mariadb"
  if ! wait_for 30 mariadb_up; then
    echo "error: MariaDB did not answer within 30 s of: $start_mariadb" >&2
    exit 1
  fi
fi

clickhouse_up() { curl -fsS http://127.0.0.1:8123/ping; }
install_clickhouse='apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clickhouse-server clickhouse-client'
start_clickhouse='start-stop-daemon --start --oknodo --background --chuid clickhouse --exec /usr/sbin/clickhouse-server -- --config=/etc/clickhouse-server/config.xml'
if [ -z "${CALLSYNC_TEST_CLICKHOUSE_URL:-}" ] && ! clickhouse_up >/dev/null 2>&1; then
  if [ ! -x /usr/sbin/clickhouse-server ]; then
    if ! command -v apt-get >/dev/null 2>&1 || ! may_admin; then
      echo "error: ClickHouse is not installed (the clickhouse sink's tests use Debian's clickhouse-server)" >&2
      echo "fix: sudo sh -c '$install_clickhouse; $start_clickhouse'   (or set CALLSYNC_TEST_CLICKHOUSE_URL)" >&2
      exit 1
    fi
    echo "ClickHouse not found: installing Debian's clickhouse-server" >&2
    "${as_root[@]}" sh -c "$install_clickhouse" >&2
  fi
  if ! may_admin; then
    echo "error: ClickHouse is not answering on 127.0.0.1:8123" >&2
    echo "fix: sudo $start_clickhouse" >&2
    exit 1
  fi
  echo "ClickHouse is down: starting it" >&2
  "${as_root[@]}" sh -c "$start_clickhouse"
  if ! wait_for 60 clickhouse_up; then
    echo "error: ClickHouse did not answer within 60 s of: $start_clickhouse (see /var/log/clickhouse-server/)" >&2
    exit 1
  fi
fi
