#!/bin/bash
# make insn-count: the instructions the guest executes per I/O, the series with its knobs
# off against stock 6.12 (the same config), counted by a QEMU TCG plugin
# (scripts/qemu_insn_count.c) in INSN_PAIRS alternated pairs of boots. The timed A/B
# (BENCH_AB) cannot see a cost below about 10 % on this host; a count can.
# Knobs: INSN_PAIRS=1..20 (3), INSN_BATCHES=1..99 (10), INSN_OPS=I/Os per batch (5000),
#        INSN_ROWS='read write ...' (guest/insn_count.sh's rows; all of them),
#        INSN_PROFILE=on: also count per kernel function (one row only; slower).
# Output: results/insn-<date-time>/ with a directory per boot, report.md and summary.json.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
validate_knobs

pairs=${INSN_PAIRS:-3}
batches=${INSN_BATCHES:-10}
ops=${INSN_OPS:-5000}
all_rows=(read write buffered iopoll uring32 uring128 libaio32 libaio128 virtio_read metadata)
rows=${INSN_ROWS:-${all_rows[*]}}
check_uint INSN_PAIRS "$pairs" 1 20
check_uint INSN_BATCHES "$batches" 1 99
check_uint INSN_OPS "$ops" 1 9999999
for row in $rows; do
	check_choice INSN_ROWS "$row" "${all_rows[@]}"
done
[ "${ACCEL:-auto}" != kvm ] || die "ACCEL=kvm: the instruction count needs TCG"
profile=${INSN_PROFILE:-off}
check_choice INSN_PROFILE "$profile" on off
plugin_args=""
if [ "$profile" = on ]; then
	read -ra wanted <<<"$rows"
	[ ${#wanted[@]} -eq 1 ] || die "INSN_PROFILE=on sums every row's batches: name one in INSN_ROWS"
	plugin_args=profile=on
fi

build_bench_kernels

tools=$BUILD/insn-count
mkdir -p "$tools"
gcc -Wall -Wextra -Werror -Wno-unused-parameter -O2 -shared -fPIC -fvisibility=hidden \
	-o "$tools/qemu_insn_count.so" "$TOP/scripts/qemu_insn_count.c" ||
	die "could not build the QEMU plugin scripts/qemu_insn_count.c"
gcc -Wall -Wextra -Werror -Wno-unused-parameter -O2 -o "$tools/insn_io" "$TOP/guest/insn_io.c" ||
	die "could not build guest/insn_io.c"

results=$TOP/results/insn-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
log "results: $results"
guest_cmd="INSN_IO=$tools/insn_io BATCHES=$batches OPS=$ops ROWS=\"$rows\" bash guest/insn_count.sh"
for ((i = 1; i <= pairs; i++)); do
	for kind in series stock; do
		kernel=bench
		[ "$kind" = series ] || kernel=stock
		stage_begin "boot $kind-$i of $pairs" "insn-count-boot-$kind"
		QEMU_PLUGIN=$tools/qemu_insn_count.so QEMU_PLUGIN_ARGS=$plugin_args \
			"$TOP/scripts/vm.sh" -p "$kernel" -o "$results/$kind-$i" -t "${VM_TIMEOUT:-1200}" \
			-- "$guest_cmd" ||
			die "the $kind-$i boot failed; see $results/$kind-$i/serial.log and guest.log"
		"$TOP/scripts/dmesg-scan.sh" "$results/$kind-$i/serial.log" ||
			die "the kernel reported problems in the $kind-$i boot; see $results/$kind-$i/serial.log"
		cp "$BUILD/obj-$kernel/System.map" "$results/$kind-$i/"
		stage_done
	done
done
python3 "$TOP/report/insn_count.py" "$results"
log "report: $results/report.md"
