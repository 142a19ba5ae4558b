#!/usr/bin/env python3
"""The KUnit results of suite SUITE in a serial log, as TAP lines for make check.

usage: kunit-results.py KERNEL_TREE SERIAL_LOG SUITE

Parses with the kernel's own tools/testing/kunit/kunit.py parse (its --json output).
Prints "ok/not ok - kunit: SUITE.CASE" per case and "# kunit: N case(s) skipped".
Exit status: 0 if the suite ran and no case failed, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile


def all_groups(group):
    """Every group under @group. A kernel message inside the KTAP header (as
    "nvme nvme1: 2/0/1 default/read/poll queues" between "KTAP version 1" and
    "# Subtest:" on 2026-12-05) makes kunit.py nest the suites one level deeper."""
    for sub in group.get("sub_groups", []):
        yield sub
        yield from all_groups(sub)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    tree, log, suite = argv[1:]
    kunit = os.path.join(tree, "tools/testing/kunit/kunit.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "kunit.json")
        # kunit.py changes to the tree's root: give it absolute paths.
        run = subprocess.run([sys.executable, kunit, "parse", f"--json={out}", os.path.abspath(log)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        if not os.path.exists(out):
            print(f"not ok - kunit: {suite} ran (kunit.py parse gave no JSON, rc {run.returncode})")
            return 1
        with open(out, encoding="utf-8") as f:
            results = json.load(f)
    groups = [g for g in all_groups(results) if g.get("name") == suite]
    cases = [c for g in groups for c in g.get("test_cases", [])]
    if not cases:
        print(f"not ok - kunit: {suite} ran (no KTAP results for it in {log})")
        return 1
    failed = skipped = 0
    for case in cases:
        name, status = case.get("name"), case.get("status")
        if status == "PASS":
            print(f"ok - kunit: {suite}.{name}")
        elif status == "SKIP":
            skipped += 1
            print(f"ok - kunit: {suite}.{name} # SKIP the case skipped itself: see the serial log")
        else:
            failed += 1
            print(f"not ok - kunit: {suite}.{name} # {status}")
    print(f"# kunit: {skipped} case(s) skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
