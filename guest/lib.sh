# shellcheck shell=bash
# Helpers for scripts that run in the guest.

# disk_by_serial SERIAL: print the nvme disk name (nvme0n1) whose controller has SERIAL.
disk_by_serial() {
	local d
	for d in /sys/block/nvme*n1; do
		[ -e "$d" ] || continue
		if [ "$(tr -d ' ' <"$d/device/serial")" = "$1" ]; then
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

# reset_iowait_knobs DISK: every iowait_poll knob of DISK back to its default.
reset_iowait_knobs() {
	local q=/sys/block/$1/queue
	echo 0 >"$q/iowait_poll"
	echo 0 >"$q/iowait_poll_irq_suppress"
	echo 0 >"$q/iowait_poll_submit_reap"
	echo spin >"$q/iowait_poll_mode"
	echo 200 >"$q/iowait_poll_budget_us"
}
