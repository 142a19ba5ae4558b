#!/bin/bash
# Guest side of scripts/insn-count.sh: for each of ROWS, BATCHES batches of OPS 4 KiB I/Os by
# INSN_IO (guest/insn_io.c) on the last CPU, with every iowait_poll knob off (stock 6.12 has
# none). The QEMU plugin scripts/qemu_insn_count.c counts the guest's instructions at the
# markers that insn_io executes around each batch. Rows: the I/O kinds of insn_io on the NVMe
# disk iopoll-main; virtio_read (O_DIRECT reads of the virtio-blk disk iopoll-vmain); metadata
# (insn_io's walk of a cold ext4 tree of NFILES files on the NVMe disk iopoll-data, whose
# ops are the entries walked). Writes OUTDIR/insn-rows.tsv (row, batch, ops, seconds).
# MODE=on|irqsuppress (series only): the NVMe disks' knobs as guest/bench.sh sets that mode,
# for a profile of a polled row (its count then holds the spinning too).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

die() {
	echo "insn_count.sh: error: $*" >&2
	exit 1
}

out=${IOPOLL_OUT:-}
[ -n "$out" ] || die "IOPOLL_OUT is not set (not in the guest?)"
io=${INSN_IO:-}
[ -x "$io" ] || die "INSN_IO=$io is not an executable (scripts/insn-count.sh builds it)"
BATCHES=${BATCHES:-10}
OPS=${OPS:-5000}
NFILES=${NFILES:-2000}
MODE=${MODE:-off}
[[ $MODE =~ ^(off|on|irqsuppress)$ ]] || die "MODE=$MODE is not off, on or irqsuppress"
ROW_NAMES="read write buffered iopoll uring32 uring128 libaio32 libaio128 virtio_read metadata"
read -ra rows <<<"${ROWS:-$ROW_NAMES}"
[[ $BATCHES =~ ^[1-9][0-9]?$ ]] || die "BATCHES=$BATCHES is not 1-99"
[[ $OPS =~ ^[1-9][0-9]{0,6}$ ]] || die "OPS=$OPS is not 1-9999999"
[[ $NFILES =~ ^[1-9][0-9]{2,5}$ ]] || die "NFILES=$NFILES is not 100-999999"
for row in "${rows[@]}"; do
	[[ " $ROW_NAMES " == *" $row "* ]] || die "ROWS entry '$row' is not one of: $ROW_NAMES"
done
main=$(disk_by_serial iopoll-main) || die "no NVMe disk with serial iopoll-main"
vmain=$(disk_by_serial iopoll-vmain) || die "no virtio-blk disk with serial iopoll-vmain"
data=$(disk_by_serial iopoll-data) || die "no NVMe disk with serial iopoll-data"
kernel="no iowait_poll (stock)"
if [ -e "/sys/block/$main/queue/iowait_poll" ]; then
	for disk in "$main" "$vmain" "$data"; do
		reset_iowait_knobs "$disk"
	done
	kernel="series, knobs off"
	if [ "$MODE" != off ]; then
		set_mode "$main" "$MODE"
		set_mode "$data" "$MODE"
		kernel="series, mode $MODE on the NVMe disks"
	fi
elif [ "$MODE" != off ]; then
	die "MODE=$MODE needs the series' iowait_poll knobs, which this kernel lacks"
fi
ext4_dir=/tmp/iopoll-insn-ext4
trap 'if mountpoint -q "$ext4_dir"; then umount "$ext4_dir"; fi' EXIT
echo "insn_count.sh: $(uname -r), $kernel; $BATCHES batches of $OPS I/Os per row"
cpu=$(($(nproc) - 1))
printf 'row\tbatch\tops\tseconds\n' >"$out/insn-rows.tsv"
for row in "${rows[@]}"; do
	target=/dev/$main kind=$row
	case $row in
	virtio_read) target=/dev/$vmain kind=read ;;
	metadata)
		make_ext4_tree "$data" "$ext4_dir" "$NFILES"
		target=$ext4_dir/tree kind=walk
		;;
	esac
	taskset -c "$cpu" "$io" "$kind" "$target" "$BATCHES" "$OPS" >"$out/insn-$row.txt" ||
		die "$row: insn_io failed"
	awk -v row="$row" '{ printf "%s\t%s\t%s\t%s\n", row, $2, $4, $6 }' "$out/insn-$row.txt" >>"$out/insn-rows.tsv"
	echo "insn_count.sh: $row done ($(awk '{ s += $6 } END { printf "%.1f", s }' "$out/insn-$row.txt") s)"
done
