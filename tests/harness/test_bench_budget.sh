#!/bin/bash
# guest/bench_budget.sh: a wait is cut to the budget left, and once the budget is spent the
# guest neither waits nor runs again, and says so once. TAP on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A stand-in for scripts/host_speed.py --wait-fast TSV CAP: notes the call, prints CAP.
cat >"$tmp/host_speed.py" <<'PY'
import sys
with open(sys.argv[0] + ".calls", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
print(sys.argv[3])
PY
: >"$tmp/host-load.tsv"

# budget SPENT WAIT_S RETRIES EXTRA_S CMD...: the stdout of CMD, run in a subshell that
# has sourced the helpers with those settings; its stderr goes to $tmp/stderr.
budget() {
	rm -f "$tmp/host_speed.py.calls"
	# shellcheck disable=SC2030 # the settings are meant for this subshell only
	(
		OUTDIR=$tmp HOST_SPEED=$tmp/host_speed.py
		extra_spent=$1 HOST_WAIT_S=$2 HOST_RETRIES=$3 HOST_EXTRA_S=$4
		# shellcheck source=../../guest/bench_budget.sh
		. "$top/guest/bench_budget.sh"
		shift 4
		"$@"
	) 2>"$tmp/stderr"
}

# said: what the helpers wrote on stderr in the last call of budget.
said() { cat "$tmp/stderr"; }

# calls: the stand-in's arguments, a line per call, in the last call of budget.
calls() { cat "$tmp/host_speed.py.calls" 2>/dev/null || true; }

# report NAME RC OUTPUT: the result, with OUTPUT and stderr as comments when it failed.
report() {
	local line
	if [ "$2" -ne 0 ]; then
		while IFS= read -r line; do echo "# $line"; done <<<"$3
stderr: $(said)"
	fi
	tap_result "bench budget: $1" "$2"
}

no_probe_samples() {
	rm "$tmp/host-load.tsv"
	host_wait
	: >"$tmp/host-load.tsv"
}
left_or_not() { if extra_left; then echo left; else echo spent; fi; }
twice() { "$@"; "$@"; }
# shellcheck disable=SC2031 # runs in budget's subshell, which set extra_spent
spend_from_90() {
	SECONDS=100
	spend 90
	echo "$extra_spent $SECONDS"
}

rc=0
out=$(budget 15 60 3 20 host_wait) || rc=1
[ "$out" = 5 ] && [ "$(calls)" = "--wait-fast $tmp/host-load.tsv 5" ] || rc=1
report "a wait is cut to the 5 s left of 20" "$rc" "$out"

rc=0
out=$(budget 0 60 3 3600 host_wait) || rc=1
[ "$out" = 60 ] && [ "$(calls)" = "--wait-fast $tmp/host-load.tsv 60" ] || rc=1
report "a wait is cut to BENCH_HOST_WAIT_S when more is left" "$rc" "$out"

rc=0
out=$(budget 20 60 3 20 host_wait) || rc=1
[ "$out" = 0.0 ] && [ -z "$(calls)" ] || rc=1
report "no wait once the budget is spent" "$rc" "$out"

rc=0
out=$(budget 0 60 3 20 no_probe_samples) || rc=1
[ "$out" = 0.0 ] && [ -z "$(calls)" ] || rc=1
report "no wait without the host's probe samples" "$rc" "$out"

rc=0
out=$(budget 19 60 3 20 left_or_not) || rc=1
[ "$out" = left ] && [ -z "$(said)" ] || rc=1
report "19 s of 20 spent leaves some, and nothing is said" "$rc" "$out"

rc=0
out=$(budget 25 60 3 20 twice left_or_not) || rc=1
[ "$out" = $'spent\nspent' ] && [ "$(said)" = "$(printf '%s' 'bench.sh: waits and runs again took 25s of 20s' \
	' (BENCH_HOST_EXTRA_S); no more of either this boot')" ] || rc=1
report "25 s of 20 spent leaves none, and it is said once, on stderr" "$rc" "$out"

rc=0
out=$(budget 20 0 3 20 left_or_not) || rc=1
[ "$out" = spent ] && [ "$(said | grep -c 'took 20s of 20s')" = 1 ] || rc=1
report "with runs again on and waits off, it is said too" "$rc" "$out"

rc=0
out=$(budget 20 60 0 20 left_or_not) || rc=1
[ "$out" = spent ] && [ "$(said | grep -c 'took 20s of 20s')" = 1 ] || rc=1
report "with waits on and runs again off, it is said too" "$rc" "$out"

rc=0
out=$(budget 0 0 0 0 left_or_not) || rc=1
[ "$out" = spent ] && [ -z "$(said)" ] || rc=1
report "with neither waits nor runs again on, nothing is said" "$rc" "$out"

rc=0
out=$(budget 4 60 3 20 spend_from_90) || rc=1
read -r spent after <<<"$out"
# spend ran when $SECONDS was between 100 and $after: 4 + (100..after) - 90.
[ "$spent" -ge 14 ] && [ "$spent" -le $((after - 86)) ] || rc=1
report "spend adds the seconds since its start" "$rc" "$out"
tap_summary >/dev/null
