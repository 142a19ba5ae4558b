#!/bin/bash
# Guest-side experiment: the ext4 cold metadata walk of make bench (find over NFILES small
# files, page cache dropped before each walk) with polling off and on at spin budgets of
# 200 (the default), 1000 and 5000 us, REPS interleaved reps (default 8). One line per walk:
# its time, the polled waits, the waits that ran out of the budget and the time spent
# polling.
# Run: make vm PROFILE=bench CMD='bash guest/metadata_budget.sh'
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

die() {
	echo "metadata_budget.sh: error: $*" >&2
	exit 1
}

disk=$(disk_by_serial iopoll-data) || die "no NVMe disk with serial iopoll-data"
q=/sys/block/$disk/queue
[ -e "$q/iowait_poll_budget_us" ] || die "$q/iowait_poll_budget_us is missing (not the iopoll kernel?)"
REPS=${REPS:-8}
NFILES=${NFILES:-20000}
[[ $REPS =~ ^[1-9][0-9]?$ ]] || die "REPS=$REPS is not 1-99"
[[ $NFILES =~ ^[1-9][0-9]{2,5}$ ]] || die "NFILES=$NFILES is not 100-999999"
dir=/tmp/iopoll-metadata

cleanup() {
	reset_iowait_knobs "$disk"
	if mountpoint -q "$dir"; then umount "$dir"; fi
}
trap cleanup EXIT

echo "metadata_budget.sh: creating $NFILES files on /dev/$disk" >&2
make_ext4_tree "$disk" "$dir" "$NFILES"
for ((rep = 1; rep <= REPS; rep++)); do
	for cfg in off:200 on:200 on:1000 on:5000; do
		mode=${cfg%%:*} budget=${cfg#*:}
		reset_iowait_knobs "$disk"
		echo "$budget" >"$q/iowait_poll_budget_us"
		[ "$mode" = off ] || echo 1 >"$q/iowait_poll"
		sync
		echo 3 >/proc/sys/vm/drop_caches
		w0=$(iowait_stat "$disk" waits) b0=$(iowait_stat "$disk" exit_budget) s0=$(iowait_stat "$disk" spin_ns)
		t0=$(date +%s%N)
		timeout 120 find "$dir/tree" -printf '%s\n' >/dev/null
		t1=$(date +%s%N)
		w1=$(iowait_stat "$disk" waits) b1=$(iowait_stat "$disk" exit_budget) s1=$(iowait_stat "$disk" spin_ns)
		echo "rep=$rep mode=$mode budget_us=$budget walk_ms=$(((t1 - t0) / 1000000))" \
			"waits=$((w1 - w0)) budget_exits=$((b1 - b0)) spin_ms=$(((s1 - s0) / 1000000))"
	done
done
