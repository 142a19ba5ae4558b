# shellcheck shell=bash
# guest/bench.sh's budget for waits and runs again (BENCH_HOST_EXTRA_S). The caller sets
# HOST_WAIT_S, HOST_RETRIES, HOST_EXTRA_S, extra_spent (0), OUTDIR and HOST_SPEED.

# host_wait: wait up to HOST_WAIT_S, and no longer than the budget left, while
# scripts/vm.sh's newest host speed probe sample (OUTDIR/host-load.tsv) is slow; print
# the seconds waited.
host_wait() {
	if [ "$HOST_WAIT_S" -eq 0 ] || [ ! -r "$OUTDIR/host-load.tsv" ]; then
		echo 0.0
		return
	fi
	local cap=$((HOST_EXTRA_S - extra_spent))
	[ "$cap" -lt "$HOST_WAIT_S" ] || cap=$HOST_WAIT_S
	if [ "$cap" -le 0 ]; then
		echo 0.0
		return
	fi
	python3 -I -S "$HOST_SPEED" --wait-fast "$OUTDIR/host-load.tsv" "$cap"
}

# spend STARTED: count the seconds since STARTED (a $SECONDS) against HOST_EXTRA_S.
spend() {
	extra_spent=$((extra_spent + SECONDS - $1))
}

# extra_left: true while waits and runs again have spent less than HOST_EXTRA_S; says once
# when they have spent it.
extra_left() {
	[ "$extra_spent" -ge "$HOST_EXTRA_S" ] || return 0
	[ -n "${extra_said:-}" ] || [ $((HOST_WAIT_S + HOST_RETRIES)) -eq 0 ] ||
		echo "bench.sh: waits and runs again took ${extra_spent}s of ${HOST_EXTRA_S}s (BENCH_HOST_EXTRA_S); no more of either this boot" >&2
	extra_said=1
	return 1
}
