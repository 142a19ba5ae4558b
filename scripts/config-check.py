#!/usr/bin/env python3
"""config-check.py DOTCONFIG FRAGMENT...: fail, naming them, if options the
fragments set to y or n came out otherwise in DOTCONFIG (a dependency was off)."""
import re
import sys

have = set(open(sys.argv[1]).read().splitlines())
want = {}
for frag in sys.argv[2:]:
    for line in open(frag):
        m = re.match(r"(CONFIG_\w+)=(y|n)$", line.strip())
        if m:
            want[m[1]] = m[2]
wrong = [k for k, v in want.items() if (f"{k}=y" in have) != (v == "y")]
for k in wrong:
    print(f"  {k}={want[k]} asked for, but {sys.argv[1]} has it otherwise", file=sys.stderr)
sys.exit(1 if wrong else 0)
