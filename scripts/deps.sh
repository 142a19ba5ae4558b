#!/bin/bash
# Install what the harness needs, once; as non-root, name what is missing.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

packages=(
	"$LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION"
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod rsync xz-utils
	ccache sparse shellcheck python3 git quilt
	qemu-system-x86 fio liburing-dev e2fsprogs util-linux procps busybox-static gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	if [ "${have:0:2}" != "ii" ] || { [ "$want" != "$p" ] && [ "${have:3}" != "$want" ]; }; then
		missing+=("$p")
	fi
done
if [ "${#missing[@]}" -eq 0 ]; then
	log "all build and test packages are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages; as root run: apt-get install ${missing[*]}"
fi
mkdir -p "$BUILD"
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if ! apt-cache madison "$LINUX_SOURCE_PKG" | grep -qF "| $LINUX_SOURCE_VERSION |"; then
	die "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is no longer in the archive; update LINUX_SOURCE_VERSION in scripts/lib.sh and re-test the series"
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1 ||
	die "apt-get install failed; see $BUILD/apt.log"
log "installed ${#missing[@]} packages"
