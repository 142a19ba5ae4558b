#!/bin/bash
# Run shellcheck over every shell script of the harness, its tests, CI and the series' selftests.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

rc=0
(cd "$TOP/scripts" && shellcheck -x ./*.sh) || rc=1
(cd "$TOP" && shellcheck -x guest/*.sh tests/harness/*.sh .ci/run) || rc=1
selftests=$TREE/tools/testing/selftests/iopoll
if compgen -G "$selftests/*.sh" >/dev/null; then
	(cd "$selftests" && shellcheck -x ./*.sh) || rc=1
else
	log "no $selftests in build/linux ('make tree'): the selftests' scripts were not checked"
fi

# Under pipefail, 'cmd | head' and 'cmd | grep -q' fail whenever the reader exits before the
# writer is done (SIGPIPE, status 141). Read the output whole, or use grep -m.
files=("$TOP"/scripts/*.sh "$TOP"/guest/*.sh "$TOP"/tests/harness/*.sh "$TOP/.ci/run" "$TOP/Makefile")
compgen -G "$selftests/*.sh" >/dev/null && files+=("$selftests"/*.sh)
if grep -nE '^[^#]*\|[[:space:]]*(head|grep[[:space:]]+(-[[:alnum:]]+[[:space:]]+)*-[[:alnum:]]*q[[:alnum:]]*)\b' "${files[@]}"; then
	echo "error: the lines above pipe into head or grep -q; under pipefail the writer can die of SIGPIPE" >&2
	rc=1
fi
exit "$rc"
