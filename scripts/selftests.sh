#!/bin/bash
# Build and install tools/testing/selftests/iopoll into build/kselftest/iopoll.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

src=$TREE/tools/testing/selftests
[ -d "$src/iopoll" ] || die "the tree has no tools/testing/selftests/iopoll; is the series applied ('make tree')?"
out=$BUILD/kselftest
rm -rf "$out"
mkdir -p "$out/build" "$out/kselftest"
if ! make -s -C "$src/iopoll" OUTPUT="$out/build" INSTALL_PATH="$out/iopoll" KHDR_INCLUDES= install \
	>"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	die "selftest build failed; see $out/build.log"
fi
cp "$src/kselftest/ktap_helpers.sh" "$out/kselftest/"
log "installed the iopoll selftests in $out/iopoll"
