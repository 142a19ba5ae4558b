#!/bin/bash
# iopoll_writer.py verify fails on a torn, lost or misplaced acknowledged write. TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
writer=$top/build/linux/tools/testing/selftests/iopoll/iopoll_writer.py
if [ ! -f "$writer" ]; then
	tap_result "iopoll_writer.py" skip "not in build/linux: run make tree"
	exit 0
fi
# O_DIRECT needs a file system that has it: not tmpfs.
tmp=$(mktemp -d "$top/build/writer-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
img=$tmp/img
truncate -s 8M "$img"

# verify_fails what: verify must fail after the damage done to $img.
verify_fails()
{
	if python3 "$writer" verify "$img" "$tmp/j" >"$tmp/out" 2>&1; then
		sed 's/^/# /' "$tmp/out"
		tap_result "iopoll_writer.py: verify fails on $1" 1
	else
		tap_result "iopoll_writer.py: verify fails on $1" 0
	fi
}

rc=0
python3 "$writer" write "$img" 1 2 1 "$tmp/j" >"$tmp/out" 2>&1 || rc=1
python3 "$writer" verify "$img" "$tmp/j" >>"$tmp/out" 2>&1 || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/out"
tap_result "iopoll_writer.py: a clean write verifies" "$rc"
cp "$img" "$tmp/good"

# One byte of block 5 (the area starts at 1 MiB).
printf 'X' | dd of="$img" bs=1 seek=$((1048576 + 5 * 4096 + 100)) conv=notrunc status=none
verify_fails "a torn block"

# Block 7 holds block 6: a write that went to the wrong place.
cp "$tmp/good" "$img"
dd if="$tmp/good" of="$img" bs=4096 skip=$((256 + 6)) seek=$((256 + 7)) count=1 \
	conv=notrunc status=none
verify_fails "a misplaced block"

# Block 3 holds an older generation: an acknowledged write was lost.
cp "$tmp/good" "$img"
python3 - "$img" "$tmp/j" <<'PY'
import json, sys
j = json.load(open(sys.argv[2]))
j["acked"][3] += 1
json.dump(j, open(sys.argv[2], "w"))
PY
verify_fails "a lost write"
