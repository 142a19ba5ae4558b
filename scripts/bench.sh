#!/bin/bash
# make bench: build the bench kernel and stock 6.12 with the same config, run the fio matrix
# in one boot, the IRQ path in an idle=poll boot and every workload on stock 6.12, and
# write results/<date-time>/ with results.json, report.md and latency.png.
# BENCH_AB=N: instead, N pairs of alternated boots, the series with its knobs off, then
# stock 6.12, each running the modes both have; the off ÷ stock intervals then resample
# boots as well as reps, so they hold the boot-to-boot noise.
# BENCH_HOST_WAIT_S=S (default 0: never): before each rep the guest waits up to S seconds
# while the host speed probe's newest sample is slow (guest/bench.sh).
# BENCH_HOST_RETRIES=N (default 0: never): after each round of reps the guest runs again,
# up to N times, the runs of the round that had a slow probe sample beside them.
# With either on, each boot's default bound (VM_TIMEOUT) doubles, and waits and runs again
# stop once they have taken what it has beyond the usual bound.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
validate_knobs

size=${BENCH:-full}
check_choice BENCH "$size" quick full
# BENCH_ROWS="workload ...": run only these rows (the report's WORKLOADS).
rows=${BENCH_ROWS:-}
if [ -n "$rows" ]; then
	unknown=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from report import WORKLOADS
print(" ".join(w for w in sys.argv[2].replace(",", " ").split() if w not in WORKLOADS))' \
		"$TOP/report" "$rows")
	[ -z "$unknown" ] ||
		die "BENCH_ROWS names '$unknown'; the workloads are those of WORKLOADS in report/report.py"
fi
guest_env=""
ab=${BENCH_AB:-0}
[[ $ab =~ ^[02-9]$ ]] || die "BENCH_AB=$ab is not valid; use 0 (one boot of each kind) or 2 to 9 pairs of boots"
[ -z "$rows" ] || guest_env="BENCH_ROWS=\"${rows//,/ }\" "
check_uint BENCH_HOST_WAIT_S "${BENCH_HOST_WAIT_S:=0}" 0 600
guest_env+="BENCH_HOST_WAIT_S=$BENCH_HOST_WAIT_S "
check_uint BENCH_HOST_RETRIES "${BENCH_HOST_RETRIES:=0}" 0 9
guest_env+="BENCH_HOST_RETRIES=$BENCH_HOST_RETRIES "
check_uint VCPUS "${VCPUS:=2}" 1 8
export VCPUS
# A bound on each boot: the full matrix takes about 25 minutes under TCG. Waits and runs
# again get what VM_TIMEOUT has beyond that bound (their default doubles it), no more.
if [ "$size" = quick ]; then vm_timeout=1800; else vm_timeout=5400; fi
host_extra_s=0
if [ $((BENCH_HOST_WAIT_S + BENCH_HOST_RETRIES)) -gt 0 ]; then
	: "${VM_TIMEOUT:=$((2 * vm_timeout))}"
	host_extra_s=$((VM_TIMEOUT > vm_timeout ? VM_TIMEOUT - vm_timeout : 0))
fi
: "${VM_TIMEOUT:=$vm_timeout}"
export VM_TIMEOUT
guest_env+="BENCH_HOST_EXTRA_S=$host_extra_s "

build_bench_kernels

stamp=$(date +%Y%m%d-%H%M%S)
results=$TOP/results/$stamp
mkdir -p "$results"
log "results: $results"

boot() {
	local name=$1 kernel=$2 append=$3 rc=0
	stage_begin "boot $name ($size matrix)" "bench-boot-$name-$size"
	"$TOP/scripts/vm.sh" -p "$kernel" -o "$results" -a "$append" -- \
		"${guest_env}guest/bench.sh $results $size $name" || rc=$?
	for f in serial.log qemu.log guest.log dmesg.txt command rc accel host-load.tsv; do
		[ ! -f "$results/$f" ] || mv "$results/$f" "$results/$name-$f"
	done
	[ "$rc" -eq 0 ] || die "the '$name' boot failed (exit $rc); see $results/$name-serial.log and $results/$name-guest.log"
	"$TOP/scripts/dmesg-scan.sh" "$results/$name-serial.log" ||
		die "the kernel reported problems in the '$name' boot; see $results/$name-serial.log"
	stage_done
}

if [ "$ab" = 0 ]; then
	boot main bench ""
	boot idlepoll bench "idle=poll"
	boot stock stock ""
	boots=("guest/bench.sh OUTDIR $size main"
		"guest/bench.sh OUTDIR $size idlepoll (boot with idle=poll)"
		"guest/bench.sh OUTDIR $size stock (stock 6.12, the bench config)")
	accel_file=main-accel
else
	for ((i = 1; i <= ab; i++)); do
		boot "offpath-$i" bench ""
		boot "stock-$i" stock ""
	done
	boots=("guest/bench.sh OUTDIR $size offpath-N, then guest/bench.sh OUTDIR $size stock-N (stock 6.12), for N in 1..$ab")
	accel_file=offpath-1-accel
fi

qemu=$(qemu-system-x86_64 --version)
python3 - "$results/meta.json" "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION" \
	"$(git -C "$TREE" describe --always --tags) ($(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD") patches)" \
	"${qemu%%$'\n'*}" "$(cat "$results/$accel_file")" "$VCPUS" "${MEM_MB:-2048}" "${BACKEND:-null}" "$size" \
	"$(nproc)" "$rows" "$ab" "$BENCH_HOST_WAIT_S" "$BENCH_HOST_RETRIES" "$host_extra_s" \
	"${boots[@]}" <<'PY'
import json
import sys

(path, base, series, qemu, accel, vcpus, mem_mb, backend, bench_size, host_cpus, rows, ab,
 host_wait_s, host_retries, host_extra_s) = sys.argv[1:16]
boots = sys.argv[16:]
make = (f"make bench BENCH={bench_size}" + (f" BENCH_ROWS='{rows}'" if rows else "")
        + (f" BENCH_AB={ab}" if ab != "0" else "")
        + (f" BENCH_HOST_WAIT_S={host_wait_s}" if host_wait_s != "0" else "")
        + (f" BENCH_HOST_RETRIES={host_retries}" if host_retries != "0" else ""))
json.dump({
    "kernel_base": base,
    "kernel_series": series,
    "kernel_config": "configs/base.config + configs/bench.config (stock boot: the same, on the base)",
    "qemu": qemu,
    "accel": accel,
    "vcpus": int(vcpus),
    "mem_mb": int(mem_mb),
    "backend": backend,
    "bench_size": bench_size,
    "host_cpus": int(host_cpus),
    "bench_rows": rows.replace(",", " ").split() or "all",
    "alternated_boot_pairs": int(ab),
    "host_wait_s": int(host_wait_s),
    "host_retries": int(host_retries),
    "host_extra_s": int(host_extra_s),
    "commands": [make] + boots,
}, open(path, "w"), indent=2)
PY
python3 "$TOP/report/report.py" "$results"
ln -sfn "$stamp" "$TOP/results/latest"
cat "$results/report.md"
log "results in $TOP/results/latest/ (results.json, report.md, latency.png)"
