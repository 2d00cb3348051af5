#!/usr/bin/env python3
"""What Redis's process spends on a push (`RPUSHX` of a ~100-byte patch to one of 1,000 lists), sent in batches
of B either plainly (pipelined) or inside `MULTI`/`EXEC`, the two alternating over ROUNDS rounds of N pushes
each: medians with their range, µs a push (/proc/PID/schedstat of a redis-server of this script).
Usage: multi_vs_plain.py [B (27)] [N (40000)] [ROUNDS (6)]. Traffic only to 127.0.0.1.
docs/performance.md, issue 26's tenth stop (the pushes outside the transaction, tried and reverted) and eleventh
(reinstated, on Redis's instruction count)."""
import socket
import statistics
import subprocess
import sys
import time

batch = int(sys.argv[1]) if len(sys.argv) > 1 else 27
pushes = int(sys.argv[2]) if len(sys.argv) > 2 else 40000
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
probe = socket.socket()
probe.bind(('127.0.0.1', 0))
port = probe.getsockname()[1]
probe.close()
redis = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                          '--appendonly', 'no'], stdout=subprocess.DEVNULL)
patch = b'[{"op":"replace","path":"/version","value":12},{"op":"replace","path":"/searchText","value":"bench 11"}]'


def command(*arguments):
    out = b'*%d\r\n' % len(arguments)
    for argument in arguments:
        argument = argument if isinstance(argument, bytes) else str(argument).encode()
        out += b'$%d\r\n%s\r\n' % (len(argument), argument)
    return out


def read_lines(connection, count):
    """Reads until `count` reply lines arrived (every reply here is one line, or an array header and its lines)."""
    received = b''
    while received.count(b'\r\n') < count:
        received += connection.recv(1 << 20)


def spent():
    return int(open('/proc/%d/schedstat' % redis.pid).read().split()[0])


def run(connection, in_transaction):
    connection.sendall(command('FLUSHALL'))
    read_lines(connection, 1)
    for key in range(1000):
        connection.sendall(command('RPUSH', 'l%d' % key, patch))
        read_lines(connection, 1)
    before = spent()
    key = 0
    for _ in range(pushes // batch):
        parts = [command('MULTI')] if in_transaction else []
        for _ in range(batch):
            parts.append(command('RPUSHX', 'l%d' % (key % 1000), patch))
            key += 1
        if in_transaction:
            parts.append(command('EXEC'))
        connection.sendall(b''.join(parts))
        # +OK, a +QUEUED each, the array's header and an integer each; or an integer each.
        read_lines(connection, 2 * batch + 2 if in_transaction else batch)
    return (spent() - before) / (pushes // batch * batch) / 1000


try:
    for _ in range(50):
        try:
            connection = socket.create_connection(('127.0.0.1', port))
            break
        except OSError:
            time.sleep(0.1)
    results = {True: [], False: []}
    for round_index in range(rounds):
        for in_transaction in ([True, False] if round_index % 2 == 0 else [False, True]):
            results[in_transaction].append(run(connection, in_transaction))
    for in_transaction in (False, True):
        values = results[in_transaction]
        print('%-10s µs a push: median %.3f (%.3f-%.3f)' % (
            'MULTI/EXEC' if in_transaction else 'plain', statistics.median(values), min(values), max(values)))
finally:
    redis.terminate()
