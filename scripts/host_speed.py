#!/usr/bin/env python3
"""Print the CPU milliseconds a fixed loop takes on this host now.

scripts/vm.sh runs it every 5 s beside the host's load. The same loop at times takes
1.7 times as long with no load on this machine to show for it
(docs/host-speed-2026-12-05.md); report/report.py counts the slow samples and leaves
out the reps beside them. CPU time, not wall time: the QEMU beside it taking the CPU
does not count."""
import time

LOOPS = 200_000


def main():
    start = time.process_time()
    total = 0
    for i in range(LOOPS):
        total += i
    print(f"{(time.process_time() - start) * 1e3:.2f}")


if __name__ == "__main__":
    main()
