#!/usr/bin/env bash
# What the journal costs per command in instructions, vmhost's and Redis's, counted by callgrind (the figure that
# repeats on a noisy machine; time A/Bs here scatter by ±10 %): ../shared/bench/instructions.sh's load (100
# sessions with one stream each, commands via search/text, 20 and 60 rounds, the difference divided by the 4,000
# extra commands), measured three ways: vmhost with the journal off, vmhost with it on (redis-server native), and
# redis-server itself with vmhost native and the journal on (Redis's whole process: parsing, replies, expiry,
# its event loop). Of Redis's, also the part inside its `call()`, the function whose command execution `INFO
# commandstats` times (the issue's measure of what Redis spends): the commands themselves, counted a little
# generously (call() adds its own bookkeeping around the command).
# Usage: journal_instructions.sh VMHOST_BINARY
# Prints "journal instructions/command: off O on N redis R commands C ratio (N+R)/O (vmhost alone N/O) ratio with
# commands (N+C)/O". Traffic only to 127.0.0.1.
# docs/performance.md, issue 26's eleventh and thirteenth stops.
set -u
binary=$1
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../shared/bench" 2>/dev/null && pwd)"
[ -n "$bench" ] || { echo "../shared/bench not found beside the repository" >&2; exit 1; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/sse-bench" "$bench/sse-bench.c" -levent || exit 1
# NB: valgrind 3.19 cannot read the Swift binary's DWARF 5: a copy stripped of debug info is measured.
cp "$binary" "$work/vmhost" && strip -g "$work/vmhost"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# run ROUNDS MODE(off|on|redis) -> the instructions of the process under callgrind
run() {
    local rounds=$1 mode=$2 out="$work/cg.$2.$1"
    local port redis_port vmhost_pid redis_pid
    port=$(free_port)
    local journal=()
    if [ "$mode" != off ]; then
        redis_port=$(free_port)
        local redis=(redis-server --port "$redis_port" "${REDIS_EPHEMERAL[@]}")
        if [ "$mode" = redis ]; then
            valgrind --tool=callgrind --callgrind-out-file="$out.%p" "${redis[@]}" >"$out.redis.log" 2>&1 &
        else
            "${redis[@]}" >/dev/null 2>&1 &
        fi
        redis_pid=$!
        pids+=("$redis_pid")
        wait_for_redis "$redis_port"
        journal=(--redis-url "redis://127.0.0.1:$redis_port/0" --node-id bench)
    fi
    local server=("$work/vmhost" --host 127.0.0.1 --port "$port" --log-level warning "${journal[@]}")
    if [ "$mode" = redis ]; then
        "${server[@]}" >"$out.log" 2>&1 &
    else
        valgrind --tool=callgrind --callgrind-out-file="$out.%p" "${server[@]}" >"$out.log" 2>&1 &
    fi
    vmhost_pid=$!
    pids+=("$vmhost_pid")
    # NB: with the journal, once it answers (a command before that would be served from memory, unjournaled).
    local ready='"status"'
    [ "$mode" != off ] && ready='"journal":"ok"'
    for _ in $(seq 150); do curl -s "http://127.0.0.1:$port/healthz" | grep -q "$ready" && break; sleep 0.2; done
    "$work/sse-bench" -P "$port" -S 100 -c 100 -n "$rounds" -e patch -f -t 300 >"$out.bench" 2>&1
    kill -TERM "$vmhost_pid" 2>/dev/null
    wait "$vmhost_pid" 2>/dev/null
    if [ "$mode" != off ]; then
        redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1
        wait "$redis_pid" 2>/dev/null
    fi
    callgrind_total "$out".[0-9]*
}

# The instructions of the last run's redis-server inside `call()` (inclusive; a command that `EXEC` runs calls it
# again from within, which callgrind names `call'2` and counts inside the outer one).
redis_call_total() {
    callgrind_annotate --inclusive=yes "$work/cg.redis.$1".[0-9]* 2>/dev/null |
        awk '$2 ~ /^\(/ && $NF ~ /redis/ && $(NF - 1) == "???:call" {gsub(",", "", $1); print $1; exit}'
}

per_command() { # mode -> instructions per command
    local a b
    a=$(run 20 "$1")
    b=$(run 60 "$1")
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "journal instructions/command: the $1 measurement failed ($a / $b)" >&2
        exit 1
    fi
    echo $(((b - a) / 4000))
}

off=$(per_command off) || exit 1
on=$(per_command on) || exit 1
redis=$(per_command redis) || exit 1
calls_a=$(redis_call_total 20)
calls_b=$(redis_call_total 60)
if [ -z "$calls_a" ] || [ -z "$calls_b" ]; then
    echo "journal instructions/command: Redis's call() was not found in its profile" >&2
    exit 1
fi
commands=$(((calls_b - calls_a) / 4000))
awk -v o="$off" -v n="$on" -v r="$redis" -v c="$commands" 'BEGIN {
    printf "journal instructions/command: off %d on %d redis %d commands %d ratio %.3f (vmhost alone %.3f) ratio with commands %.3f\n",
        o, n, r, c, (n + r) / o, n / o, (n + c) / o }'
