#!/bin/bash
# Run sparse (make C=2) on the C files the series touches; fail on warnings in lines it adds.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

obj=$BUILD/obj-${PROFILE:-debug}
[ -f "$obj/.config" ] || die "no $obj/.config; run 'make kernel' first"
command -v sparse >/dev/null || die "sparse is missing; run 'make deps'"
mapfile -t files < <(git -C "$TREE" diff --name-only "$BASE_TAG..HEAD" -- '*.c' | grep -v '^tools/')
targets=()
for f in "${files[@]}"; do
	[ -f "$obj/${f%.c}.o" ] && targets+=("${f%.c}.o")
done
[ "${#targets[@]}" -gt 0 ] || die "none of the touched files is built in $obj"
make -s -C "$TREE" O="$obj" CC="ccache gcc" C=2 "${targets[@]}" >"$obj/sparse.log" 2>&1 || true
# The lines the series adds, as file:line.
added=$(git -C "$TREE" diff -U0 "$BASE_TAG..HEAD" -- "${files[@]}" | awk '
	/^\+\+\+ b\// { file = substr($0, 7) }
	/^@@/ { split($3, a, ","); start = substr(a[1], 2); n = (a[2] == "" ? 1 : a[2]);
		for (i = 0; i < n; i++) print file ":" start + i }')
new=0
while IFS= read -r line; do
	loc=$(echo "$line" | sed -E "s|^$TREE/||; s|^([^:]+:[0-9]+):.*|\1|")
	if grep -qxF "$loc" <<<"$added"; then
		echo "$line"
		new=$((new + 1))
	fi
done < <(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$obj/sparse.log" || true)
log "sparse: ${#targets[@]} files checked, $(grep -cE ': (warning|error):' "$obj/sparse.log" || true) warnings in all, $new in lines the series adds"
[ "$new" -eq 0 ]
