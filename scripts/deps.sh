#!/bin/bash
# Install the packages a target needs, once; as non-root, name what is missing.
#
# usage: deps.sh [build|vm|check|bench|all|qemu-src]   (default: all)
#        deps.sh --archive-check              is the pinned linux-source still in the archive?
#   build: make tree, make kernel, make selftests    vm: make vm (build + QEMU)
#   check: make check                                bench: make bench
#   qemu-src: make qemu-symbols (not in all)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

build_pkgs=(
	"$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION"
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod rsync xz-utils
	ccache python3 git
)
vm_pkgs=(qemu-system-x86 e2fsprogs util-linux procps)
check_pkgs=(sparse shellcheck quilt fio liburing-dev nvme-cli python3-ply python3-git erofs-utils dosfstools)
bench_pkgs=(fio liburing-dev gnuplot-nox)
qemu_src_pkgs=(dpkg-dev ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev
	libcap-ng-dev libattr1-dev libfdt-dev)

# archive_has_pinned_source: true if apt knows the pinned version. The output is read
# whole before it is searched: 'apt-cache madison | grep -q' under pipefail fails with
# SIGPIPE whenever grep exits before apt-cache has written its last line.
archive_has_pinned_source() {
	local versions
	versions=$(apt-cache madison "$LINUX_SOURCE_PKG") || return 1
	grep -qF "| $LINUX_SOURCE_VERSION |" <<<"$versions"
}

group=${1:-all}
case $group in
--archive-check)
	archive_has_pinned_source ||
		die "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is not in the archive (after 'apt-get update'?)"
	log "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is in the archive"
	exit 0
	;;
build) packages=("${build_pkgs[@]}") ;;
vm) packages=("${build_pkgs[@]}" "${vm_pkgs[@]}") ;;
check) packages=("${build_pkgs[@]}" "${vm_pkgs[@]}" "${check_pkgs[@]}") ;;
bench) packages=("${build_pkgs[@]}" "${vm_pkgs[@]}" "${bench_pkgs[@]}") ;;
all) packages=("${build_pkgs[@]}" "${vm_pkgs[@]}" "${check_pkgs[@]}" "${bench_pkgs[@]}") ;;
qemu-src) packages=("${vm_pkgs[@]}" "${qemu_src_pkgs[@]}") ;;
*) die "usage: deps.sh [build|vm|check|bench|all|qemu-src|--archive-check]" ;;
esac

missing=()
for p in "${packages[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	if [ "${have:0:2}" != "ii" ] || { [ "$want" != "$p" ] && [ "${have:3}" != "$want" ]; }; then
		[[ " ${missing[*]} " == *" $p "* ]] || missing+=("$p")
	fi
done
if [ "${#missing[@]}" -eq 0 ]; then
	log "the packages for '$group' are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages for '$group'; as root run: apt-get install ${missing[*]}"
fi
mkdir -p "$BUILD"
log "installing ${#missing[@]} packages (log: $BUILD/apt.log): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >"$BUILD/apt.log" 2>&1 || die "apt-get update failed; see $BUILD/apt.log"
if [[ " ${missing[*]} " == *" $LINUX_SOURCE_PKG="* ]] && ! archive_has_pinned_source; then
	die "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is no longer in the archive; update LINUX_SOURCE_VERSION in scripts/lib.sh and re-test the series"
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$BUILD/apt.log" 2>&1 ||
	die "apt-get install failed; see $BUILD/apt.log"
log "installed ${#missing[@]} packages"
