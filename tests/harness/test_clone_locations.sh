#!/bin/bash
# A checkout under any of the guest's tmpfs mount points (/root, /tmp, /var/tmp) or under
# /home boots a guest that runs in that checkout. TAP on stdout.
# usage: test_clone_locations.sh [PROFILE]   (needs build/bzImage-PROFILE; default debug)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"

profile=${1:-debug}
check_choice PROFILE "$profile" debug bench
kernel=$(readlink -f "$BUILD/bzImage-$profile") || true
[ -f "$kernel" ] || die "no $BUILD/bzImage-$profile; run 'make kernel PROFILE=$profile'"

clones=()
trap 'rm -rf "${clones[@]}"' EXIT
for parent in /root /tmp /var/tmp /home/iopoll-user; do
	mkdir -p "$parent"
	clone=$(mktemp -d "$parent/iopoll-clone.XXXXXX")
	clones+=("$clone")
	cp -r "$top/scripts" "$top/guest" "$clone/"
	mkdir -p "$clone/build"
	ln -s "$kernel" "$clone/build/bzImage-$profile"
	rc=0
	# No KUnit at boot: this test is about where init finds the checkout. $PWD is the guest's.
	# shellcheck disable=SC2016
	VM_STREAM=none VM_TIMEOUT=600 "$clone/scripts/vm.sh" -p "$profile" -o "$clone/build/out" \
		-a "kunit.enable=0" -- 'echo "pwd=$PWD"' >"$clone.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && ! grep -qxF "pwd=$clone" "$clone/build/out/guest.log"; then
		echo "# the guest did not run in $clone"
		rc=1
	fi
	if [ "$rc" -ne 0 ]; then
		sed 's/^/# /' "$clone.log"
		tail -n 5 "$clone/build/out/serial.log" 2>/dev/null | sed 's/^/# serial: /'
	fi
	rm -f "$clone.log"
	tap_result "guest: boots and runs in a clone under $parent" "$rc"
done
rmdir /home/iopoll-user 2>/dev/null || true
tap_summary >/dev/null
