#!/bin/bash
# Series hygiene as TAP: the series applies to a pristine base, and checkpatch --strict is
# clean on it and on the RFC set.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
mapfile -t series < <(series_patches)
[ "${#series[@]}" -gt 0 ] || die "patches/series is empty"

# readme_apply_commands: the README's git am and quilt lines, with this checkout's path.
readme_apply_commands() {
	local line
	while IFS= read -r line; do
		printf '%s\n' "${line//\/path\/to\/iopoll/$TOP}"
	done < <(sed -n '/^## Applying the series to your own tree/,/^## /p' "$TOP/README.md" |
		grep -E '^(git am|QUILT_PATCHES=)')
}

# The README's commands, run as written on a pristine base: both must give the same tree.
pristine=$BUILD/pristine
git -C "$TREE" worktree remove --force "$pristine" >/dev/null 2>&1 || rm -rf "$pristine"
git -C "$TREE" worktree prune
git -C "$TREE" worktree add -q --detach "$pristine" "$BASE_TAG"
git_am="" quilt=""
while IFS= read -r line; do
	case $line in
	"git am "*) git_am=$line ;;
	QUILT_PATCHES=*) quilt=$line ;;
	esac
done < <(readme_apply_commands)
apply_log=$BUILD/series-apply.log

# run_readme_line WHAT COMMAND: run the README's COMMAND in the pristine tree; say why it failed.
run_readme_line() {
	if [ -z "$2" ]; then
		echo "# README.md has no '$1' line under '## Applying the series to your own tree'"
		return 1
	fi
	(cd "$pristine" && bash -c "$2") >"$apply_log" 2>&1 && return 0
	sed 's/^/# /' "$apply_log"
	return 1
}

rc=0
if ! run_readme_line "git am" "$git_am"; then
	rc=1
elif [ "$(git -C "$pristine" rev-list --count "$BASE_TAG..HEAD")" -ne "${#series[@]}" ]; then
	echo "# the README's git am line did not apply all ${#series[@]} patches"
	rc=1
fi
tap_result "series: the README's 'git am' applies ${#series[@]} patches to a pristine $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION" "$rc"
am_tree=$(git -C "$pristine" rev-parse 'HEAD^{tree}')

rc=0
git -C "$pristine" am --abort >/dev/null 2>&1 || true
git -C "$pristine" checkout -q --detach "$BASE_TAG"
if ! run_readme_line "QUILT_PATCHES=... quilt" "$quilt"; then
	rc=1
else
	git -C "$pristine" add -A -- . ':!.pc'
	if [ "$(git -C "$pristine" write-tree)" != "$am_tree" ]; then
		echo "# quilt and git am give different trees; see git -C $pristine diff --cached $am_tree"
		rc=1
	fi
fi
tap_result "series: the README's quilt line gives the same tree as its git am line" "$rc"
[ "$rc" -ne 0 ] || git -C "$TREE" worktree remove --force "$pristine"

# The base is a tarball without upstream history, so checkpatch cannot look up the
# commits the messages cite (9650b453a3d4, ...): that one check is left out. It runs
# in the tree so that its SPDX check runs too, with Debian's python3 (python3-ply and
# python3-git), not one that another python3 earlier in PATH would give it.
# checkpatch_one PATCH NAME
checkpatch_one() {
	local out rc
	out=$(cd "$TREE" && PATH=/usr/bin:/bin:$PATH scripts/checkpatch.pl --strict --quiet \
		--show-types --ignore UNKNOWN_COMMIT_ID "$1" 2>&1) && rc=0 || rc=1
	[ -z "$out" ] || { printf '# %s\n' "$out"; rc=1; }
	tap_result "checkpatch --strict: $2" "$rc"
}
for p in "${series[@]}"; do
	checkpatch_one "$PATCHES/$p" "$p"
done
# The RFC set on top of the series (make tree has checked that it applies).
while read -r p; do
	checkpatch_one "$RFC_PATCHES/$p" "rfc/adaptive/$p"
done < <(series_patches "$RFC_PATCHES")
tap_summary >/dev/null || exit 1
