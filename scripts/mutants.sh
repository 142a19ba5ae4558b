#!/bin/bash
# make mutants: apply each deliberate bug in tests/mutants/ to build/linux in turn, rebuild
# the debug kernel, run the check that its "# check:" line names, and say whether the tests
# caught it. TAP out; a mutant that survives is a failure. build/linux is put back after each.
#
# usage: mutants.sh [MUTANT...]   (a path, or a name in tests/mutants/ such as
# zoned-keeps-mark; default: every tests/mutants/*.patch)
# A check is "kunit [SUITE.]CASE" (the KUnit case fails at boot; the suite defaults to
# iopoll_wait), "matrix CONFIG" (make matrix
# CONFIG fails) or "kselftest N..." (those iopoll scenarios fail in the default guest).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes; a mutant run would mix them in"
mutants=("$@")
[ "${#mutants[@]}" -gt 0 ] || mutants=("$TOP"/tests/mutants/*.patch)
for i in "${!mutants[@]}"; do
	m=${mutants[i]}
	[ -f "$m" ] || m=$TOP/tests/mutants/${m%.patch}.patch
	[ -f "$m" ] || die "no mutant ${mutants[i]} (neither a file nor a name in tests/mutants/)"
	mutants[i]=$(realpath "$m")
	m=${mutants[i]}
	grep -Eq '^# check: (kunit ([a-z_0-9]+\.)?[a-z_0-9]+|matrix [a-z_0-9]+|kselftest [0-9 ]+)$' "$m" ||
		die "$m has no '# check: kunit [SUITE.]CASE|matrix CONFIG|kselftest N...' line"
done
out=$BUILD/mutants
mkdir -p "$out"
# A kselftest check runs the scenarios of this tree, not an older build of them.
if grep -q '^# check: kselftest' "${mutants[@]}"; then
	log "building the kselftests"
	"$TOP/scripts/selftests.sh" >"$out/selftests.build" 2>&1 ||
		die "the kselftests do not build; see $out/selftests.build"
fi

restore() {
	git -C "$TREE" checkout -q -- .
}
trap restore EXIT

# caught CHECK NAME: 0 if CHECK fails with the mutant built in, 1 if it passes, 2 if it
# gave no result.
caught() {
	local kind=${1%% *} what=${1#* } log=$out/$2
	case $kind in
	kunit)
		[[ $what == *.* ]] || what=iopoll_wait.$what
		VM_STREAM=none "$TOP/scripts/vm.sh" -p debug -t 600 -o "$log" -- true >"$log.vm" 2>&1 || true
		python3 "$TOP/scripts/kunit-results.py" "$TREE" "$log/serial.log" "${what%%.*}" \
			>"$log.kunit" 2>&1 || true
		grep -Eq "^not ok - kunit: ${what//./\\.}( #.*)?\$" "$log.kunit" && return 0
		grep -Eq "^ok - kunit: ${what//./\\.}( #.*)?\$" "$log.kunit" && return 1
		return 2
		;;
	matrix)
		! "$TOP/scripts/matrix.sh" "$what" >"$log.tap" 2>&1
		;;
	kselftest)
		# shellcheck disable=SC2086
		VM_STREAM=none "$TOP/scripts/vm.sh" -p debug -t 1800 -o "$log" -- \
			"${BUILD#"$TOP"/}/kselftest/iopoll/run_iopoll.sh" $what >"$log.vm" 2>&1 && return 1
		[ "$(cat "$log/rc" 2>/dev/null)" != 4 ] || return 2
		return 0
		;;
	esac
}

for m in "${mutants[@]}"; do
	name=$(basename "$m" .patch)
	check=$(sed -n 's/^# check: //p' "$m")
	log "mutant $name: applying, building, then $check (logs: $out/$name*)"
	if ! git -C "$TREE" apply "$m"; then
		tap_result "mutant $name applies to build/linux" 1
		continue
	fi
	if ! "$TOP/scripts/kernel.sh" debug >"$out/$name.build" 2>&1; then
		tap_result "mutant $name is caught: it does not build ($out/$name.build)" 0
	else
		rc=0
		caught "$check" "$name" || rc=$?
		case $rc in
		0) tap_result "mutant $name is caught by $check" 0 ;;
		1) tap_result "mutant $name is caught by $check" 1 "survived: the tests stay green with this bug" ;;
		*) tap_result "mutant $name is caught by $check" 1 "no result; see $out/$name" ;;
		esac
	fi
	restore
done
log "rebuilding the debug kernel without mutants"
"$TOP/scripts/kernel.sh" debug >"$out/clean.build" 2>&1 || die "the clean rebuild failed; see $out/clean.build"
tap_summary
