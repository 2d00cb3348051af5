#!/usr/bin/env bash
# The CPU one expiry refresh (`touch`) of N sessions in use costs vmhost and Redis: a release vmhost with a 40 s
# idle timeout (a refresh every 10 s) on a redis-server of this script; N sessions created, then each read once
# (in use since the last refresh); then a 10.5 s window, which holds one refresh of them all. vmhost's CPU is
# the sum over its threads (/proc/PID/task/*/schedstat), Redis's its process's; `INFO commandstats` of the
# scripts too. Run it with N=1 for the idle window to subtract.
# Usage: touch_cost.sh VMHOST_BINARY [N (2000)]. Traffic only to 127.0.0.1. docs/performance.md, issue 26's tenth stop.
set -u
bin=$1 count=${2:-2000}
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
redis_port=$(free_port)
port=$(free_port)
redis-server --port "$redis_port" "${REDIS_EPHEMERAL[@]}" >/dev/null 2>&1 &
redis=$!
server=
trap 'kill $redis $server 2>/dev/null' EXIT
wait_for_redis "$redis_port"
"$bin" --port "$port" --log-level warning --redis-url "redis://127.0.0.1:$redis_port/0" --node-id touch \
    --session-idle-timeout-seconds 40 --hibernate-after-seconds 0 2>/dev/null &
server=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
python3 - "$port" "$count" <<'PY'
import http.client, json, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection('127.0.0.1', port)
ids = []
for _ in range(count):
    connection.request('POST', '/v1/sessions', body=b'{}', headers={'Content-Type': 'application/json'})
    ids.append(json.loads(connection.getresponse().read())['id'])
for id in ids:
    connection.request('GET', '/v1/sessions/' + id)
    connection.getresponse().read()
PY
redis-cli -p "$redis_port" config resetstat >/dev/null
threads() { cat /proc/"$server"/task/*/schedstat | awk '{ns += $1} END {print ns}'; }
vmhost_before=$(threads)
redis_before=$(awk '{print $1}' /proc/$redis/schedstat)
sleep 10.5
vmhost_after=$(threads)
redis_after=$(awk '{print $1}' /proc/$redis/schedstat)
echo "sessions $count, window 10.5 s: vmhost $(((vmhost_after - vmhost_before) / 1000)) µs, redis $(((redis_after - redis_before) / 1000)) µs"
redis-cli -p "$redis_port" info commandstats | grep -E '^cmdstat_eval'
