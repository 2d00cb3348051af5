#!/usr/bin/env python3
"""What Redis spends on one ordinary journal write (a session's new patch and snapshot delta), two ways.

Usage: redis_write_paths.py REDIS_PORT REDIS_PID SCRIPTS_SWIFT [ROUNDS]

- `script`: the journal's write script as vmhost sends it (read from SCRIPTS_SWIFT, the one source of its
  text), 25 sessions a call, each an `update` of one view model: the owner check, the delta `HSET`, the
  `RPUSH` (and the `LTRIM` once the list holds a sixteenth more than it keeps).
- `transaction`: the same writes as plain commands in one `MULTI`/`EXEC` per 25 sessions, fenced by key
  names rather than by a read (`SET delta XX KEEPTTL`, `RPUSHX ring`, the same `LTRIM`): what a journal
  without Lua on its common path would cost Redis (docs/performance.md, "Known gaps"). Not vmhost's layout:
  a floor to weigh that design against.

Both write the same bytes, 30 passes over 1,000 sessions a round; rounds alternate, 5 by default. Prints, per
way, the median (min-max) of `INFO commandstats` µs per session write (the script's, or MULTI's and EXEC's
with the commands they ran) and of the Redis process's CPU µs per session write (/proc: parsing included).
Traffic goes only to 127.0.0.1; the Redis is flushed first.
"""
import os
import re
import socket
import sys

SESSIONS = 1000
BATCH = 25
KEEP = 64
# Passes over every session per measurement: /proc counts CPU in 10 ms ticks.
REPEATS = 30


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        arg = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def reply(self):
        line = self.file.readline()
        kind, body = line[:1], line[1:-2]
        if kind in (b"+", b":"):
            return body
        if kind == b"-":
            raise RuntimeError(body.decode())
        if kind == b"$":
            n = int(body)
            return None if n < 0 else self.file.read(n + 2)[:-2]
        if kind == b"*":
            n = int(body)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise RuntimeError("unexpected reply %r" % line)

    def call(self, *args):
        self.sock.sendall(encode(args))
        return self.reply()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(encode(c) for c in commands))
        return [self.reply() for _ in commands]


def write_script(path):
    source = open(path).read()
    match = re.search(r'private static let writeSource = """\n(.*?)\n\s*"""', source, re.S)
    if not match:
        sys.exit("no writeSource in %s" % path)
    return "\n".join(line[8:] for line in match.group(1).split("\n"))


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    port, pid, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    redis = Redis(port)
    redis.call("FLUSHALL")
    sha = redis.call("SCRIPT", "LOAD", write_script(path))
    digests = [b"%022x" % (n * 7919 + 17) for n in range(SESSIONS)]
    version = [1] * SESSIONS

    def header(count):
        return [b"bench", b"1800000", b"64", b"65536", str(count).encode()]

    # Every session written in full once (the script's keys), and the transaction's keys created.
    for start in range(0, SESSIONS, BATCH):
        keys, args = [], header(BATCH)
        for d in digests[start:start + BATCH]:
            keys += [b"vmhost:{%s}" % d, b"vmhost:{%s}:r:search" % d]
            args += [b"full", b"", b"1", b"0", b"search", b"z" + b"x" * 300, b"", str(KEEP).encode(), b"1",
                     b"1 []"]
        assert redis.call("EVALSHA", sha, len(keys), *keys, *args) == [b"1"] * BATCH
        setup = []
        for d in digests[start:start + BATCH]:
            setup += [[b"SET", b"bench:{%s}:d:search" % d, b"1 0 0 ", b"PX", b"1800000"],
                      [b"RPUSH", b"bench:{%s}:r:search" % d, b"1 []"],
                      [b"PEXPIRE", b"bench:{%s}:r:search" % d, b"1800000"]]
        redis.pipeline(setup)

    def delta(v):
        return b'%d 0 12 "bench %d"}' % (v, v)

    def patch(v):
        return b'%d [{"op":"replace","path":"/text","value":"bench %d"}]' % (v, v)

    def script_round():
        for start in range(0, SESSIONS, BATCH):
            keys, args = [], header(BATCH)
            for j, d in enumerate(digests[start:start + BATCH]):
                version[start + j] += 1
                v = version[start + j]
                keys += [b"vmhost:{%s}" % d, b"vmhost:{%s}:r:search" % d]
                args += [b"update", b"1", b"0", b"search", b"", delta(v), str(KEEP).encode(), b"1", patch(v)]
            assert redis.call("EVALSHA", sha, len(keys), *keys, *args) == [b"1"] * BATCH

    lengths = [1] * SESSIONS

    def transaction_round():
        for start in range(0, SESSIONS, BATCH):
            commands = [[b"MULTI"]]
            for j, d in enumerate(digests[start:start + BATCH]):
                n = start + j
                version[n] += 1
                v = version[n]
                commands.append([b"SET", b"bench:{%s}:d:search" % d, delta(v), b"XX", b"KEEPTTL"])
                commands.append([b"RPUSHX", b"bench:{%s}:r:search" % d, patch(v)])
                lengths[n] += 1
                if lengths[n] > KEEP + KEEP // 16:
                    commands.append([b"LTRIM", b"bench:{%s}:r:search" % d, -KEEP, -1])
                    lengths[n] = KEEP
            commands.append([b"EXEC"])
            replies = redis.pipeline(commands)
            assert all(r == b"QUEUED" for r in replies[1:-1]) and None not in replies[-1], replies[-1]

    def measure(run, stats):
        redis.call("CONFIG", "RESETSTAT")
        before = cpu_seconds(pid)
        for _ in range(REPEATS):
            run()
        cpu = cpu_seconds(pid) - before
        usec = 0
        for line in redis.call("INFO", "commandstats").decode().split("\r\n"):
            name, _, values = line.partition(":")
            if name in stats:
                usec += int(dict(kv.split("=") for kv in values.split(","))["usec"])
        writes = REPEATS * SESSIONS
        return usec / writes, cpu * 1e6 / writes

    results = {"script": [], "transaction": []}
    for r in range(rounds):
        order = ["script", "transaction"] if r % 2 == 0 else ["transaction", "script"]
        for way in order:
            if way == "script":
                results[way].append(measure(script_round, {"cmdstat_evalsha"}))
            else:
                results[way].append(measure(transaction_round, {"cmdstat_multi", "cmdstat_exec"}))

    def spread(values):
        values = sorted(values)
        return "%.2f (%.2f–%.2f)" % (values[len(values) // 2], values[0], values[-1])

    for way, values in results.items():
        print("%s_commandstats_us: %s" % (way, spread(v[0] for v in values)))
        print("%s_process_cpu_us: %s" % (way, spread(v[1] for v in values)))
    redis.call("FLUSHALL")


if __name__ == "__main__":
    main()
