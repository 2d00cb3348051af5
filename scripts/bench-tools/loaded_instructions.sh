#!/usr/bin/env bash
# Instructions per keystroke on a loaded search, user space, counted by callgrind (as
# ../shared/bench/instructions.sh counts them for empty sessions): 50 sessions with one search page loaded each
# (loaded_keystrokes.py), 5 and 15 rounds of `search/text`, the difference divided by the 500 extra keystrokes.
# Usage: loaded_instructions.sh VMHOST_BINARY on|off   (on: the journal, on a redis-server of its own)
# Prints "BINARY MODE: N instructions a keystroke on a loaded search". Traffic only to 127.0.0.1.
set -u
binary=$1 mode=$2
tools="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# NB: valgrind 3.19 cannot read the Swift binary's DWARF 5: a copy stripped of debug info is measured.
cp "$binary" "$work/vmhost" && strip -g "$work/vmhost"
source "$tools/common.sh"
measure() { # rounds -> instructions
    local rounds=$1 port redis_port extra=() redis=""
    port=$(free_port)
    if [ "$mode" = on ]; then
        redis_port=$(free_port)
        redis-server --port "$redis_port" "${REDIS_EPHEMERAL[@]}" >/dev/null 2>&1 &
        redis=$!
        wait_for_redis "$redis_port"
        extra=(--redis-url "redis://127.0.0.1:$redis_port/0")
    fi
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$rounds.%p" "$work/vmhost" --host 127.0.0.1 \
        --port "$port" --log-level warning "${extra[@]}" >"$work/vmhost.$rounds.log" 2>&1 &
    local server=$!
    for _ in $(seq 150); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
    python3 "$tools/loaded_keystrokes.py" "$port" 50 "$rounds" >"$work/driver.$rounds.log" 2>&1 \
        || { cat "$work/driver.$rounds.log" >&2; kill "$server"; exit 1; }
    kill -TERM "$server"
    wait "$server" 2>/dev/null
    [ -n "$redis" ] && kill "$redis"
    callgrind_total "$work"/cg."$rounds".[0-9]*
}
short=$(measure 5)
long=$(measure 15)
if [ -z "$short" ] || [ -z "$long" ]; then echo "loaded_instructions: measurement failed" >&2; exit 1; fi
echo "$(basename "$binary") $mode: $(((long - short) / 500)) instructions a keystroke on a loaded search"
