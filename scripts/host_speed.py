#!/usr/bin/env python3
"""Print the CPU milliseconds a fixed loop takes on this host now.

scripts/vm.sh runs it every 5 s beside the host's load. A host that shares its cores
with other tenants can run the same loop at half speed with no load of its own to show
for it (docs/host-speed-2026-12-05.md); report/report.py reads the spread of these
samples. CPU time, not wall time: the QEMU beside it taking the CPU does not count."""
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
