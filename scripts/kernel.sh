#!/bin/bash
# Build bzImage for a profile (debug or bench) out of tree, from configs/.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
validate_knobs

profile=${1:-${PROFILE:-debug}}
check_choice PROFILE "$profile" debug bench
[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
command -v ccache >/dev/null || die "ccache is missing; run 'make deps'"

obj=$BUILD/obj-$profile
mkdir -p "$obj"
export CCACHE_DIR=$BUILD/ccache KBUILD_BUILD_TIMESTAMP="" KBUILD_BUILD_USER=iopoll KBUILD_BUILD_HOST=iopoll
jobs=$(nproc)
kmake() {
	make -s -C "$TREE" O="$obj" CC="ccache gcc" -j"$jobs" "$@"
}

fragments=("$TOP/configs/base.config" "$TOP/configs/$profile.config")
want=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.config-fragments" 2>/dev/null)" != "$want" ]; then
	log "configuring $profile kernel in $obj"
	kmake tinyconfig >/dev/null
	(cd "$obj" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "${fragments[@]}" >"$obj/merge.log")
	kmake olddefconfig >/dev/null
	echo "$want" >"$obj/.config-fragments"
fi
log "building $profile kernel (log: $obj/build.log)"
if ! kmake bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -20 >&2
	die "kernel build failed; see $obj/build.log"
fi
ln -sf "$obj/arch/x86/boot/bzImage" "$BUILD/bzImage-$profile"
log "built $BUILD/bzImage-$profile ($(git -C "$TREE" describe --always --tags))"
