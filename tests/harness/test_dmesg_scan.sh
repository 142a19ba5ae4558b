#!/bin/bash
# dmesg-scan.sh fails on a kernel report and names the selftest scenario it came in. TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A serial log as the guest writes it: CR LF line ends, two scenario marks.
printf '%s\r\n' '[    1.0] nvme nvme0: 2/0/0 default/read/poll queues' \
	'[    2.0] iopoll: scenario 6 begins' '[    3.0] nvme nvme1: resetting controller' \
	'[    4.0] iopoll: scenario 7 begins' '[    5.0] WARNING: CPU: 1 PID: 99 at block/blk-mq.c:1 x' \
	>"$tmp/bad.log"
printf '%s\r\n' '[    2.0] iopoll: scenario 6 begins' '[    3.0] nvme nvme1: resetting controller' \
	>"$tmp/clean.log"

rc=0
"$top/scripts/dmesg-scan.sh" "$tmp/bad.log" 2>"$tmp/out" && rc=1
grep -qF '5: [scenario 7] [    5.0] WARNING: CPU: 1' "$tmp/out" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/out"
tap_result "dmesg-scan: a WARNING fails, attributed to scenario 7" "$rc"

rc=0
"$top/scripts/dmesg-scan.sh" "$tmp/clean.log" 2>"$tmp/out" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/out"
tap_result "dmesg-scan: a clean log passes" "$rc"
tap_summary >/dev/null
