#!/bin/bash
# Guest-side benchmark driver for iowait_poll. Runs inside the test VM.
#
#   [BENCH_ROWS="workload ..."] guest/bench.sh OUTDIR SIZE BOOT
#     SIZE: quick (3 reps x 3 s) | full (12 reps x 3 s)
#     BENCH_ROWS: run only these workloads of the matrix (default: all)
#     BENCH_HOST_WAIT_S: before each run, wait up to this many seconds (default 0:
#                 never) while the host speed probe's newest sample is slow
#     BENCH_HOST_RETRIES: after each round of reps, run again up to this many times
#                 (default 0: never) the runs with a slow probe sample beside them; the
#                 runs replaced stay in RAWDIR as <name>.json.slowN
#     BENCH_HOST_EXTRA_S: the seconds the two above may spend in all (default 3600);
#                 once spent, the guest neither waits nor runs again
#     BOOT:    main     -> every row, results in OUTDIR/raw/, OUTDIR/env.json
#              idlepoll -> IRQ-path rows only (boot with idle=poll), results in
#                          OUTDIR/raw-idlepoll/, OUTDIR/env-idlepoll.json
#              stock    -> every workload on stock 6.12 (the kernel without the series),
#                          results in OUTDIR/raw-stock/, OUTDIR/env-stock.json
#              offpath  -> the series with its knobs off: the modes that stock also runs
#                          (off, iopoll, hipri), results in OUTDIR/raw-offpath/
#              BOOT-N   -> (stock and offpath) the Nth of alternated boots of that kind:
#                          OUTDIR/raw-BOOT-N/, OUTDIR/env-BOOT-N.json (make bench BENCH_AB=N)
#
# Each run writes RAWDIR/<workload>__<mode>__r<rep>.json (counters before/after,
# wall time, the queue knobs of the run, extra results) and, for fio rows,
# <same name>.fio.json (fio json+).
#
# Modes (each run sets all three knobs of the disk, see mode_knobs):
#   off         the IRQ path (all knobs off)
#   on          iowait_poll=1, spinning
#   irqsuppress iowait_poll=1 with the queue's vector masked while a task polls
#   napi        iowait_poll_submit_reap=1 only (a CQ pass on each submission, the
#               interrupt moderated through irq_poll)
#   iopoll      knobs off, fio uses io_uring with hipri (a poll queue)
#   idlepoll    knobs off, second boot with idle=poll
#   stock       stock 6.12, the IRQ path (no knobs exist)
#   stock_iopoll stock 6.12, fio uses io_uring with hipri
#   hipri       knobs off, fio uses pvsync2 with hipri=1 (preadv2 RWF_HIPRI)
#   stock_hipri stock 6.12, the same fio command (6.12 ignores RWF_HIPRI on sync I/O)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench_budget.sh
. "$(dirname "$0")/bench_budget.sh"

die() {
	echo "bench.sh: error: $*" >&2
	exit 1
}

[ $# -eq 3 ] || die "usage: $0 OUTDIR quick|full main|idlepoll|stock|offpath[-N]"
OUTDIR=$1 SIZE=$2 BOOT=$3
# BOOT-N: the Nth boot of a kind in alternated boots; the runs say the kind.
[[ $BOOT =~ ^(main|idlepoll|stock|offpath)(-[1-9][0-9]?)?$ ]] ||
	die "BOOT=$BOOT is not valid; use main, idlepoll, stock or offpath, optionally with -N (1-99)"
KIND=${BASH_REMATCH[1]}
[ -z "${BASH_REMATCH[2]}" ] || [[ $KIND == stock || $KIND == offpath ]] ||
	die "BOOT=$BOOT: only stock and offpath boots take a number"

case $SIZE in
quick) REPS=3 RUNTIME=3 NFILES=5000 ;;
full) REPS=12 RUNTIME=3 NFILES=20000 ;;
*) die "SIZE=$SIZE is not valid; use quick or full" ;;
esac
case $BOOT in
main) RAWDIR=$OUTDIR/raw ENVFILE=$OUTDIR/env.json ;;
*) RAWDIR=$OUTDIR/raw-$BOOT ENVFILE=$OUTDIR/env-$BOOT.json ;;
esac
# Stock 6.12 has none of the feature's files: no knob is set or read there.
KNOBLESS=0
[ "$KIND" != stock ] || KNOBLESS=1

