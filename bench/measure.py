#!/usr/bin/python3
"""Runs a command N times; prints the median wall time (s) and the median
peak RSS (KiB) of the process tree, as "WALL RSS". Output of the command
is discarded; a failing run aborts with its stderr."""

import os
import statistics
import subprocess
import sys
import time


def once(argv):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(argv), err))
    return wall, usage.ru_maxrss


def main():
    runs = int(sys.argv[1])
    argv = sys.argv[2:]
    once(argv)  # warm caches: page cache, discovery cache
    results = [once(argv) for _ in range(runs)]
    wall = statistics.median(r[0] for r in results)
    rss = statistics.median(r[1] for r in results)
    print("%.4f %d" % (wall, rss))


if __name__ == "__main__":
    main()
