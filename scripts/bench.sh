#!/bin/bash
# make bench: build the bench kernel, run the fio matrix in one boot (plus an idle=poll boot),
# and write results/<date-time>/ with results.json, report.md and latency.png.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
validate_knobs

profile=${BENCH:-full}
check_choice BENCH "$profile" quick full
check_uint VCPUS "${VCPUS:=2}" 1 8
export VCPUS
# A bound on each boot: the full matrix takes about 25 minutes under TCG.
if [ "$profile" = quick ]; then : "${VM_TIMEOUT:=1800}"; else : "${VM_TIMEOUT:=5400}"; fi
export VM_TIMEOUT

"$TOP/scripts/deps.sh" bench
"$TOP/scripts/tree.sh"
"$TOP/scripts/kernel.sh" bench

stamp=$(date +%Y%m%d-%H%M%S)
results=$TOP/results/$stamp
mkdir -p "$results"
log "results: $results"

boot() {
	local name=$1 append=$2 rc=0
	log "boot '$name' ($profile profile)"
	"$TOP/scripts/vm.sh" -p bench -o "$results" -a "$append" -- \
		"guest/bench.sh $results $profile $name" || rc=$?
	for f in serial.log qemu.log guest.log dmesg.txt command rc accel; do
		[ ! -f "$results/$f" ] || mv "$results/$f" "$results/$name-$f"
	done
	[ "$rc" -eq 0 ] || die "the '$name' boot failed (exit $rc); see $results/$name-serial.log and $results/$name-guest.log"
	"$TOP/scripts/dmesg-scan.sh" "$results/$name-serial.log" ||
		die "the kernel reported problems in the '$name' boot; see $results/$name-serial.log"
}

boot main ""
boot idlepoll "idle=poll"

qemu=$(qemu-system-x86_64 --version | head -1)
accel=$(cat "$results/main-accel")
python3 - "$results/meta.json" <<PY
import json, sys
json.dump({
    "kernel_base": "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION",
    "kernel_series": "$(git -C "$TREE" describe --always --tags) ($(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD") patches)",
    "kernel_config": "configs/base.config + configs/bench.config",
    "qemu": "$qemu",
    "accel": "$accel",
    "vcpus": $VCPUS,
    "mem_mb": ${MEM_MB:-2048},
    "backend": "${BACKEND:-null}",
    "profile": "$profile",
    "commands": ["make bench BENCH=$profile", "guest/bench.sh OUTDIR $profile main", "guest/bench.sh OUTDIR $profile idlepoll (boot with idle=poll)"],
}, open(sys.argv[1], "w"), indent=2)
PY
python3 "$TOP/report/report.py" "$results"
ln -sfn "$stamp" "$TOP/results/latest"
cat "$results/report.md"
log "results in $TOP/results/latest/ (results.json, report.md, latency.png)"