RAMP=1
HOST_WAIT_S=${BENCH_HOST_WAIT_S:-0}
if ! [[ $HOST_WAIT_S =~ ^(0|[1-9][0-9]{0,2})$ ]] || [ "$HOST_WAIT_S" -gt 600 ]; then
	die "BENCH_HOST_WAIT_S=$HOST_WAIT_S is not valid; use 0 to 600 seconds"
fi
HOST_RETRIES=${BENCH_HOST_RETRIES:-0}
[[ $HOST_RETRIES =~ ^[0-9]$ ]] || die "BENCH_HOST_RETRIES=$HOST_RETRIES is not valid; use 0 to 9"
HOST_EXTRA_S=${BENCH_HOST_EXTRA_S:-3600}
[[ $HOST_EXTRA_S =~ ^(0|[1-9][0-9]{0,5})$ ]] ||
	die "BENCH_HOST_EXTRA_S=$HOST_EXTRA_S is not valid; use 0 to 999999 seconds"
extra_spent=0
HOST_SPEED=$(dirname "$0")/../scripts/host_speed.py
EXT4_DIR=/tmp/iopoll-ext4
CLK_TCK=$(getconf CLK_TCK)

# ---- devices ---------------------------------------------------------------

# find_disk SERIAL: print the disk name, nvme*n1 (its controller's serial) or
# vd* (virtio-blk), that has SERIAL.
find_disk() {
	local want=$1 dev serial f
	for dev in /sys/block/nvme*n1 /sys/block/vd*; do
		f=$dev/device/serial
		[[ $dev == */vd* ]] && f=$dev/serial
		[ -r "$f" ] || continue
		read -r serial <"$f" || true
		if [ "$serial" = "$want" ]; then
			basename "$dev"
			return 0
		fi
	done
	return 1
}

# The per-queue knobs that every run sets, in the order set_knobs writes them.
KNOBS=(iowait_poll iowait_poll_irq_suppress iowait_poll_submit_reap)

# check_disk DISK: the sysfs and debugfs files of the feature must exist.
check_disk() {
	local disk=$1 f knob need
	if [ "$KNOBLESS" -eq 1 ]; then
		f=/sys/block/$disk/queue/iowait_poll
		[ ! -e "$f" ] || die "$f exists: the stock boot runs a kernel with the series"
		return 0
	fi
	for f in /sys/block/"$disk"/queue/iowait_poll \
		/sys/block/"$disk"/queue/iowait_poll_budget_us \
		/sys/kernel/debug/block/"$disk"/iowait_poll_stats; do
		[ -e "$f" ] || die "$f is missing: is the iopoll kernel booted (and debugfs mounted)?"
	done
	# Every run sets all three knobs, so a kernel without one can run no mode.
	for knob in "${KNOBS[@]}"; do
		f=/sys/block/$disk/queue/$knob
		[ -e "$f" ] && continue
		case $knob in
		iowait_poll_irq_suppress) need="mode irqsuppress" ;;
		iowait_poll_submit_reap) need="mode napi" ;;
		*) need="every mode" ;;
		esac
		die "$f is missing: this kernel lacks the $knob knob ($need needs it, and every run sets it)"
	done
}

MAIN=$(find_disk iopoll-main) || die "no NVMe disk with serial iopoll-main (looked at /sys/block/nvme*n1/device/serial)"
check_disk "$MAIN"
DATA=
if [ "$KIND" != idlepoll ]; then
	DATA=$(find_disk iopoll-data) || die "no NVMe disk with serial iopoll-data (needed by the metadata_walk row)"
	check_disk "$DATA"
