#!/usr/bin/env bash
# Several hosts on one machine, for the soak with workers on different hosts (--hosts): Linux network namespaces
# joined by veth pairs to a bridge in the root namespace, each with an address of its own in 10.77.0.0/24:
#
#   ptq-db   10.77.0.2   PostgreSQL :5432, RabbitMQ :5672, MariaDB :3306 of its own (never the machine's servers)
#   ptq-w1   10.77.0.11  workers
#   ptq-w2   10.77.0.12  workers
#   ptq-app  10.77.0.20  the app (enqueues) and the cleaners
#   (root)   10.77.0.1   the bridge ptq-br0: the orchestrator of a soak, and its fault proxies
#
# Usage: scripts/hosts.sh up|down|status|urls|cut HOST|restore HOST
#
# up       creates what is missing and starts the servers of ptq-db that are not running; running hosts are reused.
# down     stops those servers and removes the namespaces, the bridge and the servers' folders.
# status   prints each host's address and link state, and each server's state.
# urls     prints the servers' URLs as NAME=URL lines: POSTGRES_URL, MYSQL_URL, AMQP_URL.
# cut H    takes host H's link down: it reaches neither the database nor the broker, nor anything else.
# restore H  brings host H's link up again.
#
# Environment: PTQ_HOSTS_DIR (default /tmp/ptq-hosts) holds the servers' data and logs; PTQ_PG_BIN the PostgreSQL
# programs (default /usr/lib/postgresql/15/bin). Runs as root (namespaces, and the servers run as the users postgres,
# rabbitmq and mysql). Needs iproute2, PostgreSQL, RabbitMQ and MariaDB as Debian installs them
# (apt-get install iproute2 postgresql rabbitmq-server mariadb-server).

set -euo pipefail

DIR="${PTQ_HOSTS_DIR:-/tmp/ptq-hosts}"
PG_BIN="${PTQ_PG_BIN:-/usr/lib/postgresql/15/bin}"
BRIDGE=ptq-br0
NET=10.77.0
HOSTS=(ptq-db ptq-w1 ptq-w2 ptq-app)
DB_ADDR=$NET.2
RABBIT_NODE=ptqhosts@localhost
# The programs themselves: Debian's wrappers in /usr/sbin use the system node's cookie and startup log.
RABBIT_BIN=/usr/lib/rabbitmq/bin

address() {
  case "$1" in
    ptq-db) echo "$NET.2" ;;
    ptq-w1) echo "$NET.11" ;;
    ptq-w2) echo "$NET.12" ;;
    ptq-app) echo "$NET.20" ;;
    *)
      echo "unknown host '$1': use one of ${HOSTS[*]}" >&2
      return 1
      ;;
  esac
}

# The root side of a host's veth pair (at most 15 characters); inside its namespace the other side is eth0.
veth() { echo "ptqv-${1#ptq-}"; }

in_ns() {
  local ns=$1
  shift
  ip netns exec "$ns" "$@"
}

require() {
  if [ "$(id -u)" != 0 ]; then
    echo "scripts/hosts.sh runs as root (it creates network namespaces)" >&2
    exit 1
  fi
  local missing=()
  command -v ip >/dev/null || missing+=(iproute2)
  [ -x "$PG_BIN/initdb" ] || missing+=(postgresql)
  [ -x "$RABBIT_BIN/rabbitmq-server" ] || missing+=(rabbitmq-server)
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "missing: ${missing[*]}; install with: apt-get install ${missing[*]} (PostgreSQL's programs: PTQ_PG_BIN, now $PG_BIN)" >&2
    exit 1
  fi
}

net_up() {
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
  for host in "${HOSTS[@]}"; do
    [ -e "/run/netns/$host" ] || ip netns add "$host"
    in_ns "$host" ip link set lo up
    local outside
    outside=$(veth "$host")
    if ! ip link show "$outside" >/dev/null 2>&1; then
      in_ns "$host" ip link del eth0 2>/dev/null || true
      ip link add "$outside" type veth peer name "${outside}p"
      ip link set "${outside}p" netns "$host"
      in_ns "$host" ip link set "${outside}p" name eth0
      in_ns "$host" ip addr add "$(address "$host")/24" dev eth0
      ip link set "$outside" master "$BRIDGE"
    fi
    ip link set "$outside" up
    in_ns "$host" ip link set eth0 up
  done
}

