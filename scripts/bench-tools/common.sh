# What the shell tools of scripts/bench-tools share; sourced, not run. Traffic only to 127.0.0.1.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The arguments of a redis-server on 127.0.0.1 without persistence: redis-server "${REDIS_EPHEMERAL[@]}" --port P.
REDIS_EPHEMERAL=(--bind 127.0.0.1 --save '' --appendonly no)

# Waits until the redis-server on port $1 answers PING (at most ~10 s).
wait_for_redis() {
    for _ in $(seq 100); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

# The instructions callgrind counted in the given output files (empty when it counted none).
callgrind_total() { callgrind_annotate "$@" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'; }