fi
# The virtio-blk disk of the virtio_* rows, on null-co like MAIN.
VMAIN=
if [ "$KIND" != idlepoll ]; then
	VMAIN=$(find_disk iopoll-vmain) || die "no virtio-blk disk with serial iopoll-vmain (looked at /sys/block/vd*/serial)"
	check_disk "$VMAIN"
fi
command -v fio >/dev/null || die "fio is not installed"

# mode_knobs MODE: the values of KNOBS for MODE, in KNOBS order.
mode_knobs() {
	case $1 in
	off | iopoll | idlepoll | stock | stock_iopoll | hipri | stock_hipri) echo 0 0 0 ;;
	on) echo 1 0 0 ;;
	irqsuppress) echo 1 1 0 ;;
	napi) echo 0 0 1 ;;
	*) die "mode $1 has no knob settings" ;;
	esac
}

# read_knob DISK KNOB: the knob's value (0 on stock 6.12, which has no knob).
read_knob() {
	local value
	if [ "$KNOBLESS" -eq 1 ]; then
		echo 0
		return 0
	fi
	read -r value <"/sys/block/$1/queue/$2"
	echo "$value"
}

# write_knob DISK KNOB VALUE
write_knob() {
	echo "$3" >"/sys/block/$1/queue/$2" || die "cannot write '$3' to /sys/block/$1/queue/$2"
}

# Everything off (the kernel defaults), as KNOB=VALUE in write order:
# the features first, iowait_poll last, the reverse of set_knobs.
RESET_KNOBS=(iowait_poll_irq_suppress=0 iowait_poll_submit_reap=0 iowait_poll=0)

# set_knobs DISK MODE: reset, then set KNOBS for MODE (iowait_poll before IRQ
# suppression) and check that they read back.
set_knobs() {
	local disk=$1 mode=$2 values kv i got
	local -a want
	values=$(mode_knobs "$mode")
	[ "$KNOBLESS" -eq 0 ] || return 0
	read -ra want <<<"$values"
	for kv in "${RESET_KNOBS[@]}"; do
		write_knob "$disk" "${kv%%=*}" "${kv#*=}"
	done
	for i in "${!KNOBS[@]}"; do
		write_knob "$disk" "${KNOBS[i]}" "${want[i]}"
	done
	for i in "${!KNOBS[@]}"; do
		got=$(read_knob "$disk" "${KNOBS[i]}")
		[ "$got" = "${want[i]}" ] ||
			die "/sys/block/$disk/queue/${KNOBS[i]} reads '$got' after writing '${want[i]}' (mode $mode)"
	done
}

# restore_poll: on exit, every knob of both disks back to the defaults, as far as possible.
restore_poll() {
	local disk kv
	[ "$KNOBLESS" -eq 1 ] && DATA="" MAIN=""
	for disk in $MAIN $DATA $VMAIN; do
		for kv in "${RESET_KNOBS[@]}"; do
			echo "${kv#*=}" >"/sys/block/$disk/queue/${kv%%=*}" 2>/dev/null || true
		done
	done
	if mountpoint -q "$EXT4_DIR"; then umount "$EXT4_DIR" || true; fi
}
trap restore_poll EXIT

# ---- JSON helpers ----------------------------------------------------------

# json_str TEXT: TEXT as a JSON string.
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/ }
	s=${s//$'\n'/\\n}
	printf '"%s"' "$s"
}

# knobs_json DISK: the disk's KNOBS as a JSON object, numbers as numbers.
knobs_json() {
	local knob value out=''
	if [ "$KNOBLESS" -eq 1 ]; then
		printf '{}'
		return 0
	fi
	for knob in "${KNOBS[@]}"; do
		value=$(read_knob "$1" "$knob")
		[[ $value =~ ^[0-9]+$ ]] || value=$(json_str "$value")
		out+="${out:+, }\"$knob\": $value"
	done
	printf '{%s}' "$out"
}

