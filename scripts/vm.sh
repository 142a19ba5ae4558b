#!/bin/bash
# Boot a built kernel under QEMU with NVMe and virtio-blk drives and run one command in the guest.
#
# usage: vm.sh [-p debug|bench|stock|preempt-kasan] [-o OUTDIR] [-t SECONDS] [-a EXTRA_APPEND] -- COMMAND...
# Knobs (environment): ACCEL=auto|kvm|tcg VCPUS=1..8 MEM_MB=512..16384 BACKEND=null|file
#   VM_STREAM=all|progress|none: the guest's output on the terminal (progress: TAP lines only)
#   NVME_OPTS=prop=value,...: more properties for both NVMe controllers (msix_qsize=1)
#   NULL_LATENCY_NS=N: the null backend (NVMe main, virtio-blk vmain) completes each I/O after N ns
#   DATA_ERROR_SECTOR=N: reads of 512-byte sector N of the data drive fail with EIO (blkdebug)
#   DATA_ZONED=1: the data drive is a zoned namespace (ZNS, 128 MiB zones), its zones empty
#   QEMU_TRACE='event ...': QEMU trace events (pci_nvme_*) logged with host time stamps to
#     OUTDIR/qemu-trace.log
#   QEMU_PLUGIN=FILE.so: load this TCG plugin, its output to OUTDIR/qemu-plugin.log; the vCPUs
#     take turns on one host thread (tcg,thread=single) so that what it counts is exact
#   QEMU_PLUGIN_ARGS=name=value,...: the plugin's arguments
# The guest runs COMMAND with bash as root in this checkout; OUTDIR is writable there.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '3,6s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

profile=${PROFILE:-debug}
outdir=""
timeout_s=${VM_TIMEOUT:-900}
extra_append=""
while getopts "p:o:t:a:h" opt; do
	case $opt in
	p) profile=$OPTARG ;;
	o) outdir=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	a) extra_append=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "$#" -gt 0 ] || usage

accel=${ACCEL:-auto}
vcpus=${VCPUS:-2}
mem_mb=${MEM_MB:-2048}
backend=${BACKEND:-null}
stream=${VM_STREAM:-all}
nvme_opts=${NVME_OPTS:-}
null_latency_ns=${NULL_LATENCY_NS:-0}
data_error_sector=${DATA_ERROR_SECTOR:-}
data_zoned=${DATA_ZONED:-0}
read -ra qemu_trace_events <<<"${QEMU_TRACE:-}"
qemu_plugin=${QEMU_PLUGIN:-}
qemu_plugin_args=${QEMU_PLUGIN_ARGS:-}
check_choice VM_STREAM "$stream" all progress none
check_choice PROFILE "$profile" "${PROFILES[@]}"
check_choice ACCEL "$accel" auto kvm tcg
check_choice BACKEND "$backend" null file
check_uint VCPUS "$vcpus" 1 8
check_uint MEM_MB "$mem_mb" 512 16384
check_uint NULL_LATENCY_NS "$null_latency_ns" 0 100000000
check_choice DATA_ZONED "$data_zoned" 0 1
[ -z "$data_error_sector" ] || check_uint DATA_ERROR_SECTOR "$data_error_sector" 0 4194303
[[ -z $nvme_opts || $nvme_opts =~ ^[a-z_]+=[a-z0-9]+(,[a-z_]+=[a-z0-9]+)*$ ]] ||
	die "NVME_OPTS=$nvme_opts is not valid; use prop=value,... (e.g. msix_qsize=1)"
check_uint VM_TIMEOUT "$timeout_s" 10 86400
trace_args=()
for event in "${qemu_trace_events[@]}"; do
	[[ $event =~ ^[a-z0-9_]+$ ]] || die "QEMU_TRACE entry '$event' is not a trace event name"
	trace_args+=(-trace "enable=$event")
