#!/bin/bash
# Guest-side experiment: psync QD1 randread on the iopoll-main disk with the
# IRQ armed (on) and held off (irqsuppress) at spin budgets of 200 and
# 1000 us and learned (0), plus the IRQ path (off) and io_uring IOPOLL on a
# poll queue (iopoll); 3 interleaved reps of 4 s (REPS, CONFIGS to change). One
# line per run; budget_end_us is the budget the waits ran with at its end.
# Run: make vm PROFILE=bench CMD='bash guest/irqsuppress_budget.sh'
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

disk=$(disk_by_serial iopoll-main) ||
	{ echo "irqsuppress_budget.sh: no NVMe disk with serial iopoll-main" >&2; exit 1; }
q=/sys/block/$disk/queue
for f in iowait_poll iowait_poll_irq_suppress iowait_poll_submit_reap iowait_poll_budget_us; do
	[ -e "$q/$f" ] || { echo "irqsuppress_budget.sh: $q/$f is missing (not the iopoll kernel?)" >&2; exit 1; }
done

trap 'reset_iowait_knobs "$disk"' EXIT

REPS=${REPS:-3}
[[ $REPS =~ ^[1-9][0-9]?$ ]] || { echo "irqsuppress_budget.sh: REPS=$REPS is not 1-99" >&2; exit 1; }
# CONFIGS: MODE:BUDGET_US pairs, run in rotated order (rotated_config).
read -ra configs <<<"${CONFIGS:-on:200 irqsuppress:200 on:1000 irqsuppress:1000 on:0 irqsuppress:0 off:0 iopoll:0}"
for cfg in "${configs[@]}"; do
	[[ $cfg =~ ^(on|irqsuppress|off|iopoll):[0-9]{1,5}$ ]] ||
		{ echo "irqsuppress_budget.sh: CONFIGS entry '$cfg' is not MODE:BUDGET_US" >&2; exit 1; }
done
n=${#configs[@]}
for ((rep = 1; rep <= REPS; rep++)); do
	for ((i = 0; i < n; i++)); do
		cfg=$(rotated_config "$rep" "$i" "${configs[@]}")
		mode=${cfg%%:*} budget=${cfg#*:}
		set_mode "$disk" "$mode"
		echo "$budget" >"$q/iowait_poll_budget_us"
		read -ra engine <<<"$(mode_engine "$mode")"
		i0=$(nvme_irq_count "$disk") w0=$(iowait_stat "$disk" waits) b0=$(iowait_stat "$disk" exit_budget)
		result=$(timeout 60 fio --name=q --filename="/dev/$disk" --bs=4k --runtime=4 --time_based \
			--output-format=terse --terse-version=3 "${engine[@]}" --direct=1 --rw=randread |
			awk -F';' '{ print "iops=" $8 " lat_mean_us=" $40 }')
		i1=$(nvme_irq_count "$disk") w1=$(iowait_stat "$disk" waits) b1=$(iowait_stat "$disk" exit_budget)
		echo "rep=$rep mode=$mode budget_us=$budget $result irqs=$((i1 - i0)) waits=$((w1 - w0))" \
			"budget_exits=$((b1 - b0)) budget_end_us=$(($(iowait_stat "$disk" budget_ns) / 1000))"
	done
done