# irq_regex DISK: an ERE for the /proc/interrupts names of DISK's queue vectors:
# nvme0q1 (nvme0 is the controller), virtio2-req.0 (virtio2 is the device).
irq_regex() {
	local dev
	dev=$(basename "$(readlink -f "/sys/block/$1/device")")
	case $1 in
	vd*) echo "(^|[ ,])${dev}-req[.][0-9]+(,|\$)" ;;
	*) echo "(^|[ ,])${dev}q[0-9]+(,|\$)" ;;
	esac
}

# snapshot DISK: print a JSON object with every counter that a run reports.
snapshot() {
	local disk=$1 re stats irqs irq_lines cpu ctxt diskstat
	re=$(irq_regex "$disk")
	# "name value" lines -> "name": value
	stats=
	if [ "$KNOBLESS" -eq 0 ]; then
		stats=$(awk 'NF == 2 { printf "%s\"%s\": %s", (n++ ? ", " : ""), $1, $2 }' \
			"/sys/kernel/debug/block/$disk/iowait_poll_stats")
	fi
	# Sum the per-CPU columns of every line that names one of the disk's queues.
	irqs=$(awk -v re="$re" '
		NR == 1 { ncpu = NF; next }
		$0 ~ re { for (i = 2; i <= ncpu + 1; i++) n += $i }
		END { print n + 0 }' /proc/interrupts)
	irq_lines=$(grep -E "$re" /proc/interrupts || true)
	cpu=$(awk '$1 == "cpu" { $1 = ""; sub(/^ /, ""); gsub(/ /, ", "); print }' /proc/stat)
	ctxt=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
	diskstat=$(awk '{ $1 = $1; gsub(/ /, ", "); print }' "/sys/block/$disk/stat")
	printf '{"t_ns": %s, "poll_stats": {%s}, "irqs": %s, "irq_lines": %s, ' \
		"$(date +%s%N)" "$stats" "$irqs" "$(json_str "$irq_lines")"
	printf '"ctxt": %s, "cpu_jiffies": [%s], "diskstat": [%s]}' "$ctxt" "$cpu" "$diskstat"
}

# ---- runs ------------------------------------------------------------------

# fio_args WORKLOAD MODE DISK: print one fio argument per line.
fio_args() {
	local workload=$1 mode=$2 disk=$3
	printf '%s\n' --name=x "--filename=/dev/$disk" --time_based "--runtime=$RUNTIME" \
		"--ramp_time=$RAMP" --size=4G --randrepeat=0 --norandommap --group_reporting \
		--percentile_list=50:99:99.9 --bs=4k
	case $workload in
	psync_qd1_randread | corunner)
		case $mode in
		iopoll | stock_iopoll) printf '%s\n' --ioengine=io_uring --hipri=1 --iodepth=1 --direct=1 --rw=randread ;;
		hipri | stock_hipri) printf '%s\n' --ioengine=pvsync2 --hipri=1 --iodepth=1 --direct=1 --rw=randread ;;
		*) printf '%s\n' --ioengine=psync --iodepth=1 --direct=1 --rw=randread ;;
		esac
		if [ "$workload" = corunner ]; then echo --cpus_allowed=0; fi
		;;
	virtio_psync_qd1_randread) printf '%s\n' --ioengine=psync --iodepth=1 --direct=1 --rw=randread ;;
	psync_qd1_randwrite) printf '%s\n' --ioengine=psync --iodepth=1 --direct=1 --rw=randwrite ;;
	buffered_randread | virtio_buffered_randread) printf '%s\n' --ioengine=psync --iodepth=1 --direct=0 --rw=randread --fadvise_hint=random ;;
	libaio_qd32_randread) printf '%s\n' --ioengine=libaio --iodepth=32 --direct=1 --rw=randread ;;
	libaio_qd128_randread) printf '%s\n' --ioengine=libaio --iodepth=128 --direct=1 --rw=randread ;;
	uring_qd32_randread) printf '%s\n' --ioengine=io_uring --iodepth=32 --direct=1 --rw=randread ;;
	uring_qd128_randread) printf '%s\n' --ioengine=io_uring --iodepth=128 --direct=1 --rw=randread ;;
	*) die "no fio arguments for $workload" ;;
	esac
}

