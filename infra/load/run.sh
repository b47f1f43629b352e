#!/usr/bin/env bash
# Load test of the local server: echo agent, memory store, loaded on loopback
# by wrk -t2 -c32. Reports the server's CPU (user+sys from /proc, over the
# run) divided by the requests served. Needs wrk (Debian package `wrk`).
#
# By default the server runs on CPU 0 and wrk on CPU 1 (taskset), so that the
# load generator does not compete with the server for its core; PIN=0 lets
# them share every core (the server then also pays the scheduler's cost of
# that contention).
#
#   infra/load/run.sh            # 10 s per endpoint, pinned
#   DURATION=30s PIN=0 infra/load/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install wrk" >&2; exit 1; }

DURATION=${DURATION:-10s}
PORT=${PORT:-18080}
BIN=$(mktemp -d)/a2a-local
go build -o "$BIN" ./cmd/a2a-local

URL=http://127.0.0.1:$PORT
PID=
trap 'stop; rm -rf "$(dirname "$BIN")"' EXIT

# Each endpoint is measured on a fresh server, so that one run's tasks (the
# memory store keeps them all) do not weigh on the next run's GC.
start() {
  A2A_AGENT=echo A2A_PORT=$PORT A2A_LOG_LEVEL=error $SERVER_PIN "$BIN" >/dev/null 2>&1 &
  PID=$!
  for _ in $(seq 100); do curl -sf "$URL/.well-known/agent-card.json" >/dev/null && return; sleep 0.05; done
  echo "the server did not start" >&2; exit 1
}
stop() { [ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; PID=; }; }

SERVER_PIN= WRK_PIN= MODE="sharing all CPUs"
if [ "${PIN:-1}" != 0 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  SERVER_PIN="taskset -c 0" WRK_PIN="taskset -c 1" MODE="server on CPU 0, wrk on CPU 1"
fi

TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

# measure NAME LOAD: runs wrk with load.lua sending the LOAD requests (send,
# get or card) and prints µs of server CPU per request.
measure() {
  local name=$1 load=$2 before after out reqs errs
  before=$(cpu_ticks)
  out=$(LOAD=$load RUN_ID=$RANDOM $WRK_PIN wrk -t2 -c32 -d"$DURATION" -s infra/load/load.lua "$URL")
  after=$(cpu_ticks)
  reqs=$(sed -n 's/^LOAD requests=\([0-9]*\).*/\1/p' <<<"$out")
  errs=$(sed -n 's/^LOAD .*errors=\([0-9]*\)/\1/p' <<<"$out")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  awk -v n="$name" -v d=$((after - before)) -v t="$TICKS" -v r="$reqs" -v e="$errs" -v rps="$rps" \
    'BEGIN { printf "%-28s %9d requests %8.0f req/s %6.1f us server CPU/request  (%d errors)\n", n, r, rps, d / t * 1e6 / r, e }'
  [ "$errs" = 0 ] || { echo "$name: $errs requests failed" >&2; exit 1; }
}

echo "wrk -t2 -c32 -d$DURATION against $URL (echo agent, memory store; $MODE)"
start; measure "message/send (blocking)" send; stop
start
TASK_ID=$(curl -s "$URL/" -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"load-get-'$RANDOM'","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}}' | sed -n 's/.*"result":{"id":"\([^"]*\)".*/\1/p')
[ -n "$TASK_ID" ] || { echo "could not create the task to get" >&2; exit 1; }
TASK_ID=$TASK_ID measure "tasks/get" get; stop
start; measure "agent card" card; stop
