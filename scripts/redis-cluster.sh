#!/usr/bin/env bash
# A Redis Cluster of masters only, on loopback, for tests, benchmarks and a first look at scale-out.
#
#   scripts/redis-cluster.sh start DIR PORT...   one redis-server per port (data in DIR/PORT), slots spread over them
#   scripts/redis-cluster.sh stop DIR PORT...    stop them (SIGTERM, then SIGKILL after 10 s)
#
# Environment: APPENDFSYNC (everysec | always | no; default everysec) is each node's AOF fsync policy
# (see docs/scale-out.md for what an acknowledged write survives in each), HASH_MAX_LISTPACK_VALUE
# (default 256) each node's hash-max-listpack-value, REDIS_SERVER and
# REDIS_CLI name the binaries (default: from PATH). Prints the seed list (redis://127.0.0.1:PORT,...).
# Three or more ports: `redis-cli --cluster create --cluster-replicas 0`; one or two: the slots are
# assigned by hand (redis-cli refuses to create a cluster of fewer than three masters).
set -euo pipefail
SERVER="${REDIS_SERVER:-redis-server}"
CLI="${REDIS_CLI:-redis-cli}"
FSYNC="${APPENDFSYNC:-everysec}"
# A hash keeps the compact listpack encoding while each field and value is at most this many bytes
# (Redis's default is 64): 256 lets the store's url buckets hold most URLs (docs/scale-out.md, "Memory").
LISTPACK_VALUE="${HASH_MAX_LISTPACK_VALUE:-256}"

usage() { echo "usage: $0 start|stop DIR PORT..." >&2; exit 2; }
[ $# -ge 3 ] || usage
cmd="$1"; dir="$2"; shift 2
ports=("$@")

ready() { [ "$("$CLI" -p "$1" ping 2>/dev/null)" = "PONG" ]; }
cluster_ok() { "$CLI" -p "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

launch() {
  rm -f "$dir/$1/redis.pid"
  "$SERVER" --port "$1" --bind 127.0.0.1 --daemonize yes \
    --dir "$dir/$1" --pidfile "$dir/$1/redis.pid" --logfile "$dir/$1/redis.log" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 3000 --cluster-announce-ip 127.0.0.1 \
    --appendonly yes --appendfsync "$FSYNC" --save '' \
    --hash-max-listpack-value "$LISTPACK_VALUE" >/dev/null
}

# the server of port $1 has exited (no pid file a second after its launch, or a pid that is gone)
gone() {
  local f="$dir/$1/redis.pid"
  if [ -f "$f" ]; then ! kill -0 "$(cat "$f")" 2>/dev/null; else [ "$2" -ge 20 ]; fi
}

start() {
  mkdir -p "$dir"
  for p in "${ports[@]}"; do
    mkdir -p "$dir/$p"
    launch "$p"
  done
  for p in "${ports[@]}"; do
    # PONG, not an error reply: a restart on the same DIR answers LOADING while it reads its AOF
    # (up to 2 minutes on a loaded machine). A server that exited at once (the port still held
    # by the one just killed) is launched again, a few times.
    tries=0; n=0
    for _ in $(seq 2400); do
      ready "$p" && break
      n=$((n + 1))
      if gone "$p" "$n" && [ "$tries" -lt 5 ]; then tries=$((tries + 1)); n=0; sleep 0.5; launch "$p"; fi
      sleep 0.05
    done
    ready "$p" || { echo "redis-server on port $p did not start; see $dir/$p/redis.log" >&2; tail -n 20 "$dir/$p/redis.log" >&2 2>/dev/null || true; exit 1; }
  done
  # already a cluster (a restart on the same DIR): the nodes find each other from nodes.conf
  if ! "$CLI" -p "${ports[0]}" cluster info | grep -q '^cluster_slots_assigned:16384'; then
    if [ "${#ports[@]}" -ge 3 ]; then
      args=(); for p in "${ports[@]}"; do args+=("127.0.0.1:$p"); done
      "$CLI" --cluster create "${args[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 \
        || { cat "$dir/create.log" >&2; exit 1; }
    else
      n=${#ports[@]}; i=0
      for p in "${ports[@]}"; do
        lo=$(( 16384 * i / n )); hi=$(( 16384 * (i + 1) / n - 1 ))
        "$CLI" -p "$p" cluster addslotsrange "$lo" "$hi" >/dev/null
        [ "$p" = "${ports[0]}" ] || "$CLI" -p "$p" cluster meet 127.0.0.1 "${ports[0]}" >/dev/null
        i=$((i + 1))
      done
    fi
  fi
  for p in "${ports[@]}"; do
    # a master restarted after a crash is marked ok again after 2 × node timeout
    for _ in $(seq 600); do cluster_ok "$p" && break; sleep 0.05; done
    cluster_ok "$p" || { echo "cluster node $p is not ok; see $dir/$p/redis.log" >&2; exit 1; }
  done
  seeds=""; for p in "${ports[@]}"; do seeds="${seeds:+$seeds,}redis://127.0.0.1:$p"; done
  echo "$seeds"
}

stop() {
  for p in "${ports[@]}"; do
    f="$dir/$p/redis.pid"
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