done
if [ -n "$qemu_plugin" ]; then
	[ -f "$qemu_plugin" ] || die "QEMU_PLUGIN=$qemu_plugin: no such file"
	[ ${#qemu_trace_events[@]} -eq 0 ] || die "QEMU_PLUGIN and QEMU_TRACE both log with -D; use one"
	[ "${ACCEL:-auto}" != kvm ] || die "QEMU_PLUGIN needs TCG; not with ACCEL=kvm"
	accel=tcg
fi
[[ -z $qemu_plugin_args || $qemu_plugin_args =~ ^[a-z_]+=[a-z0-9]+(,[a-z_]+=[a-z0-9]+)*$ ]] ||
	die "QEMU_PLUGIN_ARGS=$qemu_plugin_args is not valid; use name=value,..."
[[ -z $qemu_plugin_args || -n $qemu_plugin ]] || die "QEMU_PLUGIN_ARGS without QEMU_PLUGIN"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing; run 'make deps'"
# Before anything is created: a wrong event name changes nothing.
if [ ${#qemu_trace_events[@]} -gt 0 ]; then
	known=$(qemu-system-x86_64 -trace help 2>&1) || die "qemu-system-x86_64 -trace help failed"
	for event in "${qemu_trace_events[@]}"; do
		grep -qx -- "$event" <<<"$known" || die "QEMU_TRACE: this QEMU has no trace event '$event'"
	done
fi
kernel=$BUILD/bzImage-$profile
[ -f "$kernel" ] || die "no $kernel; run 'make kernel PROFILE=$profile'"

# KVM only if it really boots a kernel: /dev/kvm here can be a nested PVM that hangs.
# The answer is kept for this QEMU and this kernel image, and probed again when either changes.
kvm_works() {
	local probe=$BUILD/vm/kvm-probe.log cache=$BUILD/vm/kvm-probe key answer
	[ -w /dev/kvm ] || return 1
	key=$({ qemu-system-x86_64 --version; stat -L -c '%s %Y %n' "$kernel"; } | sha256sum | cut -d' ' -f1)
	answer=$(sed -n "s/^$key //p" "$cache" 2>/dev/null || true)
	if [ -z "$answer" ]; then
		log "probing KVM with $kernel (log: $probe)"
		answer=no
		timeout -k 5 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -smp 1 -nographic -no-reboot \
			-kernel "$kernel" -append "console=ttyS0 panic=-1 init=/bin/false" >"$probe" 2>&1 || true
		grep -q "Kernel panic\|Attempted to kill init" "$probe" && answer=ok
		echo "$key $answer" >"$cache"
	fi
	[ "$answer" = ok ]
}

mkdir -p "$BUILD/vm"
if [ "$accel" = auto ]; then
	if kvm_works; then accel=kvm; else accel=tcg; fi
fi
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	accel_args=(-accel "tcg,thread=multi" -cpu max)
fi
plugin_args=()
[ -z "$qemu_plugin" ] || accel_args=(-accel "tcg,thread=single" -cpu max)

[ -n "$outdir" ] || outdir=$BUILD/vm/run-$(date +%Y%m%d-%H%M%S)-$$
# The guest covers these with a tmpfs (guest/init.sh): only the checkout shows through.
abs_outdir=$(realpath -m "$outdir")
for d in /tmp /run /var/tmp /var/lib /root; do
	if [[ $abs_outdir/ == "$d"/* && $abs_outdir/ != "$TOP"/* ]]; then
		die "-o $outdir: the guest mounts a tmpfs over $d and cannot write there; use a directory in $TOP or outside $d"
	fi
done
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
if [ ${#trace_args[@]} -gt 0 ]; then
	trace_args+=(-D "$outdir/qemu-trace.log" -msg timestamp=on)
fi
[ -z "$qemu_plugin" ] ||
	plugin_args=(-plugin "$(realpath "$qemu_plugin")${qemu_plugin_args:+,$qemu_plugin_args}"
		-d plugin -D "$outdir/qemu-plugin.log")
rm -f "$outdir/rc" "$outdir/serial.log" "$outdir/guest.log" "$outdir/host-load.tsv" "$outdir/qemu-trace.log" \
	"$outdir/qemu-plugin.log" "$outdir/qemu-hung"
printf '%s\n' "$*" >"$outdir/command"
echo "$accel" >"$outdir/accel"

# One guest at a time: the drive images take write locks, and TCG needs the cores.
exec 9>"$BUILD/vm/vm.lock"
flock -n 9 || die "another guest is running (it holds $BUILD/vm/vm.lock); wait for it or stop it"

data_img=$BUILD/vm/nvme-data.img
[ -f "$data_img" ] || truncate -s 2G "$data_img"
data_drive="driver=file,filename=$data_img,if=none,id=data,cache=none,aio=threads"
if [ -n "$data_error_sector" ]; then
	# raw raises blkdebug's read_aio event for every guest read; the rule fails those of the sector.
	data_drive="driver=raw,file.driver=blkdebug,file.image.driver=file,file.image.filename=$data_img"
	data_drive+=",file.image.aio=threads,file.inject-error.0.event=read_aio,file.inject-error.0.errno=5"
	data_drive+=",file.inject-error.0.sector=$data_error_sector,file.inject-error.0.once=off"
	data_drive+=",if=none,id=data,cache=none"
fi
if [ "$backend" = file ]; then
	main_img=$BUILD/vm/nvme-main.img
	[ -f "$main_img" ] || truncate -s 4G "$main_img"
	main_drive="driver=file,filename=$main_img,if=none,id=main,cache=none,aio=threads"
else
	main_drive="driver=null-co,size=4G,read-zeroes=on,latency-ns=$null_latency_ns,if=none,id=main"
fi

# virtio-blk: one drive on null-co (the bench's), one on an image (the tests' data) with
# one request queue for all CPUs, so that a poller races the interrupt handler of another CPU.
vdata_img=$BUILD/vm/virtio-data.img
[ -f "$vdata_img" ] || truncate -s 1G "$vdata_img"
vmain_drive="driver=null-co,size=4G,read-zeroes=on,latency-ns=$null_latency_ns,if=none,id=vmain"
vdata_drive="driver=file,filename=$vdata_img,if=none,id=vdata,cache=none,aio=threads"

data_devices=(-device "nvme,serial=iopoll-data,drive=data${nvme_opts:+,$nvme_opts}")
data_note=""
if [ "$data_zoned" = 1 ]; then
	data_note=", zoned data drive"
	# QEMU keeps zone state in memory: every boot starts with empty zones.
	data_devices=(-device "nvme,id=nvme-data,serial=iopoll-data${nvme_opts:+,$nvme_opts}"
		-device "nvme-ns,drive=data,bus=nvme-data,nsid=1,zoned=true")
fi

append="console=ttyS0 loglevel=7 panic=-1 oops=panic softlockup_panic=0 root=/dev/root rootfstype=9p"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro init=$TOP/guest/init.sh"
append+=" nvme.poll_queues=1 iopoll_out=$outdir iopoll_top=$TOP $extra_append"

# stream_guest LOG: copy the guest's output to the terminal as it is written, and say
# every minute that the guest still runs when it is silent.
stream_guest() {
	local log=$1 line buf="" t0=$SECONDS quiet_since=$SECONDS
	local pattern='.'
	[ "$stream" = progress ] && pattern='^(not )?ok [0-9]|^# (FAIL|SKIP)[: ]|^\[row '
	while [ ! -f "$log" ]; do
		sleep 1
		if ((SECONDS - quiet_since >= 60)); then
			log "guest: booting, $((SECONDS - t0)) s"
			quiet_since=$SECONDS
		fi
	done
	while :; do
		if IFS= read -r line; then
			line=$buf$line buf=""
			if [ "$stream" != none ] && [[ $line =~ $pattern ]]; then
				printf '  guest| %s\n' "$line" >&2
				quiet_since=$SECONDS
			fi
		else
			buf+=$line
			sleep 1
			if ((SECONDS - quiet_since >= 60)); then
				log "guest: running, $(((SECONDS - t0) / 60)) min, log: $log"
				quiet_since=$SECONDS
			fi
		fi
	done <"$log"
}

# sample_host_load OUT WRAPPER_PID: every 5 s until WRAPPER_PID ends, the host's 1-minute
# load, its busy and total CPU jiffies (/proc/stat) and QEMU's own (/proc/PID/stat), so
# that a report can tell the CPU time other processes took from QEMU's ('-': no QEMU),
# and the CPU ms of scripts/host_speed.py's loop, which shows a slower host core.
sample_host_load() {
	local out=$1 wrapper=$2 qemu="" cpu load qemu_cpu probe now f
	printf 'time\tload1\tcpu_busy\tcpu_total\tqemu_cpu\tprobe_ms\n' >"$out"
	while :; do
		[ -n "$qemu" ] || qemu=$(pgrep -P "$wrapper" || true)
		now=${EPOCHREALTIME/,/.} # the time of this sample, whatever the locale's decimal point
		read -r load _ </proc/loadavg
		read -r -a cpu </proc/stat
		qemu_cpu=-
		if [ -n "$qemu" ] && f=$(cat "/proc/$qemu/stat" 2>/dev/null); then
			read -r -a f <<<"${f##*) }"
			qemu_cpu=$((f[11] + f[12]))
		fi
		probe=$(timeout 5 python3 -I -S "$TOP/scripts/host_speed.py" 2>/dev/null) || probe=-
		[[ $probe =~ ^[0-9]+\.[0-9]+$ ]] || probe=-
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$now" "$load" \
			$((cpu[1] + cpu[2] + cpu[3] + cpu[6] + cpu[7] + cpu[8])) \
			$((cpu[1] + cpu[2] + cpu[3] + cpu[4] + cpu[5] + cpu[6] + cpu[7] + cpu[8])) \
			"$qemu_cpu" "$probe" >>"$out"
		kill -0 "$wrapper" 2>/dev/null || break
		sleep 5
	done
}

# reap_hung_qemu WRAPPER_PID: once the guest has written its result, give QEMU 60 s to
# exit, then kill it: under TCG with one thread, QEMU 7.2 at times hangs after the guest
# resets, ignoring SIGTERM (2026-12-05, 1 boot of 16).
reap_hung_qemu() {
	local wrapper=$1 qemu waited=0
	while kill -0 "$wrapper" 2>/dev/null; do
		if [ -f "$outdir/rc" ] && ((++waited > 60)); then
			qemu=$(pgrep -P "$wrapper" || true)
			[ -n "$qemu" ] || return 0
			log "the guest finished, but QEMU did not exit within 60 s; killing it"
			touch "$outdir/qemu-hung"
			kill -KILL "$qemu" 2>/dev/null || true
			return 0
		fi
		sleep 1
	done
}

log "booting $profile kernel ($accel, $vcpus vCPUs, $backend backend${nvme_opts:+, nvme $nvme_opts}${data_note}, timeout ${timeout_s}s); serial log: $outdir/serial.log"
# The helpers and QEMU must not inherit the lock (fd 9): a leftover child would hold it.
stream_guest "$outdir/guest.log" 9>&- &
stream_pid=$!
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 "${accel_args[@]}" \
	-machine q35 -smp "$vcpus" -m "$mem_mb" -nographic -no-reboot -nodefaults \
	-name iopoll,debug-threads=on \
	-serial "file:$outdir/serial.log" -display none \
	-kernel "$kernel" -append "$append" \
	${trace_args[@]+"${trace_args[@]}"} ${plugin_args[@]+"${plugin_args[@]}"} \
	-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-fsdev "local,id=out,path=$outdir,security_model=none,multidevs=remap" \
	-device virtio-9p-pci,fsdev=out,mount_tag=iopoll_out \
	-drive "$main_drive" -device "nvme,serial=iopoll-main,drive=main${nvme_opts:+,$nvme_opts}" \
	-drive "$data_drive" "${data_devices[@]}" \
	-drive "$vmain_drive" -device virtio-blk-pci,serial=iopoll-vmain,drive=vmain \
	-drive "$vdata_drive" -device virtio-blk-pci,serial=iopoll-vdata,drive=vdata,num-queues=1 \
	>"$outdir/qemu.log" 2>&1 </dev/null 9>&- &
wrapper_pid=$!
trap 'kill "$wrapper_pid" "$stream_pid" 2>/dev/null || true' EXIT
sample_host_load "$outdir/host-load.tsv" "$wrapper_pid" 9>&- &
sampler_pid=$!
reap_hung_qemu "$wrapper_pid" 9>&- &
reaper_pid=$!
wait "$wrapper_pid"
qemu_rc=$?
set -e
wait "$sampler_pid" "$reaper_pid" || true
sleep 1
kill "$stream_pid" 2>/dev/null || true
wait "$stream_pid" 2>/dev/null || true
if [ ! -f "$outdir/qemu-hung" ] && { [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; }; then
	die "QEMU did not finish within ${timeout_s}s and was killed; see $outdir/serial.log"
fi
if [ ! -f "$outdir/rc" ]; then
	tail -n 20 "$outdir/serial.log" >&2 || true
	die "the guest stopped without a result (QEMU exit $qemu_rc); see $outdir/serial.log and $outdir/qemu.log"
fi
rc=$(cat "$outdir/rc")
log "guest command exited $rc; output in $outdir"
exit "$rc"