# PostgreSQL, as the user postgres (it refuses to run as root), trusting the hosts' range.
pg_ctl_as() { in_ns ptq-db runuser -u postgres -- "$PG_BIN/pg_ctl" "$@"; }

postgres_running() { [ -f "$DIR/pg/data/postmaster.pid" ] && pg_ctl_as status -D "$DIR/pg/data" >/dev/null 2>&1; }

postgres_up() {
  if postgres_running; then return 0; fi
  mkdir -p "$DIR/pg"
  chown postgres:postgres "$DIR/pg"
  chmod 700 "$DIR/pg"
  if [ ! -f "$DIR/pg/data/PG_VERSION" ]; then
    runuser -u postgres -- "$PG_BIN/initdb" -D "$DIR/pg/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C >"$DIR/pg/initdb.log"
    echo "host all all $NET.0/24 trust" >>"$DIR/pg/data/pg_hba.conf"
  fi
  local options="-p 5432 -k $DIR/pg -c listen_addresses=$DB_ADDR,127.0.0.1 -c max_connections=200 -c shared_buffers=64MB"
  pg_ctl_as start -w -t 120 -D "$DIR/pg/data" -l "$DIR/pg/server.log" -o "$options" >/dev/null
}

# RabbitMQ: a node of its own name, folders, Erlang cookie and epmd, all inside ptq-db.
rabbit_env() {
  local dir="$DIR/rabbitmq"
  echo "HOME=$dir/home"
  echo "RABBITMQ_NODENAME=$RABBIT_NODE"
  echo "RABBITMQ_MNESIA_BASE=$dir/mnesia"
  echo "RABBITMQ_LOG_BASE=$dir/log"
  echo "RABBITMQ_CONFIG_FILE=$dir/rabbitmq"
  echo "RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins"
  echo "RABBITMQ_PID_FILE=$dir/pid"
  echo "RABBITMQ_CONF_ENV_FILE=$dir/rabbitmq-env.conf"
  echo "ERL_EPMD_ADDRESS=127.0.0.1"
}

# shellcheck disable=SC2046
rabbitmqctl_as() { in_ns ptq-db runuser -u rabbitmq -- env $(rabbit_env) "$RABBIT_BIN/rabbitmqctl" -n "$RABBIT_NODE" "$@"; }

rabbit_running() { [ -d "$DIR/rabbitmq" ] && rabbitmqctl_as -q status >/dev/null 2>&1; }

