#!/bin/bash
# mutants.sh takes mutants by path or by name and refuses a bad one before it builds or
# changes anything.
# TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
tree=$top/build/linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# refused NAME MESSAGE MUTANT...: mutants.sh fails at once, prints MESSAGE, and leaves
# build/linux as it was.
refused() {
	local name=$1 message=$2 rc=0 head0
	shift 2
	head0=$(git -C "$tree" rev-parse HEAD)
	timeout 60 "$top/scripts/mutants.sh" "$@" >"$tmp/log" 2>&1 && rc=1
	grep -qF -- "$message" "$tmp/log" || rc=1
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head0" ] || rc=1
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/log"
	tap_result "mutants.sh: $name" "$rc"
}

if [ ! -d "$tree/.git" ] || [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
	for t in "an unknown name is refused" "a name resolves in tests/mutants/" \
		"a mutant without a check line is refused"; do
		tap_result "mutants.sh: $t" skip "needs a clean build/linux (make tree)"
	done
	tap_summary >/dev/null
	exit 0
fi
refused "an unknown name is refused" \
	"no mutant no-such-mutant (neither a file nor a name in tests/mutants/)" no-such-mutant
# The first resolves by name, so the run stops at the second.
refused "a name resolves in tests/mutants/" "no mutant no-such-mutant" \
	zoned-keeps-mark no-such-mutant
printf 'diff --git a/x b/x\n' >"$tmp/bare.patch"
refused "a mutant without a check line is refused" "has no '# check:" "$tmp/bare.patch"
tap_summary >/dev/null