# corunner SECONDS: a CPU-bound loop pinned to CPU 0; prints "iterations seconds".
corunner() {
	taskset -c 0 python3 -c '
import sys, time
end = time.monotonic() + float(sys.argv[1])
start = time.monotonic()
n = 0
while time.monotonic() < end:
    for _ in range(1000):
        pass
    n += 1000
print(n, time.monotonic() - start)
' "$1"
}

# setup_ext4: a fresh ext4 on the data disk with NFILES small files in nested dirs.
setup_ext4() {
	echo "bench.sh: creating $NFILES files on /dev/$DATA" >&2
	make_ext4_tree "$DATA" "$EXT4_DIR" "$NFILES"
}

# metadata_walks: walk the tree cold, again and again for RUNTIME seconds.
# Prints the seconds of each walk, comma separated.
metadata_walks() {
	local deadline t0 t1 times=''
	deadline=$(($(date +%s%N) + RUNTIME * 1000000000))
	while :; do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		t0=$(date +%s%N)
		find "$EXT4_DIR/tree" -printf '%s\n' >/dev/null
		t1=$(date +%s%N)
		times+="${times:+, }$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f", d / 1e9 }')"
		[ "$t1" -lt "$deadline" ] || break
	done
	echo "$times"
}

# budget_us DISK: the disk's poll budget, null on stock 6.12.
budget_us() {
	if [ "$KNOBLESS" -eq 1 ]; then
		echo null
	else
		cat "/sys/block/$1/queue/iowait_poll_budget_us"
	fi
}

# slow_runs MODE...: of this round's runs of $workload and $rep, the modes whose run had a
# slow host speed probe sample beside it.
slow_runs() {
	local mode slow
	local -a files=()
	for mode in "$@"; do files+=("$RAWDIR/${workload}__${mode}__r${rep}.json"); done
	slow=$(python3 -I -S "$HOST_SPEED" --slow-runs "$OUTDIR/host-load.tsv" "${files[@]}") ||
		die "host_speed.py --slow-runs failed"
	for mode in "$@"; do
		[[ $'\n'$slow$'\n' != *$'\n'$RAWDIR/${workload}__${mode}__r${rep}.json$'\n'* ]] || echo "$mode"
	done
}

# run_again TRY MODE: keep MODE's run of this round as <name>.json.slowTRY and run it again.
run_again() {
	local base=${workload}__${2}__r${rep} waited started=$SECONDS
	mv "$RAWDIR/$base.json" "$RAWDIR/$base.json.slow$1"
	if [ -f "$RAWDIR/$base.fio.json" ]; then
		mv "$RAWDIR/$base.fio.json" "$RAWDIR/$base.fio.json.slow$1"
		sed -i "s/\"fio_file\": \"$base.fio.json\"/\"fio_file\": \"$base.fio.json.slow$1\"/" \
			"$RAWDIR/$base.json.slow$1"
	fi
	echo "bench.sh: $workload $2 rep $rep ran beside a slow host speed probe sample; run again ($1/$HOST_RETRIES)" >&2
	waited=$(host_wait)
	run_one "$workload" "$2" "$rep" "$waited" "$1"
	spend "$started"
}

