# shellcheck shell=bash
# Helpers for scripts that run in the guest.

# disk_by_serial SERIAL: print the disk name, nvme*n1 (its controller's serial) or vd*
# (virtio-blk), that has SERIAL.
disk_by_serial() {
	local d f
	for d in /sys/block/nvme*n1 /sys/block/vd*; do
		f=$d/device/serial
		[[ $d == */vd* ]] && f=$d/serial
		[ -r "$f" ] || continue
		if [ "$(tr -d ' ' <"$f")" = "$1" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# nvme_irq_count DISK: the interrupts taken so far by the I/O queues of DISK's controller.
nvme_irq_count() {
	local ctrl
	ctrl=$(basename "$(readlink -f "/sys/block/$1/device")")
	awk -v re="^${ctrl}q[1-9][0-9]*\$" '$NF ~ re { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i } END { print n + 0 }' /proc/interrupts
}

# iowait_stat DISK NAME: the counter NAME of DISK's iowait_poll_stats (debugfs).
iowait_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "/sys/kernel/debug/block/$1/iowait_poll_stats"
}

# rotated_config REP I CONFIG...: the I-th (from 0) of the CONFIGs in rep REP (from 1). Each rep
# starts one later in the list, so that no configuration always runs first or last.
rotated_config() {
	local rep=$1 i=$2
	shift 2
	local configs=("$@")
	echo "${configs[(i + rep - 1) % ${#configs[@]}]}"
}

# guest_counters: busy CPU jiffies, context switches and IRQ_POLL softirqs of the whole guest.
guest_counters() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 } $1 == "ctxt" { c = $2 } END { printf "%d %d ", b, c }' /proc/stat
	awk '$1 == "IRQ_POLL:" { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' /proc/softirqs
}

# reset_iowait_knobs DISK: every iowait_poll knob of DISK back to its default.
reset_iowait_knobs() {
	local q=/sys/block/$1/queue
	echo 0 >"$q/iowait_poll"
	echo 0 >"$q/iowait_poll_irq_suppress"
	echo 0 >"$q/iowait_poll_submit_reap"
	echo 0 >"$q/iowait_poll_budget_us"
}

# set_mode DISK MODE: DISK's knobs as MODE has them (off, on, irqsuppress, napi, iopoll; the
# last with all off), the others at their defaults.
set_mode() {
	local q=/sys/block/$1/queue
	reset_iowait_knobs "$1"
	case $2 in
	off | iopoll) ;;
	on) echo 1 >"$q/iowait_poll" ;;
	irqsuppress) echo 1 >"$q/iowait_poll" && echo 1 >"$q/iowait_poll_irq_suppress" ;;
	napi) echo 1 >"$q/iowait_poll_submit_reap" ;;
	*) echo "set_mode: unknown mode '$2'" >&2 && return 1 ;;
	esac
}

# mode_engine MODE: fio's engine options for a synchronous read in MODE.
mode_engine() {
	if [ "$1" = iopoll ]; then echo "--ioengine=io_uring --hipri=1"; else echo "--ioengine=psync"; fi
}

# make_ext4_tree DISK DIR NFILES: a fresh ext4 on /dev/DISK, mounted on DIR, with NFILES
# small files in 20 x 10 nested directories (DIR/tree), remounted so that nothing is cached.
make_ext4_tree() {
	local disk=$1 dir=$2 per_dir=$(($3 / 200)) i j k
	mkdir -p "$dir"
	if mountpoint -q "$dir"; then umount "$dir"; fi
	mkfs.ext4 -q -F "/dev/$disk"
	mount "/dev/$disk" "$dir"
	for ((i = 0; i < 20; i++)); do
		for ((j = 0; j < 10; j++)); do
			mkdir -p "$dir/tree/d$i/e$j"
			for ((k = 0; k < per_dir; k++)); do
				echo "$i $j $k" >"$dir/tree/d$i/e$j/f$k"
			done
		done
	done
	umount "$dir"
	mount "/dev/$disk" "$dir"
}
