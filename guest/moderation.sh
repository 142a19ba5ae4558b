#!/bin/bash
# Guest-side experiment: interrupt moderation (napi mode: iowait_poll_submit_reap
# with nvme-pci's irq_poll) against the IRQ path, on the iopoll-main disk, 4 KiB
# O_DIRECT randread at depth QD with ENGINE (libaio or io_uring without IOPOLL), at
# nvme.irq_moderation_us values; REPS interleaved reps of 4 s. One line per run:
# IOPS, and per I/O: interrupts, guest CPU µs, context switches, IRQ_POLL softirqs.
# Run: make vm PROFILE=bench CMD='CONFIGS="off:0 napi:50" bash guest/moderation.sh'
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

die() { echo "moderation.sh: $*" >&2; exit 1; }
disk=$(disk_by_serial iopoll-main) || die "no NVMe disk with serial iopoll-main"
q=/sys/block/$disk/queue
param=/sys/module/nvme/parameters/irq_moderation_us
for f in "$q/iowait_poll_submit_reap" "$param"; do
	[ -e "$f" ] || die "$f is missing (not the iopoll kernel?)"
done
default_us=$(cat "$param")
trap 'reset_iowait_knobs "$disk"; echo "$default_us" >"$param"' EXIT

REPS=${REPS:-3}
[[ $REPS =~ ^[1-9][0-9]?$ ]] || die "REPS=$REPS is not 1-99"
read -ra depths <<<"${QD:-32 128}"
read -ra engines <<<"${ENGINE:-libaio io_uring}"
read -ra configs <<<"${CONFIGS:-off:0 napi:20 napi:50 napi:200}"
for d in "${depths[@]}"; do [[ $d =~ ^[1-9][0-9]{0,3}$ ]] || die "QD entry '$d' is not 1-9999"; done
for e in "${engines[@]}"; do [[ $e =~ ^(libaio|io_uring)$ ]] || die "ENGINE entry '$e' is not libaio or io_uring"; done
for cfg in "${configs[@]}"; do
	[[ $cfg =~ ^(off|napi):[0-9]{1,5}$ ]] || die "CONFIGS entry '$cfg' is not off|napi:US"
done

hz=$(getconf CLK_TCK)
n=${#configs[@]}
for engine in "${engines[@]}"; do
	for qd in "${depths[@]}"; do
		for ((rep = 1; rep <= REPS; rep++)); do
			for ((i = 0; i < n; i++)); do
				cfg=$(rotated_config "$rep" "$i" "${configs[@]}")
				mode=${cfg%%:*} us=${cfg#*:}
				reset_iowait_knobs "$disk"
				echo "$us" >"$param"
				[ "$mode" = off ] || echo 1 >"$q/iowait_poll_submit_reap"
				read -r c0 x0 p0 <<<"$(guest_counters)"
				i0=$(nvme_irq_count "$disk")
				n0=$(awk '{ print $1 }' "/sys/block/$disk/stat")
				iops=$(timeout 60 fio --name=q --filename="/dev/$disk" --bs=4k --runtime=4 \
					--time_based --output-format=terse --terse-version=3 --ioengine="$engine" \
					--iodepth="$qd" --direct=1 --rw=randread | awk -F';' '{ print $8 }')
				n1=$(awk '{ print $1 }' "/sys/block/$disk/stat")
				i1=$(nvme_irq_count "$disk")
				read -r c1 x1 p1 <<<"$(guest_counters)"
				ios=$((n1 - n0))
				[ "$ios" -gt 0 ] || die "no I/O completed in $engine QD$qd $cfg"
				awk -v e="$engine" -v qd="$qd" -v rep="$rep" -v mode="$mode" -v us="$us" \
					-v iops="$iops" -v ios="$ios" -v irq=$((i1 - i0)) -v cpu=$((c1 - c0)) \
					-v ctx=$((x1 - x0)) -v ip=$((p1 - p0)) -v hz="$hz" 'BEGIN {
					printf "engine=%s qd=%d rep=%d mode=%s us=%d iops=%d irq_per_io=%.3f " \
						"cpu_us_per_io=%.1f ctx_per_io=%.3f irq_poll_per_io=%.3f\n",
						e, qd, rep, mode, us, iops, irq / ios, cpu * 1e6 / hz / ios,
						ctx / ios, ip / ios }'
			done
		done
	done
done
