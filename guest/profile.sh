#!/bin/bash
# Guest-side profile: where the time of a psync QD1 4 KiB randread goes in each mode (off,
# on, irqsuppress) and with io_uring IOPOLL. fio runs on the last CPU (its queue's interrupt
# is there too), first alone, then under perf record -C CPU -e cpu-clock with a fixed
# period, so that the profile is of that CPU's clock, idle included. Writes
# OUTDIR/profile-MODE.txt (perf report by dso and symbol) and OUTDIR/profile.tsv (mode,
# I/Os under perf, seconds, period, IOPS without perf); report/profile.py turns them into
# a per-I/O table.
# Run: scripts/vm.sh -p bench -o results/profile -- bash guest/profile.sh
#      python3 report/profile.py results/profile
# OUTDIR defaults to the boot's output directory (IOPOLL_OUT), the one the guest can write.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

die() {
	echo "profile.sh: error: $*" >&2
	exit 1
}

[ $# -le 1 ] || die "usage: $0 [OUTDIR]"
out=${1:-${IOPOLL_OUT:-}}
[ -n "$out" ] || die "no OUTDIR, and IOPOLL_OUT is not set (not in the guest?)"
mkdir -p "$out" || die "cannot create $out"
command -v perf >/dev/null || die "perf is not installed (Debian: linux-perf)"
disk=$(disk_by_serial iopoll-main) || die "no NVMe disk with serial iopoll-main"
q=/sys/block/$disk/queue
[ -e "$q/iowait_poll" ] || die "$q/iowait_poll is missing (not the iopoll kernel?)"
trap 'reset_iowait_knobs "$disk"' EXIT

RUNTIME=${RUNTIME:-10}
PERIOD_NS=${PERIOD_NS:-1000000}
[[ $RUNTIME =~ ^[1-9][0-9]?$ ]] || die "RUNTIME=$RUNTIME is not 1-99 seconds"
[[ $PERIOD_NS =~ ^[1-9][0-9]{4,6}$ ]] || die "PERIOD_NS=$PERIOD_NS is not 10000-9999999"
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid

cpu=$(($(nproc) - 1))
# psync QD1 4 KiB randread on the main disk, pinned to $cpu; a mode adds its engine.
fio_args=(--name=p --filename="/dev/$disk" --bs=4k --runtime="$RUNTIME" --time_based
	--size=4G --randrepeat=0 --norandommap --iodepth=1 --direct=1 --rw=randread
	--cpus_allowed="$cpu" --output-format=terse --terse-version=3)

printf 'mode\tios\tseconds\tperiod_ns\tcpus\tiops_without_perf\n' >"$out/profile.tsv"
for mode in off on irqsuppress iopoll; do
	set_mode "$disk" "$mode"
	read -ra opts <<<"$(mode_engine "$mode")"
	# terse v3: field 6 is the KiB read (4 KiB per I/O), field 8 the IOPS.
	plain=$(timeout $((RUNTIME + 60)) fio "${fio_args[@]}" "${opts[@]}" | awk -F';' '{ print $8 }') ||
		die "fio failed in mode $mode"
	data=/tmp/perf-$mode.data
	t0=$(date +%s%N)
	# perf stops when fio exits: the profile covers the whole fio run.
	timeout $((RUNTIME + 60)) perf record -q -N -C "$cpu" -e cpu-clock -c "$PERIOD_NS" \
		-o "$data" -- fio "${fio_args[@]}" "${opts[@]}" >"/tmp/fio-$mode.txt" ||
		die "perf record or fio failed in mode $mode"
	t1=$(date +%s%N)
	ios=$(awk -F';' '{ print int($6 / 4) }' "/tmp/fio-$mode.txt")
	[[ $ios =~ ^[0-9]+$ && $ios -gt 0 ]] || die "fio reported no I/Os in mode $mode"
	secs=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$ios" "$secs" "$PERIOD_NS" "$cpu" "$plain" >>"$out/profile.tsv"
	perf report -q -i "$data" --stdio --no-children --sort dso,sym -F overhead,sample,dso,sym \
		>"$out/profile-$mode.txt" 2>/dev/null || die "perf report failed in mode $mode"
	echo "profile.sh: $mode: $plain IOPS without perf; under perf $ios I/Os in $secs s, $(wc -l <"$out/profile-$mode.txt") symbols"
	rm -f "$data"
done
