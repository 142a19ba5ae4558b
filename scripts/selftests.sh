#!/bin/bash
# Build and install the iopoll kselftests the kernel's way (make -C tools/testing/selftests
# TARGETS=iopoll install) into build/kselftest: run_kselftest.sh, kselftest/, iopoll/.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

src=$TREE/tools/testing/selftests
[ -d "$src/iopoll" ] || die "the tree has no tools/testing/selftests/iopoll; is the series applied ('make tree')?"
out=$BUILD/kselftest
rm -rf "$out"
mkdir -p "$out"
# O= keeps the objects out of build/linux; the test needs no uapi header newer than the host's.
if ! make -s -C "$src" TARGETS=iopoll O="$out/obj" KSFT_INSTALL_PATH="$out" install \
	>"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	die "selftest build failed; see $out/build.log"
fi
if [ ! -x "$out/run_kselftest.sh" ] || [ ! -x "$out/iopoll/run_iopoll.sh" ]; then
	die "the install left no run_kselftest.sh or iopoll/run_iopoll.sh in $out; see $out/build.log"
fi
log "installed the iopoll selftests in $out (run_kselftest.sh, iopoll/)"
