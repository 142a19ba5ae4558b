#!/bin/bash
# Build bzImage for a profile out of tree, from configs/: debug, bench, or stock (the
# bench config on the pristine base, without the series: the bench's A/B reference).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
validate_knobs

profile=${1:-${PROFILE:-debug}}
check_choice PROFILE "$profile" "${PROFILES[@]}"
[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
command -v ccache >/dev/null || die "ccache is missing; run 'make deps'"

src=$TREE
if [ "$profile" = stock ]; then
	# The base tag's files, exported once per base into their own directory.
	src=$BUILD/linux-stock
	base=$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")
	if [ "$(cat "$src/.iopoll-base" 2>/dev/null)" != "$base" ]; then
		log "exporting $BASE_TAG ($base) into $src"
		rm -rf "$src" "$BUILD/obj-stock"
		mkdir -p "$src"
		git -C "$TREE" archive "$base" | tar -x -C "$src"
		echo "$base" >"$src/.iopoll-base"
	fi
fi
obj=$BUILD/obj-$profile
mkdir -p "$obj"
export CCACHE_DIR=$BUILD/ccache KBUILD_BUILD_TIMESTAMP="" KBUILD_BUILD_USER=iopoll KBUILD_BUILD_HOST=iopoll
jobs=$(nproc)
kmake() {
	make -C "$src" O="$obj" CC="ccache gcc" -j"$jobs" "$@"
}

if configure_obj "$src" "$obj" "$profile"; then
	log "configured the $profile kernel in $obj"
fi
# Progress: kbuild's quiet lines ("  CC      init/main.o") counted against the number a
# full build of this profile took last time (kept in $BUILD, so it survives a clean obj).
steps_file=$BUILD/kernel-steps-$profile
full_build=0
[ -f "$obj/vmlinux" ] || full_build=1
total=""
if [ "$full_build" -eq 1 ]; then
	total=$(cat "$steps_file" 2>/dev/null || true)
	# Until a build here has counted them: the steps of a full build, measured 2026-12-01.
	[ -n "$total" ] || case $profile in debug) total=2079 ;; *) total=2043 ;; esac
fi
if [ "$full_build" -eq 1 ]; then
	log "building $profile kernel from scratch, 15-25 minutes on 2 cores with an empty ccache (log: $obj/build.log)"
else
	log "building $profile kernel, incremental (log: $obj/build.log)"
fi
# build_steps: kbuild's quiet lines in the build log so far.
build_steps() {
	grep -c '^  [A-Z]' "$obj/build.log" 2>/dev/null || true
}
progress_steps() {
	local interval=60 t0=$SECONDS n line
	[ -t 2 ] && interval=5
	while sleep "$interval"; do
		n=$(build_steps)
		line="kernel $profile: ${n:-0}${total:+/~$total} steps"
		[ -z "$total" ] || line+=" ($((100 * ${n:-0} / total))%)"
		line+=", $(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s"
		if [ -t 2 ]; then printf '\r  %s ' "$line" >&2; else log "$line"; fi
	done
}
progress_steps &
progress_pid=$!
rc=0
kmake bzImage >"$obj/build.log" 2>&1 || rc=$?
kill "$progress_pid" 2>/dev/null || true
wait "$progress_pid" 2>/dev/null || true
[ ! -t 2 ] || echo >&2
if [ "$rc" -ne 0 ]; then
	grep -m 20 -E 'error|Error' "$obj/build.log" >&2 || true
	die "kernel build failed; see $obj/build.log"
fi
if [ "$full_build" -eq 1 ]; then
	build_steps >"$steps_file"
fi
ln -sf "$obj/arch/x86/boot/bzImage" "$BUILD/bzImage-$profile"
if [ "$profile" = stock ]; then
	log "built $BUILD/bzImage-$profile ($BASE_TAG, without the series)"
else
	log "built $BUILD/bzImage-$profile ($(git -C "$TREE" describe --always --tags))"
fi
