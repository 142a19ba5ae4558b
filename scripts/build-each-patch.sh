#!/bin/bash
# Build the kernel after every patch of the series, in a separate worktree (bisectability).
# --objects: compile only the .c files the series has touched so far, per patch (no link).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mode=full
case ${1:-} in
"") ;;
--objects) mode=objects ;;
*) die "usage: build-each-patch.sh [--objects]" ;;
esac
[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
work=$BUILD/series-tree
obj=$BUILD/obj-series-$mode
git -C "$TREE" worktree remove --force "$work" >/dev/null 2>&1 || rm -rf "$work"
git -C "$TREE" worktree prune
# Configure at the tip: the base has none of the series' Kconfig symbols.
git -C "$TREE" worktree add -q --detach "$work" HEAD
mkdir -p "$obj"
export CCACHE_DIR=$BUILD/ccache KBUILD_BUILD_TIMESTAMP=""
configure_obj "$work" "$obj" series || true
failed=0 n=0
rm -f "$obj"/build-*.log
for commit in $(git -C "$TREE" rev-list --reverse "$BASE_TAG..HEAD"); do
	n=$((n + 1))
	git -C "$work" checkout -q "$commit"
	subject=$(git -C "$work" log -1 --format=%s)
	log=$(printf '%s/build-%02d.log' "$obj" "$n")
	make -s -C "$work" O="$obj" olddefconfig >/dev/null
	targets=(bzImage)
	if [ "$mode" = objects ]; then
		mapfile -t targets < <(git -C "$work" diff --name-only "$BASE_TAG" HEAD -- '*.c' |
			grep -v '^tools/' | sed 's/\.c$/.o/')
		[ "${#targets[@]}" -gt 0 ] || { echo "ok $n - no C files yet: $subject"; continue; }
	fi
	if make -s -C "$work" O="$obj" CC="ccache gcc" -j"$(nproc)" "${targets[@]}" >"$log" 2>&1; then
		echo "ok $n - builds ($mode): $subject"
	else
		echo "not ok $n - builds ($mode): $subject (see $log)"
		failed=1
	fi
done
echo "1..$n"
git -C "$TREE" worktree remove --force "$work"
exit "$failed"
