#!/bin/bash
# Regenerate patches/ from the commits in build/linux after the base tag.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no build/linux; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=normal)" ] ||
	die "build/linux has uncommitted changes; commit them first"
count=$(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD")
[ "$count" -gt 0 ] || die "build/linux has no commits after $BASE_TAG"
git -C "$TREE" config "branch.$BRANCH.description" >/dev/null ||
	die "no cover letter text: set it with 'git -C build/linux branch --edit-description'"

out=$(mktemp -d "$BUILD/export.XXXXXX")
trap 'rm -rf "$out"' EXIT
author=$(git -C "$TREE" log -1 --format=%ae)
# To: the maintainers; Cc: the reviewers and the lists, as get_maintainer.pl names them
# for the whole series, without the series' author. Its order of equal-ranked names
# follows Perl's hash order, which is random per run unless the seed is fixed.
roles=$(git -C "$TREE" diff "$BASE_TAG..HEAD" |
	(cd "$TREE" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
		perl scripts/get_maintainer.pl --no-git --no-git-fallback --rolestats)) ||
	die "scripts/get_maintainer.pl failed on the series"
args=()
while IFS=$'\t' read -r field who; do
	args+=("--$field=$who")
done < <(awk -v me="$author" '!index($0, me) {
	field = /\((maintainer|supporter):/ ? "to" : "cc"
	# Drop the role: after the address, or after a list.
	if (i = index($0, ">")) $0 = substr($0, 1, i); else sub(/ \(.*$/, "")
	print field "\t" $0 }' <<<"$roles")
# The series, deterministically: the cover letter takes its From and Date from the last
# commit, so it does not churn.
GIT_COMMITTER_NAME=$(git -C "$TREE" log -1 --format=%an) \
GIT_COMMITTER_EMAIL=$author \
GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%ad --date=raw) \
	git -C "$TREE" -c core.abbrev=12 -c diff.algorithm=myers -c diff.renames=true \
	format-patch -q --zero-commit --no-signature --cover-letter \
	--cover-from-description=subject --subject-prefix="PATCH v$SERIES_VERSION" \
	"${args[@]}" -o "$out" "$BASE_TAG..HEAD"
for f in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ "${f##*/}" = 0000-cover-letter.patch ] || echo "${f##*/}"
done >"$out/series"
rm -f "$PATCHES"/*.patch "$PATCHES/series"
mkdir -p "$PATCHES"
cp "$out"/* "$PATCHES/"
printf '%s %s\n' "$(patches_digest)" "$(git -C "$TREE" rev-parse HEAD)" >"$TREE/.git/iopoll-stamp"
log "exported $count patches and the cover letter to patches/"
