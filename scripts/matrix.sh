#!/bin/bash
# make matrix: boot the debug kernel once per NVMe configuration that the default guest
# does not have, and run the kselftest scenarios for it. TAP out, one block per configuration.
# The preempt_kasan configurations boot the preempt-kasan kernel instead (make check-preempt).
#
# usage: matrix.sh [-l [PROFILE]] [CONFIG...]   (-l lists the configurations, those that
#                                      boot PROFILE's kernel if given; default: those
#                                      that boot the debug kernel)
# Knob: MATRIX_TIMEOUT=seconds per configuration (default 1200)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

# name | vCPUs | NVMe properties | null-co latency (ns) | data drive sector whose reads
# fail | kernel command line | scenarios | kernel profile (default debug) | 1: the data
# drive is zoned
CONFIGS=(
	"threaded_irq|2||||nvme.use_threaded_interrupts=1|30 11 26 14"
	"shared_vector|2|msix_qsize=1||||31"
	"write_queues|2||||nvme.write_queues=1|32 14"
	"shared_hwq|4|max_ioqpairs=1||||33 11"
	"cpu_pair_queue|4|max_ioqpairs=2||||52"
	"slow_device|2|max_ioqpairs=1|2000000|||34"
	"device_errors|2|||2097152||35"
	"sched_one_tag|2|max_ioqpairs=1|||nvme.io_queue_depth=2|87"
	"throttled|2|max_ioqpairs=1||||88"
	"zoned|2|max_ioqpairs=1,mdts=1||||89||1"
	"preempt_kasan|2|||||3 7 9 12 14 15 29 36 48 50 53 57|preempt-kasan"
	"preempt_kasan_cpu_pair|4|max_ioqpairs=2||||52|preempt-kasan"
)

# config_fields CONFIG: CONFIG's fields in name, vcpus, nvme_opts, latency,
# error_sector, append, scenarios, profile (debug if empty) and zoned; dies on a tenth.
config_fields() {
	local extra
	IFS='|' read -r name vcpus nvme_opts latency error_sector append scenarios profile zoned extra <<<"$1"
	[ -z "$extra" ] || die "configuration '$name' has more fields than matrix.sh reads: '$extra'"
	profile=${profile:-debug}
}

# config_names [PROFILE]: the configurations (that boot PROFILE's kernel).
config_names() {
	local c
	for c in "${CONFIGS[@]}"; do
		config_fields "$c"
		[ -z "${1:-}" ] || [ "$profile" = "$1" ] || continue
		echo "$name"
	done
}

if [ "${1:-}" = -l ]; then
	config_names "${2:-}"
	exit 0
fi
timeout_s=${MATRIX_TIMEOUT:-1200}
check_uint MATRIX_TIMEOUT "$timeout_s" 60 86400
want=("$@")
[ "${#want[@]}" -gt 0 ] || mapfile -t want < <(config_names debug)
names=$(config_names)
for name in "${want[@]}"; do
	[[ $'\n'$names$'\n' == *$'\n'$name$'\n'* ]] || die "unknown configuration '$name'; one of: ${names//$'\n'/ }"
done
runner=$BUILD/kselftest/iopoll/run_iopoll.sh
[ -x "$runner" ] || die "no $runner; run 'make selftests'"

for name in "${want[@]}"; do
	for c in "${CONFIGS[@]}"; do
		[ "${c%%|*}" = "$name" ] && break
	done
	config_fields "$c"
	[ -f "$BUILD/bzImage-$profile" ] || die "no $BUILD/bzImage-$profile; run 'make kernel PROFILE=$profile'"
	out=$BUILD/check/matrix-$name
	rm -rf "$out"
	printf '# matrix %s: %s kernel, %s vCPUs%s%s%s%s%s; scenarios %s\n' "$name" "$profile" "$vcpus" \
		"${nvme_opts:+, nvme $nvme_opts}" "${latency:+, latency-ns=$latency}" \
		"${error_sector:+, data reads of sector $error_sector fail}" "${zoned:+, zoned data drive}" \
		"${append:+, $append}" "$scenarios"
	t0=$SECONDS
	rc=0
	# shellcheck disable=SC2086
	VCPUS=$vcpus NVME_OPTS=$nvme_opts NULL_LATENCY_NS=${latency:-0} DATA_ERROR_SECTOR=$error_sector DATA_ZONED=${zoned:-0} \
		VM_STREAM=progress \
		"$TOP/scripts/vm.sh" -p "$profile" -t "$timeout_s" -o "$out" -a "$append" -- \
		"${runner#"$TOP"/}" $scenarios || rc=$?
	secs=$((SECONDS - t0))
	[ ! -f "$out/guest.log" ] || tap_import "matrix $name: " <"$out/guest.log"
	tap_result "matrix $name: scenarios $scenarios ran to the end, ${secs} s (serial log: $out/serial.log)" "$rc" "exit $rc"
	rc=0
	if [ -f "$out/serial.log" ]; then
		"$TOP/scripts/dmesg-scan.sh" "$out/serial.log" || rc=1
	else
		rc=1
	fi
	tap_result "matrix $name: no WARN, BUG, lockdep, hung task, stall or 'nobody cared' in the kernel log" "$rc"
done
tap_summary
