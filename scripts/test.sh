#!/usr/bin/env bash
# `npm test`: the whole suite on this machine, with what it needs.
#
# 1. The Debian packages some tests use: the documentation trees the crawl tests and the simulator
#    serve on loopback (postgresql-doc-15, python3.11-doc, sqlite3-doc, six Sphinx manuals),
#    Chromium for the HTML report test, redis-server and redis-tools for the Redis Cluster store,
#    python3-scrapy for the Scrapy integration. Missing ones are
#    installed when this can (as root, or with sudo without a password, and apt-get); then every
#    test runs and a missing requirement fails (URLDEDUP_REQUIRE_ALL=1). Where it cannot, the tests
#    that need them are skipped, each saying why (test/support/requirements.ts), and the rest run.
# 2. A 3-master Redis Cluster on loopback (scripts/redis-cluster.sh; AOF, appendfsync everysec),
#    data in a temp folder, stopped when this script exits, unless URLDEDUP_REDIS_CLUSTER already
#    names one. The tests find it through URLDEDUP_REDIS_CLUSTER.
# 3. The build, then vitest (arguments are passed on: `npm test -- test/store`).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -d /usr/share/doc/postgresql-doc-15/html ] || need+=(postgresql-doc-15)
[ -f /usr/share/doc/python3.11/html/index.html ] || need+=(python3.11-doc)
[ -f /usr/share/doc/sqlite3/index.html ] || need+=(sqlite3-doc)
for p in python-flask-doc python-requests-doc python-click-doc python-jinja2-doc python-sqlalchemy-doc python-django-doc; do
  [ -f "/usr/share/doc/$p/html/index.html" ] || need+=("$p")
done
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v redis-server >/dev/null || need+=(redis-server)
command -v redis-cli >/dev/null || need+=(redis-tools)
# the Scrapy integration's test (integrations/scrapy/) runs Debian's Scrapy
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scrapy' 2>/dev/null || need+=(python3-scrapy)

complete=1
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="none"; fi
  fi
  if [ "$SUDO" != none ] && command -v apt-get >/dev/null; then
    echo "npm test: installing ${need[*]}" >&2
    if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
      echo "npm test: could not install ${need[*]}: the tests that need them are skipped, each saying why" >&2
      complete=0
    fi
  else
    echo "npm test: missing ${need[*]} and cannot install them here (not root, no apt-get): the tests that need them are skipped, each saying why" >&2
    complete=0
  fi
fi
[ "$complete" = 1 ] && export URLDEDUP_REQUIRE_ALL=1

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -z "${URLDEDUP_REDIS_CLUSTER:-}" ] && command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  # three free ports (each with its cluster bus port, +10000), from 7001 up
  base=7001
  while port_busy "$base" || port_busy $((base + 1)) || port_busy $((base + 2)) || port_busy $((base + 10000)) || port_busy $((base + 10001)) || port_busy $((base + 10002)); do
    base=$((base + 10))
    [ "$base" -lt 7600 ] || { echo "npm test: no free ports for a Redis Cluster" >&2; exit 1; }
  done
  REDIS_PORTS=("$base" $((base + 1)) $((base + 2)))
  REDIS_DIR="$(mktemp -d)"
  trap 'bash scripts/redis-cluster.sh stop "$REDIS_DIR" "${REDIS_PORTS[@]}" >/dev/null 2>&1; rm -rf "$REDIS_DIR"' EXIT
  URLDEDUP_REDIS_CLUSTER="$(APPENDFSYNC=everysec bash scripts/redis-cluster.sh start "$REDIS_DIR" "${REDIS_PORTS[@]}")"
  export URLDEDUP_REDIS_CLUSTER
  echo "npm test: Redis Cluster $URLDEDUP_REDIS_CLUSTER" >&2
fi

npm run build
npx vitest run "$@"
