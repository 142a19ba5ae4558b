#!/bin/bash
# Fail if a kernel log shows a warning, a bug, a lockdep splat, a hang or a disabled IRQ,
# naming the selftest scenario during which each report appeared.
set -euo pipefail
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
	echo "usage: dmesg-scan.sh LOG (an existing file)" >&2
	exit 2
fi
pattern='WARNING:|BUG:|Oops|general protection fault|possible circular locking|inconsistent lock state'
pattern+='|possible recursive locking|suspicious RCU usage|lock held when returning|KASAN:|UBSAN:'
pattern+='|hung_task|blocked for more than|soft lockup|hard LOCKUP|nobody cared|self-detected stall'
pattern+='|rcu_sched detected stall|Kernel panic|sleeping function called from invalid context'
# Each report names the selftest scenario whose /dev/kmsg mark came last before it.
if ! awk -v re="$pattern" '
	/iopoll: scenario [0-9]+ begins/ { match($0, /scenario [0-9]+/); scenario = substr($0, RSTART, RLENGTH) }
	$0 ~ re { sub(/\r$/, ""); print NR ": " (scenario ? "[" scenario "] " : "") $0; found = 1 }
	END { exit found }' "$1" >&2; then
	echo "kernel log $1 has the reports above" >&2
	exit 1
fi
