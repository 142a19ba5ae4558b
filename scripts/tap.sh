# shellcheck shell=bash
# A small TAP accumulator for the harness: tap_result NAME RC [SKIP_REASON]

TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0
TAP_SKIP_REASONS=()

tap_result() {
	local name=$1 rc=$2 why=${3:-}
	TAP_N=$((TAP_N + 1))
	if [ "$rc" = skip ]; then
		TAP_SKIP=$((TAP_SKIP + 1))
		TAP_SKIP_REASONS+=("${why:-no reason given}")
		echo "ok $TAP_N $name # SKIP $why"
	elif [ "$rc" -eq 0 ]; then
		TAP_PASS=$((TAP_PASS + 1))
		echo "ok $TAP_N $name"
	else
		TAP_FAIL=$((TAP_FAIL + 1))
		echo "not ok $TAP_N $name${why:+ # $why}"
	fi
}

tap_summary() {
	local reason
	if [ "$TAP_SKIP" -gt 0 ]; then
		echo "# skips by reason:"
		for reason in "${TAP_SKIP_REASONS[@]}"; do echo "$reason"; done | sort | uniq -c | sed 's/^/#  /'
	fi
	echo "1..$TAP_N"
	echo "$TAP_PASS passed, $TAP_FAIL failed, $TAP_SKIP skipped"
	if [ "$TAP_PASS" -eq 0 ]; then
		echo "# nothing passed: a run where everything skipped tested nothing" >&2
		return 1
	fi
	[ "$TAP_FAIL" -eq 0 ]
}

# tap_import PREFIX: renumber the TAP results read on stdin into this run; other lines become comments.
tap_import() {
	local prefix=$1 line status rest why
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok([[:space:]]+[0-9]+)?[[:space:]]+(-[[:space:]]+)?(.*)$ ]]; then
			status=${BASH_REMATCH[1]:+1}
			rest=${BASH_REMATCH[4]}
			if [[ $rest =~ ^(.*)[[:space:]]#[[:space:]]*(SKIP|skip)[[:space:]]*(.*)$ ]]; then
				tap_result "$prefix${BASH_REMATCH[1]}" skip "${BASH_REMATCH[3]}"
			else
				why=""
				[[ $rest =~ ^(.*)[[:space:]]#[[:space:]](.*)$ ]] && rest=${BASH_REMATCH[1]} && why=${BASH_REMATCH[2]}
				tap_result "$prefix$rest" "${status:-0}" "$why"
			fi
		elif [[ $line =~ ^[0-9]+\.\.[0-9]+$ ]] || [[ $line =~ ^[0-9]+\ passed, ]]; then
			continue
		elif [ -n "$line" ]; then
			[[ $line == \#* ]] && echo "$line" || echo "# $line"
		fi
	done
}
