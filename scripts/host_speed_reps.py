#!/usr/bin/env python3
"""Do the reps taken beside a slow host speed probe sample measure lower?

usage: scripts/host_speed_reps.py RESULTS_DIR...

RESULTS_DIR is a `make bench` run (raw/, raw-<boot>/, <boot>-host-load.tsv) or one
scripts/vm.sh boot of guest/bench.sh (raw/, host-load.tsv). Reps are split by whether a
probe sample within 2.5 s of them was slow (over 1.4 times the
run's 10th percentile, as report/report.py counts them), and each rep's IOPS is divided
by the median of the other reps of its workload and mode in the same boot that had no
slow sample beside them. Prints both groups and the ratio of their medians with a 95 %
bootstrap interval."""
import glob
import json
import os
import random
import statistics
import sys

SLOW_PROBE_FACTOR = 1.4
WINDOW_S = 2.5


def probe_samples(path):
    with open(path) as f:
        lines = [line.split("\t") for line in f.read().splitlines()[1:] if line.strip()]
    return [(int(a[0]), float(a[5])) for a in lines if len(a) == 6 and a[4] != "-" and a[5] != "-"]


def boots(results_dir):
    """(raw dir, probe samples) per boot of a results dir."""
    for path in sorted(glob.glob(os.path.join(results_dir, "*host-load.tsv"))):
        name = os.path.basename(path)[:-len("host-load.tsv")].rstrip("-")
        raw = os.path.join(results_dir, "raw" if name in ("", "main") else "raw-" + name)
        yield raw, probe_samples(path)


def reps(raw, probes, slow_ms):
    """(IOPS, or walks per second, ÷ the median of the other reps with no slow probe
    sample beside them, slow probe beside it) per rep."""
    runs = {}
    for path in glob.glob(os.path.join(raw, "*__r*.json")):
        if path.endswith(".fio.json"):
            continue
        with open(path) as f:
            stats = json.load(f)
        if stats.get("fio_file"):
            with open(os.path.join(raw, stats["fio_file"])) as f:
                job = json.load(f)["jobs"][0]
            speed = job["read"]["iops"] + job["write"]["iops"]
        elif stats.get("walk_s"):
            speed = 1 / statistics.mean(stats["walk_s"])  # walks per second
        else:
            continue
        start, end = stats["before"]["t_ns"] / 1e9, stats["after"]["t_ns"] / 1e9
        beside = [p for t, p in probes if start - WINDOW_S <= t <= end + WINDOW_S]
        if not beside:
            continue
        key = tuple(os.path.basename(path).split("__")[:2])
        runs.setdefault(key, []).append((speed, max(beside) > slow_ms))
    for group in runs.values():
        for i, (iops, slow) in enumerate(group):
            others = [o for j, (o, o_slow) in enumerate(group) if j != i and not o_slow]
            if others and statistics.median(others) > 0:
                yield iops / statistics.median(others), slow


def interval(a, b, rounds=4000):
    rng = random.Random(1)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) /
                    statistics.median(rng.choices(b, k=len(b))) for _ in range(rounds))
    return ratios[rounds // 40], ratios[rounds - rounds // 40 - 1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    slow, fast = [], []
    for results_dir in sys.argv[1:]:
        found = list(boots(results_dir))
        every = sorted(p for _, probes in found for _, p in probes)
        if not every:
            sys.exit(f"host_speed_reps.py: {results_dir}: no host speed probe samples")
        slow_ms = SLOW_PROBE_FACTOR * every[len(every) // 10]
        share = sum(p > slow_ms for p in every) / len(every)
        print(f"{results_dir}: probe 10th percentile {every[len(every) // 10]:.2f} ms, "
              f"{100 * share:.0f} % of {len(every)} samples slow")
        for raw, probes in found:
            for ratio, is_slow in reps(raw, probes, slow_ms):
                (slow if is_slow else fast).append(ratio)
    for name, group in (("beside a slow sample", slow), ("not", fast)):
        if group:
            print(f"reps {name}: n={len(group)}, IOPS ÷ the other unslowed reps' median: "
                  f"median {statistics.median(group):.3f}, mean {statistics.mean(group):.3f}")
    if slow and fast:
        lo, hi = interval(slow, fast)
        print(f"ratio of the medians {statistics.median(slow) / statistics.median(fast):.3f} "
              f"[{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()