# run_one WORKLOAD MODE REP WAITED [TRY]: one measured run, saved under RAWDIR; WAITED is
# the seconds host_wait waited before it, TRY how many runs of it were slow before (0).
run_one() {
	local workload=$1 mode=$2 rep=$3 waited=$4 try=${5:-0} disk=$MAIN name knobs poll before after extra='' fio_file=''
	local -a args
	name=${workload}__${mode}__r${rep}
	[ "$workload" = metadata_walk ] && disk=$DATA
	[[ $workload == virtio_* ]] && disk=$VMAIN
	set_knobs "$disk" "$mode"
	knobs=$(knobs_json "$disk")
	poll=$(read_knob "$disk" iowait_poll)

	if [ "$workload" != metadata_walk ]; then
		mapfile -t args < <(fio_args "$workload" "$mode" "$disk")
		fio_file=$name.fio.json
	fi
	if [[ $workload == *buffered_randread ]]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi

	before=$(snapshot "$disk")
	case $workload in
	metadata_walk)
		extra=", \"walk_s\": [$(metadata_walks)]"
		;;
	corunner)
		local co_file=/tmp/iopoll-corunner.$$ iters secs
		corunner $((RUNTIME + RAMP)) >"$co_file" &
		fio "${args[@]}" --output-format=json+ "--output=$RAWDIR/$fio_file"
		wait $!
		read -r iters secs <"$co_file"
		rm -f "$co_file"
		extra=", \"corunner_iterations\": $iters, \"corunner_s\": $secs"
		;;
	*)
		fio "${args[@]}" --output-format=json+ "--output=$RAWDIR/$fio_file"
		;;
	esac
	after=$(snapshot "$disk")
	set_knobs "$disk" off

	{
		printf '{"workload": "%s", "mode": "%s", "rep": %s, "boot": "%s", "bench_size": "%s",\n' \
			"$workload" "$mode" "$rep" "$KIND" "$SIZE"
		printf ' "disk": "%s", "poll": %s, "knobs": %s,\n' "$disk" "$poll" "$knobs"
		printf ' "budget_us": %s, "clk_tck": %s, "runtime_s": %s, "ramp_s": %s, "host_wait_s": %s,\n' \
			"$(budget_us "$disk")" "$CLK_TCK" "$RUNTIME" "$RAMP" "$waited"
		printf ' "host_retries": %s,\n' "$try"
		if [ -n "$fio_file" ]; then
			printf ' "fio_file": "%s", "fio_args": %s,\n' "$fio_file" "$(json_str "${args[*]}")"
		fi
		printf ' "before": %s,\n "after": %s%s}\n' "$before" "$after" "$extra"
	} >"$RAWDIR/$name.json"
}

write_env() {
	local dev serials=''
	for dev in /sys/block/nvme*n1; do
		[ -e "$dev" ] || continue
		serials+="${serials:+, }{\"disk\": \"$(basename "$dev")\", \"serial\": $(json_str "$(xargs <"$dev/device/serial")"), \"model\": $(json_str "$(xargs <"$dev/device/model")")}"
	done
	{
		printf '{"boot": "%s", "bench_size": "%s", "reps": %s, "runtime_s": %s,\n' "$BOOT" "$SIZE" "$REPS" "$RUNTIME"
		printf ' "uname_r": %s, "nproc": %s, "cmdline": %s,\n' \
			"$(json_str "$(uname -r)")" "$(nproc)" "$(json_str "$(cat /proc/cmdline)")"
		printf ' "fio_version": %s, "clk_tck": %s, "main_disk": "%s", "data_disk": "%s", "virtio_disk": "%s",\n' \
			"$(json_str "$(fio --version)")" "$CLK_TCK" "$MAIN" "$DATA" "$VMAIN"
		printf ' "budget_us": %s, "knobs_at_start": %s, "devices": [%s]}\n' \
			"$(budget_us "$MAIN")" "$(knobs_json "$MAIN")" "$serials"
	} >"$ENVFILE"
}

# ---- matrix ----------------------------------------------------------------

