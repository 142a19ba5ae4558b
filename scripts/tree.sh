#!/bin/bash
# Make build/linux: Debian's linux-source as a git base commit, plus patches/ as commits.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

stamp=$TREE/.git/iopoll-stamp

extract_base() {
	local have
	have=$(installed_source_version)
	[ -f "$LINUX_SOURCE_TARBALL" ] ||
		die "$LINUX_SOURCE_TARBALL is missing; run 'make deps' as root (apt-get install $LINUX_SOURCE_PKG=$LINUX_SOURCE_VERSION)"
	[ "$have" = "$LINUX_SOURCE_VERSION" ] ||
		die "$LINUX_SOURCE_PKG is '$have', the series is pinned to $LINUX_SOURCE_VERSION; run 'make deps' as root"
	log "extracting $LINUX_SOURCE_TARBALL ($have)"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xf "$LINUX_SOURCE_TARBALL" -C "$TREE.tmp" --strip-components=1
	# Debian's packaging stanza ('/*' then '!/debian/') ignores every top-level path.
	sed -i '/^# Debian packaging: ignore everything at the top level/,$d' "$TREE.tmp/.gitignore"
	git -C "$TREE.tmp" init -q -b "$BRANCH"
	git -C "$TREE.tmp" add -A
	GIT_AUTHOR_NAME="Debian kernel team" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$TREE.tmp" commit -q -m "Debian $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION" \
		-m "Pristine extraction of $LINUX_SOURCE_TARBALL, with the top-level packaging stanza of .gitignore dropped."
	git -C "$TREE.tmp" tag "$BASE_TAG"
	mv "$TREE.tmp" "$TREE"
}

# The cover letter's subject and body become the branch description, which 'make export' writes back.
set_description() {
	local cover=$PATCHES/0000-cover-letter.patch
	[ -f "$cover" ] || return 0
	python3 "$TOP/scripts/cover_letter.py" read "$cover" >"$TREE/.git/iopoll-description"
	git -C "$TREE" config -f "$TREE/.git/config" "branch.$BRANCH.description" "$(cat "$TREE/.git/iopoll-description")"
}

apply_series() {
	local patch out
	git -C "$TREE" checkout -q "$BRANCH"
	git -C "$TREE" reset -q --hard "$BASE_TAG"
	while read -r patch; do
		[ -f "$PATCHES/$patch" ] || die "patches/series lists $patch, which does not exist"
		if ! out=$(git -C "$TREE" am -q --keep-cr "$PATCHES/$patch" 2>&1); then
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			echo "$out" | grep -E '^(error|Patch failed)' >&2 || echo "$out" >&2
			die "patch $patch does not apply to $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION (see the failing file above)"
		fi
	done < <(series_patches)
	set_description
	printf '%s %s\n' "$(patches_digest)" "$(git -C "$TREE" rev-parse HEAD)" >"$stamp"
}

# The RFC set on top of the series: branch rfc-adaptive, checked out in build/rfc-tree.
apply_rfc() {
	local rfc_stamp=$TREE/.git/iopoll-rfc-stamp digest head rfc_head patch out
	[ -f "$RFC_PATCHES/series" ] || return 0
	if [ -f "$rfc_stamp" ] && git -C "$TREE" rev-parse -q --verify "refs/heads/$RFC_BRANCH" >/dev/null; then
		read -r digest head rfc_head <"$rfc_stamp"
		if [ "$rfc_head" != "$(git -C "$TREE" rev-parse "$RFC_BRANCH")" ]; then
			[ "$digest" = "$(patches_digest "$RFC_PATCHES")" ] ||
				die "branch $RFC_BRANCH has commits that are not in rfc/adaptive/ and rfc/adaptive/ changed too; export or reset it by hand"
			log "branch $RFC_BRANCH has commits not yet exported; keeping them (run 'scripts/export.sh rfc')"
			return 0
		fi
		if [ "$digest" = "$(patches_digest "$RFC_PATCHES")" ] && [ "$head" = "$(git -C "$TREE" rev-parse "$BRANCH")" ]; then
			log "build/rfc-tree is up to date with rfc/adaptive/"
			return 0
		fi
	fi
	log "applying rfc/adaptive/series on top of the series in build/rfc-tree (branch $RFC_BRANCH)"
	if [ -d "$RFC_TREE" ]; then
		[ -z "$(git -C "$RFC_TREE" status --porcelain --untracked-files=normal)" ] ||
			die "$RFC_TREE has uncommitted changes; commit them there and run 'scripts/export.sh rfc', or discard them yourself"
		git -C "$RFC_TREE" checkout -q -B "$RFC_BRANCH" "$BRANCH"
	else
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q -B "$RFC_BRANCH" "$RFC_TREE" "$BRANCH"
	fi
	while read -r patch; do
		[ -f "$RFC_PATCHES/$patch" ] || die "rfc/adaptive/series lists $patch, which does not exist"
		if ! out=$(git -C "$RFC_TREE" am -q --keep-cr "$RFC_PATCHES/$patch" 2>&1); then
			git -C "$RFC_TREE" am --abort >/dev/null 2>&1 || true
			echo "$out" | grep -E '^(error|Patch failed)' >&2 || echo "$out" >&2
			die "RFC patch $patch does not apply on top of the series (see the failing file above)"
		fi
	done < <(series_patches "$RFC_PATCHES")
	git -C "$TREE" config "branch.$RFC_BRANCH.description" \
		"$(python3 "$TOP/scripts/cover_letter.py" read "$RFC_PATCHES/0000-cover-letter.patch")"
	printf '%s %s %s\n' "$(patches_digest "$RFC_PATCHES")" "$(git -C "$TREE" rev-parse "$BRANCH")" \
		"$(git -C "$TREE" rev-parse "$RFC_BRANCH")" >"$rfc_stamp"
	log "build/rfc-tree: $(git -C "$TREE" rev-list --count "$BRANCH..$RFC_BRANCH") RFC patches on the series"
}

# apply_series_if_needed: apply patches/ unless build/linux already holds it, or holds
# commits not yet exported.
apply_series_if_needed() {
	local digest head
	if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=normal)" ]; then
		die "build/linux has uncommitted changes; commit them there and run 'make export', or discard them yourself"
	fi
	if [ -f "$stamp" ]; then
		read -r digest head <"$stamp"
		if [ "$head" != "$(git -C "$TREE" rev-parse HEAD)" ]; then
			[ "$digest" = "$(patches_digest)" ] ||
				die "build/linux has commits that are not in patches/ and patches/ changed too; export or reset build/linux by hand"
			log "build/linux has commits not yet exported; keeping them (run 'make export')"
			return 0
		fi
		if [ "$digest" = "$(patches_digest)" ]; then
			log "build/linux is up to date with patches/"
			return 0
		fi
	fi
	log "applying patches/series to build/linux"
	apply_series
	log "build/linux: $(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD") patches on $LINUX_SOURCE_VERSION"
}

mkdir -p "$BUILD"
[ -d "$TREE/.git" ] || extract_base
apply_series_if_needed
apply_rfc
