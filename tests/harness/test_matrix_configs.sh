#!/bin/bash
# matrix.sh -l PROFILE lists the configurations whose kernel profile field (the eighth,
# empty for debug) names PROFILE, whatever fields follow it. TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"

configs=$(sed -n '/^CONFIGS=(/,/^)/s/^\t"\(.*\)"$/\1/p' "$top/scripts/matrix.sh")
for profile in debug preempt-kasan; do
	want=$(awk -F'|' -v p="$profile" '($8 == "" ? "debug" : $8) == p { print $1 }' <<<"$configs")
	got=$("$top/scripts/matrix.sh" -l "$profile")
	rc=0
	[ -n "$want" ] && [ "$got" = "$want" ] || rc=1
	tap_result "matrix.sh -l $profile lists the $(wc -l <<<"$want") configurations that boot it" "$rc" \
		"got: ${got//$'\n'/ }; want: ${want//$'\n'/ }"
done
tap_summary >/dev/null
