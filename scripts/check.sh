#!/bin/bash
# make check: series hygiene, the debug kernel, KUnit and kselftests in the guest, dmesg. TAP out.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
validate_knobs

check_uint VM_TIMEOUT "${VM_TIMEOUT:=5400}" 60 86400
export VM_TIMEOUT
stages=()
stage_start() {
	stage_begin "$1" "check-$1"
}
stage_end() {
	stage_done
	stages+=("$(printf '%-12s %5d s' "$STAGE_NAME" $((SECONDS - STAGE_T0)))")
}

stage_start deps
"$TOP/scripts/deps.sh" check
stage_end

stage_start tree
"$TOP/scripts/tree.sh"
stage_end

stage_start series
tap_import "" < <("$TOP/scripts/checkpatch-series.sh" 2>&1 || echo "not ok - checkpatch-series.sh failed (see above)")

# A mutant that no longer applies tests nothing: make mutants would fail late.
for m in "$TOP"/tests/mutants/*.patch; do
	rc=0
	git -C "$TREE" apply --check "$m" 2>/dev/null || rc=1
	tap_result "mutant applies to the series: $(basename "$m")" "$rc" \
		"git -C build/linux apply --check tests/mutants/$(basename "$m") fails: refresh its context"
done
for m in "$RFC_PATCHES"/mutants/*.patch; do
	rc=0
	git -C "$RFC_TREE" apply --check "$m" 2>/dev/null || rc=1
	tap_result "mutant applies to the RFC set: $(basename "$m")" "$rc" \
		"git -C build/rfc-tree apply --check rfc/adaptive/mutants/$(basename "$m") fails: refresh its context"
done
stage_end

stage_start lint
rc=0
"$TOP/scripts/lint.sh" || rc=1
tap_result "shellcheck: harness, tests, .ci/run and the selftests' scripts" "$rc"
stage_end

stage_start harness
for t in test_deps_archive_check.sh test_tap_summary.sh test_dmesg_scan.sh test_iopoll_writer.sh \
	test_vm_bad_input.sh test_matrix_configs.sh test_mutants_args.sh test_bench_budget.sh; do
	tap_import "" < <("$TOP/tests/harness/$t" 2>&1 || echo "not ok - tests/harness/$t failed")
done
stage_end

stage_start report
tap_import "" < <({ python3 -m unittest discover -s "$TOP/report" -v 2>&1 || echo "test_suite (all) ... FAIL"; } |
	sed -nE 's/^(test\w*) \(([^)]*)\).* \.\.\. (ok|FAIL|ERROR|skipped.*)$/\3 - report: \2/p' |
	sed -E 's/^(FAIL|ERROR) - /not ok - /; s/^skipped (.*) - (.*)$/ok - \2 # SKIP \1/')
stage_end

stage_start kernel
rc=0
"$TOP/scripts/kernel.sh" debug || rc=1
tap_result "kernel: debug build of $(git -C "$TREE" describe --always --tags)" "$rc"
stage_end
[ "$rc" -eq 0 ] || { tap_summary; exit 1; }

stage_start locations
tap_import "" < <("$TOP/tests/harness/test_clone_locations.sh" debug 2>&1 ||
	echo "not ok - tests/harness/test_clone_locations.sh failed")
stage_end

stage_start selftests
if [ -d "$TREE/tools/testing/selftests/iopoll" ]; then
	rc=0
	"$TOP/scripts/selftests.sh" || rc=1
	tap_result "kselftest: build iopoll" "$rc"
else
	rm -rf "$BUILD/kselftest"
	tap_result "kselftest: build iopoll" skip "the series has no selftests"
fi
stage_end

stage_start guest
out=$BUILD/check/guest
rm -rf "$out"
rc=0
VM_STREAM=progress "$TOP/scripts/vm.sh" -p debug -o "$out" -- guest/check.sh || rc=$?
if [ -f "$out/guest.log" ]; then
	tap_import "guest: " <"$out/guest.log"
fi
tap_result "guest: guest/check.sh, all scenarios (serial log: $out/serial.log)" "$rc" "exit $rc"
stage_end

stage_start kunit
# The KUnit suites run at boot; the kernel's kunit.py parses the serial log.
for suite_config in iopoll_wait:IO_WAIT_KUNIT_TEST iopoll_bio:BLK_IOWAIT_KUNIT_TEST; do
	suite=${suite_config%%:*} symbol=CONFIG_${suite_config#*:}
	# configs/debug.config asks for both suites: a debug kernel without one is a failure.
	if ! grep -q "^$symbol=y" "$BUILD/obj-debug/.config"; then
		tap_result "kunit: $suite" 1 "$symbol is not in build/obj-debug/.config, though configs/debug.config asks for it"
		continue
	fi
	results=$(python3 "$TOP/scripts/kunit-results.py" "$TREE" "$out/serial.log" "$suite" || true)
	tap_import "" <<<"$results"
	# An io_wait() case skips when other tasks disturbed it on every try;
	# more than one such skip in a run means the cases no longer test what
	# they claim.  The bio cases never skip.
	skips=$(sed -n 's/^# kunit: \([0-9]*\) case(s) skipped$/\1/p' <<<"$results")
	skips=${skips:-0}
	allowed=0
	[ "$suite" != iopoll_wait ] || allowed=1
	tap_result "kunit: $suite: at most $allowed case(s) skipped ($skips skipped)" \
		"$((skips > allowed))" "$skips KUnit cases skipped; see $out/serial.log"
done
stage_end

stage_start dmesg
rc=0
"$TOP/scripts/dmesg-scan.sh" "$out/serial.log" || rc=1
tap_result "dmesg: no WARN, BUG, lockdep, KASAN, hung task or 'nobody cared' reports" "$rc"
stage_end

stage_start matrix
tap_import "" < <("$TOP/scripts/matrix.sh" 2>&1 || echo "not ok - scripts/matrix.sh failed (see above)")
stage_end

echo "# stage durations:"
printf '#   %s\n' "${stages[@]}"
tap_summary
