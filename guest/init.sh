#!/bin/bash
# PID 1 in the guest: mount the basics, run the command the host left in $iopoll_out, power off.
# shellcheck disable=SC2154 # iopoll_out and iopoll_top come from the kernel command line.

# All in one function, so that bash has read it whole before it runs.
main() {
	set -uo pipefail
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TERM=dumb
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev 2>/dev/null
	mkdir -p /dev/pts /dev/shm
	ln -sf /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	mount -t devpts devpts /dev/pts
	mount -t tmpfs shm /dev/shm
	# Writable tmpfs over these (scripts/vm.sh refuses an output directory below
	# them); a checkout below one of them is moved back on top.
	for d in /tmp /run /var/tmp /var/lib /root; do
		if [[ $iopoll_top/ == "$d"/* ]]; then
			mkdir -p /dev/shm/iopoll-top
			mount --bind "$iopoll_top" /dev/shm/iopoll-top
			mount -t tmpfs tmp "$d"
			mkdir -p "$iopoll_top"
			mount --move /dev/shm/iopoll-top "$iopoll_top"
		else
			mount -t tmpfs tmp "$d"
		fi
	done
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 iopoll_out "$iopoll_out"
	hostname iopoll-guest 2>/dev/null || true

	export IOPOLL_OUT=$iopoll_out IOPOLL_TOP=$iopoll_top
	cd "$IOPOLL_TOP" || exit 1
	echo "iopoll-guest: running: $(cat "$IOPOLL_OUT/command")"
	bash -c "$(cat "$IOPOLL_OUT/command")" </dev/null 2>&1 | tee "$IOPOLL_OUT/guest.log"
	rc=${PIPESTATUS[0]}
	dmesg >"$IOPOLL_OUT/dmesg.txt"
	echo "$rc" >"$IOPOLL_OUT/rc"
	sync
	echo "iopoll-guest: exit $rc"
	echo o >/proc/sysrq-trigger
	sleep 5
	echo b >/proc/sysrq-trigger
	sleep 5
}

main "$@"
