#!/bin/bash
# make check, in the guest: smoke tests, then the iopoll kselftests. TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
echo "# kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
"$top/guest/smoke.sh" || rc=1
runner=$top/build/kselftest/iopoll/run_iopoll.sh
if [ -x "$runner" ]; then
	"$runner" "$@"
	case $? in
	0) ;;
	4)
		# kselftest's exit 4: every test skipped. Nothing was tested, so that fails.
		echo "# every kselftest scenario skipped: nothing was tested"
		rc=1
		;;
	*) rc=1 ;;
	esac
else
	echo "ok 1 kselftest iopoll # SKIP not built (the series has no selftests yet)"
fi
exit "$rc"
