"""Runs a command and prints the peak of the summed PSS of its process tree, sampled every 0.5 s.

/usr/bin/time -v reports the largest single process; HTA parses ranks in a pool of forked workers that hold their
DataFrames at the same time as the parent, so the tree's sum is the memory the machine must have. PSS splits the
pages that fork shares, so nothing is counted twice.

    /usr/bin/python3 benchmarks/hta/tree_pss.py COMMAND [ARGS...]
"""
import os
import subprocess
import sys
import time


def children(pid: int) -> list:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_kb(root: int) -> int:
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += pss_kb(pid)
        todo.extend(children(pid))
    return total


def main() -> None:
    proc = subprocess.Popen(sys.argv[1:])
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_pss_kb(proc.pid))
        time.sleep(0.5)
    print(f"peak tree PSS: {peak / 1024 / 1024:.2f} GiB ({peak} kB)", file=sys.stderr)
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
