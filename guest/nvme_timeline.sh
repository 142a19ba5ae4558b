#!/bin/bash
# Guest side of the NVMe timeline (report/nvme_timeline.py): psync QD1 4 KiB randread on the
# iopoll-main disk in each of MODES, RUNTIME s each on the last CPU (PIN=none: on any, as
# make bench runs it), with QUIET s without I/O
# between runs, so that QEMU's trace of the device (scripts/vm.sh QEMU_TRACE) can be cut into
# one piece per run. Writes OUTDIR/timeline.tsv: mode and IOPS, in the order of the runs.
# Run: QEMU_TRACE="$(python3 report/nvme_timeline.py --events)" \
#        scripts/vm.sh -p bench -o results/timeline -- bash guest/nvme_timeline.sh
#      python3 report/nvme_timeline.py results/timeline
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

die() {
	echo "nvme_timeline.sh: error: $*" >&2
	exit 1
}

out=${IOPOLL_OUT:-}
[ -n "$out" ] || die "IOPOLL_OUT is not set (not in the guest?)"
disk=$(disk_by_serial iopoll-main) || die "no NVMe disk with serial iopoll-main"
[ -e "/sys/block/$disk/queue/iowait_poll" ] || die "no iowait_poll on $disk (not the iopoll kernel?)"
trap 'reset_iowait_knobs "$disk"' EXIT

RUNTIME=${RUNTIME:-3}
QUIET=${QUIET:-2}
PIN=${PIN:-last}
read -ra modes <<<"${MODES:-off on irqsuppress iopoll}"
[[ $PIN =~ ^(last|none)$ ]] || die "PIN=$PIN is not last or none"
[[ $RUNTIME =~ ^[1-9][0-9]?$ ]] || die "RUNTIME=$RUNTIME is not 1-99 seconds"
[[ $QUIET =~ ^[1-9]$ ]] || die "QUIET=$QUIET is not 1-9 seconds"
for mode in "${modes[@]}"; do
	[[ $mode =~ ^(off|on|irqsuppress|iopoll)$ ]] || die "MODES entry '$mode' is not off, on, irqsuppress or iopoll"
done

pin=(--cpus_allowed=$(($(nproc) - 1)))
[ "$PIN" = last ] || pin=()
printf 'mode\tiops\n' >"$out/timeline.tsv"
for mode in "${modes[@]}"; do
	set_mode "$disk" "$mode"
	read -ra engine <<<"$(mode_engine "$mode")"
	sleep "$QUIET"
	iops=$(timeout $((RUNTIME + 60)) fio --name=t --filename="/dev/$disk" --bs=4k --runtime="$RUNTIME" \
		--time_based --size=4G --randrepeat=0 --norandommap --iodepth=1 --direct=1 --rw=randread \
		${pin[@]+"${pin[@]}"} --output-format=terse --terse-version=3 "${engine[@]}" |
		awk -F';' '{ print $8 }') || die "fio failed in mode $mode"
	printf '%s\t%s\n' "$mode" "$iops" >>"$out/timeline.tsv"
	echo "nvme_timeline.sh: $mode: $iops IOPS"
done
sleep "$QUIET"