rabbit_up() {
  if rabbit_running; then return 0; fi
  local dir="$DIR/rabbitmq"
  mkdir -p "$dir/home" "$dir/mnesia" "$dir/log"
  [ -f "$dir/home/.erlang.cookie" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/home/.erlang.cookie"
  cat >"$dir/rabbitmq.conf" <<EOF
listeners.tcp.default = 5672
loopback_users = none
EOF
  echo "[]." >"$dir/enabled_plugins"
  echo "ERL_EPMD_ADDRESS=127.0.0.1" >"$dir/rabbitmq-env.conf"
  chown -R rabbitmq:rabbitmq "$dir"
  chmod 400 "$dir/home/.erlang.cookie"
  # shellcheck disable=SC2046
  in_ns ptq-db runuser -u rabbitmq -- env $(rabbit_env) "$RABBIT_BIN/rabbitmq-server" -detached
  for _ in $(seq 1 40); do
    if rabbitmqctl_as -q await_startup --timeout 5 >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "RabbitMQ in ptq-db did not start; its log is in $dir/log" >&2
  return 1
}

# MariaDB: its own datadir, socket and pid file, bound to ptq-db's address; root may connect from the hosts' range.
mariadb_as_root() { in_ns ptq-db mariadb --no-defaults --socket="$DIR/mariadb/mariadbd.sock" -uroot "$@"; }

mariadb_running() { [ -S "$DIR/mariadb/mariadbd.sock" ] && mariadb_as_root -e "SELECT 1" >/dev/null 2>&1; }

mariadb_up() {
  if mariadb_running; then return 0; fi
  local dir="$DIR/mariadb"
  mkdir -p "$dir"
  chown mysql:mysql "$dir"
  if [ ! -d "$dir/data/mysql" ]; then
    mariadb-install-db --no-defaults --datadir="$dir/data" --user=mysql --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1
  fi
  in_ns ptq-db setsid /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --port=3306 --socket="$dir/mariadbd.sock" --pid-file="$dir/mariadbd.pid" \
    --log-error="$dir/error.log" --bind-address="$DB_ADDR" --skip-name-resolve --innodb-flush-log-at-trx-commit=1 --innodb-buffer-pool-size=64M \
    --max-connections=200 --user=mysql </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    if mariadb_running; then
      mariadb_as_root -e "CREATE USER IF NOT EXISTS 'root'@'$NET.%'; GRANT ALL ON *.* TO 'root'@'$NET.%' WITH GRANT OPTION"
      return 0
    fi
    sleep 0.5
  done
  echo "MariaDB in ptq-db did not start; its log is $dir/error.log" >&2
  return 1
}

urls() {
  echo "POSTGRES_URL=postgresql://postgres@$DB_ADDR:5432/postgres"
  echo "MYSQL_URL=mysql://root@$DB_ADDR:3306/mysql"
  echo "AMQP_URL=amqp://guest:guest@$DB_ADDR:5672"
}

cmd_up() {
  require
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  net_up
  postgres_up
  mariadb_up
  rabbit_up
  urls
}

cmd_down() {
  if [ -e /run/netns/ptq-db ]; then
    if [ -f "$DIR/pg/data/postmaster.pid" ]; then pg_ctl_as stop -m fast -w -D "$DIR/pg/data" >/dev/null 2>&1 || true; fi
    if [ -d "$DIR/rabbitmq" ]; then rabbitmqctl_as -q stop >/dev/null 2>&1 || true; fi
    if [ -f "$DIR/mariadb/mariadbd.pid" ]; then kill "$(cat "$DIR/mariadb/mariadbd.pid")" 2>/dev/null || true; fi
  fi
  # What still runs inside the hosts (epmd, a server that did not stop, a soak's leftovers) was started there by us.
  for host in "${HOSTS[@]}"; do
    if [ -e "/run/netns/$host" ]; then
      for _ in $(seq 1 20); do
        [ -n "$(ip netns pids "$host")" ] || break
        sleep 0.5
      done
      ip netns pids "$host" | xargs -r kill -9 2>/dev/null || true
      ip netns del "$host"
    fi
    ip link del "$(veth "$host")" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$DIR"
}

state() { if "$@"; then echo running; else echo stopped; fi; }

cmd_status() {
  for host in "${HOSTS[@]}"; do
    if [ -e "/run/netns/$host" ]; then
      echo "$host $(address "$host") link $(in_ns "$host" cat /sys/class/net/eth0/operstate 2>/dev/null || echo missing)"
    else
      echo "$host $(address "$host") absent"
    fi
  done
  if [ -e /run/netns/ptq-db ]; then
    echo "postgresql $DB_ADDR:5432 $(state postgres_running)"
    echo "rabbitmq $DB_ADDR:5672 $(state rabbit_running)"
    echo "mariadb $DB_ADDR:3306 $(state mariadb_running)"
  fi
}

link() {
  local host=${2:?a host: ${HOSTS[*]}}
  address "$host" >/dev/null
  in_ns "$host" ip link set eth0 "$1"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  urls) urls ;;
  cut) link down "${2:-}" ;;
  restore) link up "${2:-}" ;;
  *)
    echo "usage: $0 up|down|status|urls|cut HOST|restore HOST" >&2
    exit 2
    ;;
esac
