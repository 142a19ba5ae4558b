#!/bin/bash
# make check, in the guest: smoke tests, then the iopoll kselftests through the installed
# run_kselftest.sh. TAP on stdout: each scenario's line is lifted to the top level.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
echo "# kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
"$top/guest/smoke.sh" || rc=1
runner=$top/build/kselftest/run_kselftest.sh
if [ ! -x "$runner" ]; then
	echo "ok 1 kselftest iopoll # SKIP not built (the series has no selftests yet)"
	exit "$rc"
fi
out=$(mktemp)
# run_kselftest.sh exits 0 whatever the result: read its verdict line instead.
"$runner" -t iopoll:run_iopoll.sh | tee "$out" |
	sed -E 's/^# ((not )?ok [0-9]+ [0-9]+_[a-z0-9_]+( # .*)?)$/\1/'
verdict=$(grep -E '^(not )?ok [0-9]+ selftests: iopoll: run_iopoll.sh' "$out" || true)
rm -f "$out"
case $verdict in
"ok "*"# SKIP"*)
	# Every scenario skipped (run_iopoll.sh's exit 4): nothing was tested, so that fails.
	echo "# every kselftest scenario skipped: nothing was tested"
	rc=1
	;;
"ok "*) ;;
*)
	echo "# run_kselftest.sh: ${verdict:-no verdict for iopoll:run_iopoll.sh}"
	rc=1
	;;
esac
exit "$rc"
