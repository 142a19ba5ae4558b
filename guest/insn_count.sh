#!/bin/bash
# Guest side of scripts/insn-count.sh: for each of ROWS, BATCHES batches of OPS 4 KiB I/Os by
# INSN_IO (guest/insn_io.c) on the last CPU, with every iowait_poll knob off (stock 6.12 has
# none). The QEMU plugin scripts/qemu_insn_count.c counts the guest's instructions at the
# markers that insn_io executes around each batch. Rows: the kinds of insn_io on the NVMe
# disk iopoll-main, and virtio_read (O_DIRECT reads of the virtio-blk disk iopoll-vmain).
# Writes OUTDIR/insn-rows.tsv (row, batches, ops, seconds of each batch), in the order run.
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
read -ra rows <<<"${ROWS:-read write buffered iopoll uring32 libaio32 virtio_read}"
[[ $BATCHES =~ ^[1-9][0-9]?$ ]] || die "BATCHES=$BATCHES is not 1-99"
[[ $OPS =~ ^[1-9][0-9]{0,6}$ ]] || die "OPS=$OPS is not 1-9999999"
for row in "${rows[@]}"; do
	[[ $row =~ ^(read|write|buffered|iopoll|uring32|libaio32|virtio_read)$ ]] ||
		die "ROWS entry '$row' is not read, write, buffered, iopoll, uring32, libaio32 or virtio_read"
done
main=$(disk_by_serial iopoll-main) || die "no NVMe disk with serial iopoll-main"
vmain=$(disk_by_serial iopoll-vmain) || die "no virtio-blk disk with serial iopoll-vmain"
kernel="no iowait_poll (stock)"
if [ -e "/sys/block/$main/queue/iowait_poll" ]; then
	reset_iowait_knobs "$main"
	reset_iowait_knobs "$vmain"
	kernel="series, knobs off"
fi
echo "insn_count.sh: $(uname -r), $kernel; $BATCHES batches of $OPS I/Os per row"
cpu=$(($(nproc) - 1))
printf 'row\tbatch\tops\tseconds\n' >"$out/insn-rows.tsv"
for row in "${rows[@]}"; do
	disk=$main kind=$row
	[ "$row" != virtio_read ] || disk=$vmain kind=read
	taskset -c "$cpu" "$io" "$kind" "/dev/$disk" "$BATCHES" "$OPS" >"$out/insn-$row.txt" ||
		die "$row: insn_io failed"
	awk -v row="$row" '{ printf "%s\t%s\t%s\t%s\n", row, $2, $4, $6 }' "$out/insn-$row.txt" >>"$out/insn-rows.tsv"
	echo "insn_count.sh: $row done ($(awk '{ s += $6 } END { printf "%.1f", s }' "$out/insn-$row.txt") s)"
done
