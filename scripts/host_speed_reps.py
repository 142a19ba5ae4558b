#!/usr/bin/env python3
"""Do the reps taken beside a slow host speed probe sample measure lower?

usage: scripts/host_speed_reps.py RESULTS_DIR...

RESULTS_DIR is a `make bench` run (raw/, raw-<boot>/, <boot>-host-load.tsv) or one
scripts/vm.sh boot of guest/bench.sh (raw/, host-load.tsv). Reps are split as
report/report.py splits them (a slow probe sample within its PROBE_WINDOW_S of the rep),
and each rep's IOPS (walks per second for the metadata walk) is divided by the median of
the other reps of its workload and mode in the same boot that had no slow sample beside
them; a rep with no such other rep is skipped. Prints both groups, the ratio of their
medians with a 95 % bootstrap interval (which takes the reps as independent, though one
slow stretch often touches neighbouring reps, so it is too narrow if anything), and how
many of the samples taken during each mode's reps were slow."""
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import report  # noqa: E402


def speed(run):
    m = report.run_metrics(run)
    if m.get("iops"):
        return m["iops"]
    walk = run.get("walk_s")
    return 1 / statistics.mean(walk) if walk else None


def rep_ratios(runs, host_load, samples):
    """[(ratio to the other unslowed reps, beside a slow sample)], and how many reps had
    no unslowed other rep."""
    groups = {}
    for run in runs:
        value = speed(run)
        if value is None or "t_ns" not in run["before"]:
            continue
        slow = report.slow_host_fault(run, host_load, samples) is not None
        key = (report.host_load_boot(run), run["workload"], run["mode"])
        groups.setdefault(key, []).append((value, slow))
    ratios, skipped = [], 0
    for group in groups.values():
        for i, (value, slow) in enumerate(group):
            others = [o for j, (o, o_slow) in enumerate(group) if j != i and not o_slow]
            if others and statistics.median(others) > 0:
                ratios.append((value / statistics.median(others), slow))
            else:
                skipped += 1
    return ratios, skipped


def slow_by_mode(runs, host_load, samples):
    """{mode: [slow samples, samples]} over the samples taken during a rep of the mode."""
    counts = {}
    for run in runs:
        boot = report.host_load_boot(run)
        start, end = run["before"].get("t_ns"), run["after"].get("t_ns")
        if boot not in samples or start is None or end is None:
            continue
        during = [ms for t, ms in samples[boot] if start / 1e9 <= t <= end / 1e9]
        c = counts.setdefault(run["mode"], [0, 0])
        c[0] += sum(ms > host_load[boot]["probe_slow_ms"] for ms in during)
        c[1] += len(during)
    return counts


def interval(a, b, rounds=4000):
    rng = random.Random(1)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) /
                    statistics.median(rng.choices(b, k=len(b))) for _ in range(rounds))
    return ratios[rounds // 40], ratios[rounds - rounds // 40 - 1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    ratios, skipped, modes = [], 0, {}
    for results_dir in sys.argv[1:]:
        try:
            runs = report.load_runs(results_dir)
            host_load, samples = report.load_host_load(results_dir, 1)
        except report.BadInput as e:
            sys.exit(f"host_speed_reps.py: {e}")
        every = [ms for s in samples.values() for _, ms in s]
        if not every:
            sys.exit(f"host_speed_reps.py: {results_dir}: no host speed probe samples")
        slow_ms = next(iter(host_load.values()))["probe_slow_ms"]
        print(f"{results_dir}: slow over {slow_ms:.2f} ms; "
              f"{100 * sum(ms > slow_ms for ms in every) / len(every):.0f} % of {len(every)} "
              "samples slow")
        r, s = rep_ratios(runs, host_load, samples)
        ratios += r
        skipped += s
        for mode, (n_slow, n) in slow_by_mode(runs, host_load, samples).items():
            modes.setdefault(mode, [0, 0])
            modes[mode][0] += n_slow
            modes[mode][1] += n
    slow = [x for x, is_slow in ratios if is_slow]
    fast = [x for x, is_slow in ratios if not is_slow]
    print(f"reps: {len(ratios) + skipped}, {skipped} skipped (no unslowed other rep of their mode)")
    for name, group in (("beside a slow sample", slow), ("not", fast)):
        if group:
            print(f"reps {name}: n={len(group)}, IOPS ÷ the other unslowed reps' median: "
                  f"median {statistics.median(group):.3f}, mean {statistics.mean(group):.3f}")
    if slow and fast:
        lo, hi = interval(slow, fast)
        print(f"ratio of the medians {statistics.median(slow) / statistics.median(fast):.3f} "
              f"[{lo:.3f}, {hi:.3f}]")
    print("slow samples during each mode's reps: " +
          ", ".join(f"{mode} {n_slow}/{n}" for mode, (n_slow, n) in sorted(modes.items())))


if __name__ == "__main__":
    main()
