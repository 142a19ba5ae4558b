#!/bin/bash
# Guest-side experiment: does RWF_HIPRI cost anything beyond its engine? psync QD1
# randread on the iopoll-main disk with fio's psync (pread) and pvsync2 (preadv2)
# engines, polling off and on, and pvsync2 --hipri=1 with polling off; REPS
# interleaved reps of 3 s (default 10). One line per run.
# Run: make vm PROFILE=bench CMD='bash guest/hipri_engine.sh'
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

disk=$(disk_by_serial iopoll-main) ||
	{ echo "hipri_engine.sh: no NVMe disk with serial iopoll-main" >&2; exit 1; }
q=/sys/block/$disk/queue
[ -e "$q/iowait_poll" ] || { echo "hipri_engine.sh: $q/iowait_poll is missing (not the iopoll kernel?)" >&2; exit 1; }
trap 'reset_iowait_knobs "$disk"' EXIT

REPS=${REPS:-10}
[[ $REPS =~ ^[1-9][0-9]?$ ]] || { echo "hipri_engine.sh: REPS=$REPS is not 1-99" >&2; exit 1; }
for ((rep = 1; rep <= REPS; rep++)); do
	for cfg in psync:0:0 pvsync2:0:0 pvsync2:0:1 psync:1:0 pvsync2:1:0; do
		IFS=: read -r engine poll hipri <<<"$cfg"
		reset_iowait_knobs "$disk"
		echo "$poll" >"$q/iowait_poll"
		opts=(--ioengine="$engine")
		[ "$engine" = psync ] || opts+=(--hipri="$hipri")
		w0=$(iowait_stat "$disk" waits)
		result=$(timeout 60 fio --name=q --filename="/dev/$disk" --bs=4k --runtime=3 --time_based \
			--ramp_time=0.5 --output-format=terse --terse-version=3 "${opts[@]}" \
			--direct=1 --rw=randread |
			awk -F';' '{ print "iops=" $8 " lat_mean_us=" $40 }')
		echo "rep=$rep engine=$engine iowait_poll=$poll hipri=$hipri $result waits=$(($(iowait_stat "$disk" waits) - w0))"
	done
done
