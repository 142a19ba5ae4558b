#!/bin/bash
# Series hygiene as TAP: the series applies to a pristine base, and checkpatch --strict is clean.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
mapfile -t series < <(series_patches)
[ "${#series[@]}" -gt 0 ] || die "patches/series is empty"

pristine=$BUILD/pristine
git -C "$TREE" worktree remove --force "$pristine" >/dev/null 2>&1 || rm -rf "$pristine"
git -C "$TREE" worktree prune
git -C "$TREE" worktree add -q --detach "$pristine" "$BASE_TAG"
rc=0
for p in "${series[@]}"; do
	if ! git -C "$pristine" am -q "$PATCHES/$p" >"$BUILD/series-apply.log" 2>&1; then
		cat "$BUILD/series-apply.log" >&2
		rc=1
		break
	fi
done
tap_result "series: ${#series[@]} patches apply to a pristine $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION" "$rc"
git -C "$TREE" worktree remove --force "$pristine"

# The base is a tarball without upstream history, so checkpatch cannot look up the
# commits the messages cite (9650b453a3d4, ...): that one check is left out.
for p in "${series[@]}"; do
	out=$("$TREE/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore UNKNOWN_COMMIT_ID "$PATCHES/$p" 2>&1) && rc=0 || rc=1
	[ -z "$out" ] || { printf '# %s\n' "$out"; rc=1; }
	tap_result "checkpatch --strict: $p" "$rc"
done
tap_summary >/dev/null || exit 1
