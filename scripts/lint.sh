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
exit "$rc"
