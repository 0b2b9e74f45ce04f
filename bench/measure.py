#!/usr/bin/python3
"""Runs a command N times; prints the median wall time (s) and the median
peak RSS (KiB) of the process tree, as "WALL RSS". Output of the command
is discarded; a failing run aborts with its stderr.

With MEASURE_CPU_OF=PID in the environment it prints "WALL RSS CPU
OTHER": also the median CPU seconds of the command itself and of process
PID (the server it talks to) during each run, so a reader sees how much
of the wall is the server's own work.

Several commands, separated by "--vs", are measured together: their runs
alternate (A B, then B A, ...), so a slow spell of the machine, another
VM on the host or a CPU quota after a heavy benchmark, falls on each of
them alike instead of on whichever ran first. One line per command, in
the order given."""

import os
import statistics
import subprocess
import sys
import time


def cpu_s(pid):
    """User and system seconds of pid so far (0 once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def once(argv, other=None):
    other0 = cpu_s(other) if other else 0.0
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(argv), err))
    other_cpu = cpu_s(other) - other0 if other else 0.0
    return wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, other_cpu


def split_commands(argv):
    """The commands of argv, "--vs" between them."""
    commands, cur = [], []
    for word in argv:
        if word == "--vs":
            commands.append(cur)
            cur = []
        else:
            cur.append(word)
    commands.append(cur)
    if any(not c for c in commands):
        sys.exit("measure.py: an empty command")
    return commands


def report(results, other):
    wall = statistics.median(r[0] for r in results)
    rss = statistics.median(r[1] for r in results)
    if other is None:
        print("%.4f %d" % (wall, rss))
        return
    cpu = statistics.median(r[2] for r in results)
    other_cpu = statistics.median(r[3] for r in results)
    print("%.4f %d %.3f %.3f" % (wall, rss, cpu, other_cpu))


def main():
    runs = int(sys.argv[1])
    commands = split_commands(sys.argv[2:])
    other = int(os.environ.get("MEASURE_CPU_OF", "0")) or None
    for argv in commands:
        once(argv)  # warm caches: page cache, discovery cache
    results = [[] for _ in commands]
    for i in range(runs):
        order = range(len(commands))
        for k in (order if i % 2 == 0 else reversed(order)):
            results[k].append(once(commands[k], other))
    for r in results:
        report(r, other)


if __name__ == "__main__":
    main()
