#!/bin/bash
# matrix.sh -l PROFILE lists the configurations whose kernel profile field (the eighth,
# empty for debug) names PROFILE, whatever fields follow it; a configuration with more
# fields than matrix.sh reads is refused. TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs=$(sed -n '/^CONFIGS=(/,/^)/s/^\t"\(.*\)"$/\1/p' "$top/scripts/matrix.sh")
for profile in debug preempt-kasan; do
	want=$(awk -F'|' -v p="$profile" '($8 == "" ? "debug" : $8) == p { print $1 }' <<<"$configs")
	got=$("$top/scripts/matrix.sh" -l "$profile")
	rc=0
	[ -n "$want" ] && [ "$got" = "$want" ] || rc=1
	tap_result "matrix.sh -l $profile lists the $(wc -l <<<"$want") configurations that boot it" "$rc" \
		"got: ${got//$'\n'/ }; want: ${want//$'\n'/ }"
done

# A copy of matrix.sh with a tenth field in one configuration.
mkdir "$tmp/scripts"
cp "$top/scripts/lib.sh" "$top/scripts/tap.sh" "$tmp/scripts/"
sed 's/^\t"zoned|\(.*\)"$/\t"zoned|\1|extra"/' "$top/scripts/matrix.sh" >"$tmp/scripts/matrix.sh"
chmod +x "$tmp/scripts/matrix.sh"
rc=0
grep -q '"zoned|.*|extra"$' "$tmp/scripts/matrix.sh" || rc=1
"$tmp/scripts/matrix.sh" -l >"$tmp/log" 2>&1 && rc=1
grep -qF "configuration 'zoned' has more fields than matrix.sh reads: 'extra'" "$tmp/log" || rc=1
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/log"
tap_result "matrix.sh refuses a configuration with a tenth field" "$rc"
tap_summary >/dev/null
