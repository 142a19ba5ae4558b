#!/bin/bash
# make kunit: the series' KUnit suites (io_wait(), BIO_IOWAIT_POLLED) through the kernel's kunit.py,
# a fast loop without the guest.
# KUNIT_ARCH=um (default) builds a User Mode Linux kernel; x86_64 boots one under QEMU.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

arch=${KUNIT_ARCH:-um}
check_choice KUNIT_ARCH "$arch" um x86_64
timeout_s=${KUNIT_TIMEOUT:-900}
check_uint KUNIT_TIMEOUT "$timeout_s" 60 7200
[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
configs=()
for dir in kernel/sched block; do
	[ -f "$TREE/$dir/.kunitconfig" ] ||
		die "$TREE/$dir/.kunitconfig is missing: the series has no KUnit suite there"
	configs+=(--kunitconfig="$TREE/$dir/.kunitconfig")
done
out=$BUILD/kunit-$arch
mkdir -p "$out"
export CCACHE_DIR=$BUILD/ccache
log "kunit.py run, $arch, build in $out (a first UML build took 3 minutes here; log: $out/kunit.log)"
# kunit.py is silent while it builds: say every minute that it is alive.
(
	t0=$SECONDS
	while sleep 60; do
		log "kunit: $(((SECONDS - t0) / 60)) min, $(find "$out" -name '*.o' | wc -l) objects built"
	done
) &
ticker=$!
rc=0
(cd "$TREE" && python3 tools/testing/kunit/kunit.py run --arch="$arch" \
	"${configs[@]}" --build_dir="$out" --jobs="$(nproc)" \
	--make_options=CC="ccache gcc" --timeout="$timeout_s") >"$out/kunit.log" 2>&1 || rc=$?
kill "$ticker" 2>/dev/null || true
wait "$ticker" 2>/dev/null || true
# kunit.py prints its summary and any failed case at the end.
tail -n 25 "$out/kunit.log"
[ "$rc" -eq 0 ] || die "kunit.py run failed (exit $rc); see $out/kunit.log"
# As in make check: a case may skip for a disturbed CPU at most once a run.
skipped=$(sed -n 's/.*Testing complete\. Ran [0-9]* tests:.* skipped: \([0-9]*\).*/\1/p' "$out/kunit.log")
[ "${skipped:-0}" -le 1 ] || die "kunit: $skipped cases skipped; see $out/kunit.log"
log "kunit: the io_wait() and bio cases passed, ${skipped:-0} skipped ($arch)"
