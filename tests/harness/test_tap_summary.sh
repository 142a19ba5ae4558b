#!/bin/bash
# tap.sh's summary fails a run where nothing passed, and counts skips by reason. TAP on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

# summary_of CMDS: the exit status and output of tap_summary after CMDS, in a fresh shell.
summary_of() {
	bash -c ". '$top/scripts/tap.sh'; $1; tap_summary" 2>&1
}

# show TEXT: TEXT as TAP comment lines.
show() {
	local line
	while IFS= read -r line; do echo "# $line"; done <<<"$1"
}

# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"

rc=0
out=$(summary_of 'tap_result a skip "no disk"; tap_result b skip "no disk"') && rc=1
grep -qxF "0 passed, 0 failed, 2 skipped" <<<"$out" || rc=1
[ "$rc" -eq 0 ] || show "$out"
tap_result "tap: a run where everything skipped fails" "$rc"

rc=0
out=$(summary_of 'tap_result a 0; tap_result b skip "no disk"; tap_result c skip "no disk"; tap_result d skip') || rc=1
grep -qE '^#  +2 no disk$' <<<"$out" || rc=1
grep -qE '^#  +1 no reason given$' <<<"$out" || rc=1
[ "$rc" -eq 0 ] || show "$out"
tap_result "tap: skips are counted by reason" "$rc"

rc=0
out=$(summary_of 'tap_result a 0; tap_result b 1') && rc=1
[ "$rc" -eq 0 ] || show "$out"
tap_result "tap: a failure fails the run" "$rc"
tap_summary >/dev/null
