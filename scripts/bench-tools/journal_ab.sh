#!/usr/bin/env bash
# A/B of the journal's cost for two release builds, as scripts/bench (j) measures it, with enough alternating
# rounds to separate them on a noisy machine (five rounds of (j) cannot resolve a few hundredths).
# Each round runs, for each build in turn (the order alternating between rounds), a pair of fresh servers: the
# journal off, then on (on a redis-server of this script, its `INFO commandstats` reset before the run), each
# under `sse-bench -S 1000 -c 1000 -n ROUNDS_OF_COMMANDS -e patch -f` as (j) runs it.
# Per round and build: vmhost CPU per command off and on (µs); Redis CPU per command (µs), as `INFO
# commandstats` counts it in the commands themselves (`redis`: each command once, wherever it ran; not EXEC, whose
# figure repeats the commands it ran) and as the redis-server process spent it in all (`redisproc`, from
# /proc/PID/schedstat: EXEC's own share, parsing, replies and system calls too); the ratios on / off without
# Redis, with Redis's commandstats and with its process CPU; and the command→event p99 ratio. At the end the
# medians with their range per build.
# Usage: journal_ab.sh ROUNDS BUILD_A BUILD_B [COMMANDS_PER_SESSION (20, as (j))]
# Traffic only to 127.0.0.1. docs/performance.md, issue 26's eighth and ninth stops, has its results.
set -u
rounds=$1 build_a=$2 build_b=$3 commands=${4:-20}
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../shared/bench" && pwd)"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/sse-bench" "$kit/sse-bench.c" -levent || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
key() { awk -v k="$1:" '$1 == k {print $2}' "$2"; }
redis_port=$(free_port)
redis-server --port "$redis_port" "${REDIS_EPHEMERAL[@]}" >"$work/redis.log" 2>&1 &
pids+=($!)
redis_pid=$!
wait_for_redis "$redis_port"

run() { # build mode -> sse-bench's report in $work/MODE.txt
    local build=$1 mode=$2 port extra=()
    port=$(free_port)
    [ "$mode" = on ] && extra=(--redis-url "redis://127.0.0.1:$redis_port/0" --node-id on)
    "$build" --port "$port" --log-level warning "${extra[@]}" 2>>"$work/vmhost.log" &
    local server=$!
    pids+=("$server")
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    [ "$mode" = on ] && redis-cli -p "$redis_port" config resetstat >/dev/null
    local spent_before spent_after
    spent_before=$(awk '{print $1}' "/proc/$redis_pid/schedstat")
    "$work/sse-bench" -P "$port" -s "$server" -S 1000 -c 1000 -n "$commands" -e patch -f -t 120 \
        >"$work/$mode.txt" 2>/dev/null
    spent_after=$(awk '{print $1}' "/proc/$redis_pid/schedstat")
    echo $((spent_after - spent_before)) >"$work/$mode.redis_ns"
    kill "$server"
    wait "$server" 2>/dev/null
}

for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then order="$build_a $build_b"; else order="$build_b $build_a"; fi
    for build in $order; do
        run "$build" off
        run "$build" on
        # What Redis spent in the commands it ran, each once where it ran (EXEC's figure includes the commands it
        # ran, counted already: left out, and with it EXEC's own share, which the process figure has).
        redis_us=$(redis-cli -p "$redis_port" info commandstats \
            | awk -F'[=,]' '/^cmdstat_/ && !/^cmdstat_(exec|config|info|ping)/ {us += $4} END {print us + 0}')
        redis-cli -p "$redis_port" flushall >/dev/null
        awk -v build="$(basename "$build")" -v round="$round" -v us="$redis_us" -v ns="$(cat "$work/on.redis_ns")" \
            -v coff="$(key server_cpu_s "$work/off.txt")" -v doff="$(key deliveries "$work/off.txt")" \
            -v con="$(key server_cpu_s "$work/on.txt")" -v don="$(key deliveries "$work/on.txt")" \
            -v poff="$(key fanout_p99_ms "$work/off.txt")" -v pon="$(key fanout_p99_ms "$work/on.txt")" \
            'BEGIN {
                if (doff == 0 || don == 0) { printf "%s round %d: no deliveries\n", build, round; exit }
                off = coff / doff * 1e6; on = con / don * 1e6; redis = us / don; proc = ns / don / 1000
                printf "%s round %d off %.2f on %.2f redis %.3f redisproc %.3f cpu %.3f total %.3f totalproc %.3f p99 %.3f\n",
                    build, round, off, on, redis, proc, on / off, (on + redis) / off, (on + proc) / off, pon / poff
            }' | tee -a "$work/rounds.txt"
    done
done

echo "medians (range) over $rounds rounds, -n $commands:"
python3 - "$work/rounds.txt" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) round \d+ off (\S+) on (\S+) redis (\S+) redisproc (\S+) cpu (\S+) total (\S+) '
                 r'totalproc (\S+) p99 (\S+)', line)
    if m:
        rows.setdefault(m.group(1), []).append([float(x) for x in m.groups()[1:]])
names = ['vmhost off µs', 'vmhost on µs', 'Redis commandstats µs', 'Redis process µs', 'vmhost on/off',
         '(vmhost+Redis commandstats)/off', '(vmhost+Redis process)/off', 'p99 on/off']
for build, values in rows.items():
    columns = list(zip(*values))
    print(build + ': ' + '; '.join(
        f'{name} {statistics.median(c):.3f} ({min(c):.2f}-{max(c):.2f})' for name, c in zip(names, columns)))
EOF
