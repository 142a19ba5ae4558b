# shellcheck shell=bash disable=SC2034
# Shared settings for the iopoll harness. Source it; do not run it.

# The one place the kernel base is pinned.
LINUX_SOURCE_PKG=linux-source-6.12
LINUX_SOURCE_VERSION=6.12.117-1~deb12u1
LINUX_SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$TOP/build
TREE=$BUILD/linux
PATCHES=$TOP/patches
BASE_TAG=iopoll-base
BRANCH=iopoll
# The revision of the series that make export writes: [PATCH vN ...].
SERIES_VERSION=17
# The adaptive mode, an RFC set on top of the series: rfc/adaptive/, branch rfc-adaptive
# in build/linux, checked out in build/rfc-tree.
RFC_PATCHES=$TOP/rfc/adaptive
RFC_BRANCH=rfc-adaptive
RFC_TREE=$BUILD/rfc-tree

# Fixed identity and dates so that commits and exports never churn.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_COMMITTER_NAME="iopoll harness" GIT_COMMITTER_EMAIL="iopoll@example.org"

die() {
	echo "error: $*" >&2
	exit 1
}

log() {
	printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2
}

# check_choice NAME VALUE VALID...: fail with the list of valid values.
check_choice() {
	local name=$1 value=$2 v
	shift 2
	for v in "$@"; do
		[ "$value" = "$v" ] && return 0
	done
	die "$name=$value is not valid; use one of: $*"
}

# check_uint NAME VALUE MIN MAX
check_uint() {
	local name=$1 value=$2 min=$3 max=$4
	if ! [[ $value =~ ^(0|[1-9][0-9]{0,8})$ ]] || [ "$value" -lt "$min" ] || [ "$value" -gt "$max" ]; then
		die "$name=$value is not valid; use an integer from $min to $max"
	fi
}

installed_source_version() {
	dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG" 2>/dev/null || true
}

# series_patches [DIR]: the patches DIR/series lists (DIR: patches/), in order.
series_patches() {
	local dir=${1:-$PATCHES}
	[ -f "$dir/series" ] || return 0
	grep -Ev '^[[:space:]]*(#|$)' "$dir/series"
}

# patches_digest [DIR]: the hash of everything in DIR (patches/) that a tree is built from.
patches_digest() {
	local dir=${1:-$PATCHES}
	local -a files
	mapfile -t files < <(series_patches "$dir")
	(cd "$dir" && cat -- series "${files[@]}" 0000-cover-letter.patch 2>/dev/null) |
		sha256sum | cut -d' ' -f1
}

# The kernel profiles: debug (make check), bench, stock (bench without the series) and
# preempt-kasan (debug, preemptible, with KASAN: make check-preempt).
PROFILES=(debug bench stock preempt-kasan)

# config_fragments PROFILE: the config fragments of PROFILE's kernel, in merge order.
config_fragments() {
	case $1 in
	stock) config_fragments bench ;;
	preempt-kasan | series) echo "$TOP/configs/base.config $TOP/configs/debug.config $TOP/configs/$1.config" ;;
	*) echo "$TOP/configs/base.config $TOP/configs/$1.config" ;;
	esac
}

# configure_obj SRC OBJ PROFILE: write OBJ/.config from tinyconfig and PROFILE's
# fragments, unless it was written from the same fragments. Returns 0 if it
# (re)configured, 1 if the config was current.
configure_obj() {
	local src=$1 obj=$2 profile=$3 want fragments
	read -ra fragments <<<"$(config_fragments "$profile")"
	want=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
	# Current: same fragments, and what they ask for is still there (a make in OBJ on a
	# tree without some option, an older commit, drops it from .config).
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/.config-fragments" 2>/dev/null)" = "$want" ] &&
		"$TOP/scripts/config-check.py" "$obj/.config" "${fragments[@]}" 2>/dev/null; then
		return 1
	fi
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "${fragments[@]}" >"$obj/merge.log")
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	"$TOP/scripts/config-check.py" "$obj/.config" "${fragments[@]}" ||
		die "the $profile config lacks what its fragments ask for (a dependency is off); see $obj/merge.log"
	echo "$want" >"$obj/.config-fragments"
}

# Refuse bad knob values before any work is done.
validate_knobs() {
	check_choice PROFILE "${PROFILE:-debug}" "${PROFILES[@]}"
	check_choice ACCEL "${ACCEL:-auto}" auto kvm tcg
	check_choice BACKEND "${BACKEND:-null}" null file
	check_choice BENCH "${BENCH:-full}" quick full
	check_uint VCPUS "${VCPUS:-2}" 1 8
	check_uint MEM_MB "${MEM_MB:-2048}" 512 16384
	[ -z "${VM_TIMEOUT:-}" ] || check_uint VM_TIMEOUT "$VM_TIMEOUT" 10 86400
}

# build_bench_kernels: as stages, the bench packages, the tree, and the bench kernel and
# stock 6.12 with the same config (make bench, make insn-count).
build_bench_kernels() {
	stage_begin deps bench-deps
	"$TOP/scripts/deps.sh" bench
	stage_done
	stage_begin tree bench-tree
	"$TOP/scripts/tree.sh"
	stage_done
	stage_begin kernel bench-kernel
	"$TOP/scripts/kernel.sh" bench
	stage_done
	stage_begin "kernel stock (the same config without the series)" bench-kernel-stock
	"$TOP/scripts/kernel.sh" stock
	stage_done
}

# Stage times, kept in build/ so that the next run can say how long a stage took last time.
# stage_begin NAME KEY: announce stage NAME, timed under KEY; stage_done: record how long it took.
stage_begin() {
	local last
	STAGE_NAME=$1 STAGE_KEY=$2 STAGE_T0=$SECONDS
	last=$(cat "$BUILD/stage-times/$STAGE_KEY" 2>/dev/null || true)
	echo "# stage: $STAGE_NAME${last:+ (took ${last} s last time)}"
}
stage_done() {
	mkdir -p "$BUILD/stage-times"
	echo $((SECONDS - STAGE_T0)) >"$BUILD/stage-times/$STAGE_KEY"
}
