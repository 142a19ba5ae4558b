#!/bin/bash
# Regenerate patches/ from the commits in build/linux after the base tag.
# With "rfc": regenerate rfc/adaptive/ from branch rfc-adaptive, the commits after the series.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in
"") what=series base=$BASE_TAG tip=HEAD branch=$BRANCH out_dir=$PATCHES
	prefix="PATCH v$SERIES_VERSION" ;;
rfc) what="RFC set" base=$BRANCH tip=$RFC_BRANCH branch=$RFC_BRANCH out_dir=$RFC_PATCHES
	prefix="RFC PATCH" ;;
*) die "usage: export.sh [rfc]" ;;
esac

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=normal)" ] ||
	die "build/linux has uncommitted changes; commit them first"
if [ "$what" = "RFC set" ]; then
	git -C "$TREE" rev-parse -q --verify "refs/heads/$RFC_BRANCH" >/dev/null ||
		die "build/linux has no branch $RFC_BRANCH; run 'make tree' first"
	[ ! -d "$RFC_TREE" ] || [ -z "$(git -C "$RFC_TREE" status --porcelain --untracked-files=normal)" ] ||
		die "$RFC_TREE has uncommitted changes; commit them first"
	git -C "$TREE" merge-base --is-ancestor "$BRANCH" "$RFC_BRANCH" ||
		die "$RFC_BRANCH is not on top of $BRANCH; rebase it: git -C $RFC_TREE rebase $BRANCH"
fi
count=$(git -C "$TREE" rev-list --count "$base..$tip")
[ "$count" -gt 0 ] || die "build/linux has no commits in $base..$tip"
git -C "$TREE" config "branch.$branch.description" >/dev/null ||
	die "no cover letter text: set it with 'git -C build/linux config branch.$branch.description \"\$(cat FILE)\"'"

out=$(mktemp -d "$BUILD/export.XXXXXX")
trap 'rm -rf "$out"' EXIT
author=$(git -C "$TREE" log -1 --format=%ae "$tip")
# To: the maintainers; Cc: the reviewers and the lists, as get_maintainer.pl names them
# for the whole set, without its author. Its order of equal-ranked names
# follows Perl's hash order, which is random per run unless the seed is fixed.
roles=$(git -C "$TREE" diff "$base..$tip" |
	(cd "$TREE" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
		perl scripts/get_maintainer.pl --no-git --no-git-fallback --rolestats)) ||
	die "scripts/get_maintainer.pl failed on the $what"
args=()
while IFS=$'\t' read -r field who; do
	args+=("--$field=$who")
done < <(awk -v me="$author" '!index($0, me) {
	field = /\((maintainer|supporter):/ ? "to" : "cc"
	# Drop the role: after the address, or after a list.
	if (i = index($0, ">")) $0 = substr($0, 1, i); else sub(/ \(.*$/, "")
	print field "\t" $0 }' <<<"$roles")
# Deterministically: the cover letter takes its From and Date from the last commit, so
# it does not churn. format-patch reads the cover letter from the checked-out branch's
# description, so the RFC set is formatted in its own worktree.
src=$TREE
[ "$what" = series ] || src=$RFC_TREE
GIT_COMMITTER_NAME=$(git -C "$TREE" log -1 --format=%an "$tip") \
GIT_COMMITTER_EMAIL=$author \
GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%ad --date=raw "$tip") \
	git -C "$src" -c core.abbrev=12 -c diff.algorithm=myers -c diff.renames=true \
	format-patch -q --zero-commit --no-signature --cover-letter \
	--cover-from-description=subject --subject-prefix="$prefix" \
	"${args[@]}" -o "$out" "$base..$tip"
for f in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ "${f##*/}" = 0000-cover-letter.patch ] || echo "${f##*/}"
done >"$out/series"
rm -f "$out_dir"/*.patch "$out_dir/series"
mkdir -p "$out_dir"
cp "$out"/* "$out_dir/"
if [ "$what" = series ]; then
	printf '%s %s\n' "$(patches_digest)" "$(git -C "$TREE" rev-parse HEAD)" >"$TREE/.git/iopoll-stamp"
else
	printf '%s %s %s\n' "$(patches_digest "$RFC_PATCHES")" "$(git -C "$TREE" rev-parse "$BRANCH")" \
		"$(git -C "$TREE" rev-parse "$RFC_BRANCH")" >"$TREE/.git/iopoll-rfc-stamp"
fi
log "exported $count patches and the cover letter to ${out_dir#"$TOP"/}/"
