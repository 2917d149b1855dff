#!/usr/bin/env bash
# A three-node RabbitMQ cluster on this machine for the cluster tests and soak: nodes ptq1..3@localhost, AMQP on
# 127.0.0.1:5673-5675, beside (never joined to) a broker on 5672. Usage: scripts/rabbitmq-cluster.sh start|stop|status
#
# start   starts the nodes that are not running and joins them into one cluster; a running cluster is reused.
# stop    stops the three nodes and removes their folders.
# status  prints each node's state and the cluster's members.
# urls    prints the AMQP URLs of the three nodes, separated by commas (the value of amqpUrl).
# pid N   prints the process id of node N (1-3): what a test SIGKILLs, SIGSTOPs or SIGCONTs.
# start-node N  starts node N again after it was killed (it rejoins the cluster by itself) and waits until it runs.
# ctl N … runs rabbitmqctl against node N (e.g. ctl 2 stop_app, ctl 2 start_app).
# Environment: PTQ_RABBITMQ_CLUSTER_DIR (default /tmp/ptq-rabbitmq-cluster) holds each node's data, logs and config.
# The nodes run as the user that owns the Erlang cookie (rabbitmq), so this script runs as root or as that user.

set -euo pipefail

BASE="${PTQ_RABBITMQ_CLUSTER_DIR:-/tmp/ptq-rabbitmq-cluster}"
NODES=(1 2 3)
NET_TICKTIME=10

node_name() { echo "ptq$1@localhost"; }
amqp_port() { echo $((5672 + $1)); }
dist_port() { echo $((25672 + $1)); }

# Runs a command as the broker's user, with the environment that picks the node's own folders.
as_broker() {
  if [ "$(id -un)" = "rabbitmq" ]; then
    "$@"
  else
    runuser -u rabbitmq -- "$@"
  fi
}

node_env() {
  local n=$1 dir="$BASE/ptq$1"
  echo "RABBITMQ_NODENAME=$(node_name "$n")"
  echo "RABBITMQ_NODE_PORT=$(amqp_port "$n")"
  echo "RABBITMQ_DIST_PORT=$(dist_port "$n")"
  echo "RABBITMQ_MNESIA_BASE=$dir/mnesia"
  echo "RABBITMQ_LOG_BASE=$dir/log"
  echo "RABBITMQ_CONFIG_FILE=$dir/rabbitmq"
  echo "RABBITMQ_ADVANCED_CONFIG_FILE=$dir/advanced.config"
  echo "RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins"
  echo "RABBITMQ_PID_FILE=$dir/pid"
  echo "RABBITMQ_CONF_ENV_FILE=$dir/rabbitmq-env.conf"
  echo "ERL_EPMD_ADDRESS=127.0.0.1"
  echo "HOME=/var/lib/rabbitmq"
}

ctl() {
  local n=$1
  shift
  # shellcheck disable=SC2046
  as_broker env $(node_env "$n") rabbitmqctl -n "$(node_name "$n")" "$@"
}

running() { ctl "$1" -q await_startup --timeout 1 >/dev/null 2>&1 || ctl "$1" -q status >/dev/null 2>&1; }

prepare() {
  local n=$1 dir="$BASE/ptq$1"
  mkdir -p "$dir/mnesia" "$dir/log"
  cat >"$dir/rabbitmq.conf" <<EOF
listeners.tcp.local = 127.0.0.1:$(amqp_port "$n")
loopback_users = none
cluster_partition_handling = pause_minority
EOF
  cat >"$dir/advanced.config" <<EOF
[{kernel, [{net_ticktime, $NET_TICKTIME}]}].
EOF
  echo "[]." >"$dir/enabled_plugins"
  cat >"$dir/rabbitmq-env.conf" <<EOF
ERL_EPMD_ADDRESS=127.0.0.1
export ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"
EOF
  chown -R rabbitmq:rabbitmq "$BASE" 2>/dev/null || true
}

start_node() {
  local n=$1
  if running "$n"; then return 0; fi
  prepare "$n"
  # shellcheck disable=SC2046
  as_broker env $(node_env "$n") ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}" rabbitmq-server -detached
}

wait_node() {
  local n=$1
  for _ in $(seq 1 120); do
    if ctl "$n" -q await_startup --timeout 5 >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "node $(node_name "$n") did not start; its log is in $BASE/ptq$n/log" >&2
  return 1
}

members_of() { ctl "$1" -q cluster_status --formatter json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).running_nodes.sort().join(" "))}catch{console.log("")}})'; }

urls() {
  local list=()
  for n in "${NODES[@]}"; do list+=("amqp://guest:guest@127.0.0.1:$(amqp_port "$n")"); done
  (
    IFS=,
    echo "${list[*]}"
  )
}

cmd_start() {
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_node "$n"; done
  local first
  first=$(node_name 1)
  for n in 2 3; do
    if ! members_of "$n" | grep -qw "$first"; then
      ctl "$n" stop_app >>"$BASE/join.log" 2>&1
      ctl "$n" reset >>"$BASE/join.log" 2>&1
      ctl "$n" join_cluster "$first" >>"$BASE/join.log" 2>&1
      ctl "$n" start_app >>"$BASE/join.log" 2>&1
    fi
  done
  local want
  want="$(node_name 1) $(node_name 2) $(node_name 3)"
  for _ in $(seq 1 60); do
    if [ "$(members_of 1)" = "$want" ]; then
      urls
      return 0
    fi
    sleep 1
  done
  echo "the cluster did not form: node 1 sees '$(members_of 1)'" >&2
  return 1
}

cmd_stop() {
  for n in "${NODES[@]}"; do
    ctl "$n" -q stop >/dev/null 2>&1 || true
    if [ -f "$BASE/ptq$n/pid" ]; then kill -9 "$(cat "$BASE/ptq$n/pid")" 2>/dev/null || true; fi
  done
  rm -rf "$BASE"
}

cmd_status() {
  for n in "${NODES[@]}"; do
    if running "$n"; then
      echo "$(node_name "$n") amqp://guest:guest@127.0.0.1:$(amqp_port "$n") running; members: $(members_of "$n")"
    else
      echo "$(node_name "$n") amqp://guest:guest@127.0.0.1:$(amqp_port "$n") stopped"
    fi
  done
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  urls) urls ;;
  pid) cat "$BASE/ptq${2:?node number 1-3}/pid" ;;
  start-node)
    start_node "${2:?node number 1-3}"
    wait_node "$2"
    ;;
  ctl)
    n=${2:?node number 1-3}
    shift 2
    ctl "$n" "$@"
    ;;
  *)
    echo "usage: $0 start|stop|status|urls|pid N|start-node N|ctl N ARGS" >&2
    exit 2
    ;;
esac