# "workload:mode mode ..." in run order.
case $KIND in
main)
	MATRIX=(
		"psync_qd1_randread:off on irqsuppress napi iopoll hipri"
		"psync_qd1_randwrite:off on"
		"buffered_randread:off on irqsuppress"
		"metadata_walk:off on"
		"libaio_qd32_randread:off on napi"
		"libaio_qd128_randread:off napi"
		"uring_qd32_randread:off napi"
		"uring_qd128_randread:off napi"
		"corunner:off on"
		"virtio_psync_qd1_randread:off on irqsuppress"
		"virtio_buffered_randread:off on"
	)
	;;
idlepoll)
	MATRIX=(
		"psync_qd1_randread:idlepoll"
		"buffered_randread:idlepoll"
	)
	;;
*)
	# What stock 6.12 can run too; there the modes are stock, stock_iopoll, stock_hipri.
	MATRIX=(
		"psync_qd1_randread:off iopoll hipri"
		"psync_qd1_randwrite:off"
		"buffered_randread:off"
		"metadata_walk:off"
		"libaio_qd32_randread:off"
		"libaio_qd128_randread:off"
		"uring_qd32_randread:off"
		"uring_qd128_randread:off"
		"corunner:off"
		"virtio_psync_qd1_randread:off"
		"virtio_buffered_randread:off"
	)
	if [ "$KIND" = stock ]; then
		for i in "${!MATRIX[@]}"; do
			read -ra modes <<<"${MATRIX[i]#*:}"
			modes=("${modes[@]/#/stock_}")
			modes=("${modes[@]/#stock_off/stock}")
			MATRIX[i]="${MATRIX[i]%%:*}:${modes[*]}"
		done
	fi
	;;
esac

# BENCH_ROWS: keep only the rows of the workloads it names (scripts/bench.sh
# checks the names).
if [ -n "${BENCH_ROWS:-}" ]; then
	read -ra wanted <<<"${BENCH_ROWS//,/ }"
	kept=()
	for row in "${MATRIX[@]}"; do
		[[ " ${wanted[*]} " == *" ${row%%:*} "* ]] && kept+=("$row")
	done
	MATRIX=("${kept[@]}")
	echo "bench.sh: BENCH_ROWS: ${#MATRIX[@]} row(s) of this boot" >&2
fi

mkdir -p "$RAWDIR"
write_env

total=0
for row in "${MATRIX[@]}"; do
	read -ra modes <<<"${row#*:}"
	for mode in "${modes[@]}"; do mode_knobs "$mode" >/dev/null; done
	total=$((total + REPS * ${#modes[@]}))
done

run=0
per_run=$((RUNTIME + RAMP + 2))
for row in "${MATRIX[@]}"; do
	workload=${row%%:*}
	read -ra modes <<<"${row#*:}"
	[ "$workload" = metadata_walk ] && setup_ext4
	for ((rep = 1; rep <= REPS; rep++)); do
		for mode in "${modes[@]}"; do
			run=$((run + 1))
			echo "[row $run/$total] $workload $mode rep $rep/$REPS, ~$(((total - run + 1) * per_run))s left" >&2
			started=$SECONDS
			waited=0.0
			if extra_left; then waited=$(host_wait); fi
			spend "$started"
			[ "$waited" = 0.0 ] ||
				echo "bench.sh: waited $waited s for the host speed probe to read fast" >&2
			run_one "$workload" "$mode" "$rep" "$waited"
		done
		again=("${modes[@]}")
		for ((try = 1; try <= HOST_RETRIES; try++)); do
			if [ ! -r "$OUTDIR/host-load.tsv" ] || ! extra_left; then break; fi
			started=$SECONDS
			slow=$(slow_runs "${again[@]}")
			spend "$started"
			[ -n "$slow" ] || break
			mapfile -t again <<<"$slow"
			for mode in "${again[@]}"; do
				if ! extra_left; then break 2; fi
				run_again "$try" "$mode"
			done
		done
	done
	if [ "$workload" = metadata_walk ]; then umount "$EXT4_DIR"; fi
done
echo "bench.sh: done, $total runs in $RAWDIR" >&2
