#!/usr/bin/env python3
"""Print the CPU milliseconds a fixed loop takes on this host now.

scripts/vm.sh runs it every 5 s beside the host's load. The same loop at times takes
1.7 times as long with no load on this machine to show for it
(docs/host-speed-2026-12-05.md); report/report.py counts the slow samples and leaves
out the reps beside them. CPU time, not wall time: the QEMU beside it taking the CPU
does not count.

host_speed.py --wait-fast FILE SECONDS (guest/bench.sh, before each rep): wait up to
SECONDS while the newest sample in FILE, the host-load.tsv that scripts/vm.sh is
writing, is slow; print the seconds waited.

host_speed.py --slow-runs FILE RUN_JSON... (guest/bench.sh, after each round of reps):
wait up to 15 s for a sample past the last run's window, then print the runs that had a
slow sample beside them, by report/report.py's rule but with this boot's samples so far."""
import json
import sys
import time

LOOPS = 200_000
# A sample is slow beyond this factor of the 10th percentile of the samples.
SLOW_PROBE_FACTOR = 1.4
# With fewer samples than these (a minute's), the fast speed is not known yet.
MIN_SAMPLES = 12
# A rep with a slow sample within this many seconds of it (half scripts/vm.sh's sampling
# period) ran on a slow host: such reps measured 6-14 % lower (docs/host-speed-2026-12-05.md).
PROBE_WINDOW_S = 2.5
# --slow-runs waits at most this long for the sample that closes the last run's window.
CLOSING_SAMPLE_S = 15


def slow_probe_ms(samples):
    """The probe time (ms) over which a sample is slow, or None without samples."""
    every = sorted(samples)
    return SLOW_PROBE_FACTOR * every[len(every) // 10] if every else None


def read_samples(path):
    """The (host time s, probe ms) samples of a host-load.tsv taken while QEMU ran, oldest first."""
    samples = []
    with open(path) as f:
        next(f, None)
        for line in f:
            fields = line.rstrip("\n").split("\t")
            # A line still being written, a failed probe or no QEMU yet: not a sample.
            if not line.endswith("\n") or len(fields) != 6 or "-" in (fields[4], fields[5]):
                continue
            try:
                samples.append((float(fields[0]), float(fields[5])))
            except ValueError:
                continue
    return samples


def read_probes(path):
    """The probe samples (ms) of a host-load.tsv taken while QEMU ran, oldest first."""
    return [ms for _, ms in read_samples(path)]


def slow_beside(samples, start_s, end_s, slow_ms):
    """The slowest probe ms within PROBE_WINDOW_S of [start_s, end_s] if over slow_ms, else None."""
    beside = [ms for t, ms in samples if start_s - PROBE_WINDOW_S <= t <= end_s + PROBE_WINDOW_S]
    return max(beside) if beside and max(beside) > slow_ms else None


def wait_fast(path, max_s):
    """Wait up to max_s seconds while the newest sample in path is slow; the seconds waited."""
    start, slept = time.monotonic(), False
    while time.monotonic() - start < max_s:
        try:
            probes = read_probes(path)
        except OSError:
            break
        if len(probes) < MIN_SAMPLES or probes[-1] <= slow_probe_ms(probes):
            break
        time.sleep(1)
        slept = True
    return time.monotonic() - start if slept else 0.0


def slow_runs(path, run_files):
    """The run files (guest/bench.sh JSON) with a slow sample of path beside them."""
    spans = []
    for name in run_files:
        with open(name) as f:
            run = json.load(f)
        spans.append((name, run["before"]["t_ns"] / 1e9, run["after"]["t_ns"] / 1e9))
    closes = max(end for _, _, end in spans) + PROBE_WINDOW_S if spans else 0
    deadline = time.monotonic() + CLOSING_SAMPLE_S
    while True:
        samples = read_samples(path)
        if (samples and samples[-1][0] >= closes) or time.monotonic() >= deadline:
            break
        time.sleep(1)
    if len(samples) < MIN_SAMPLES:
        return []
    slow_ms = slow_probe_ms(ms for _, ms in samples)
    return [name for name, start, end in spans if slow_beside(samples, start, end, slow_ms)]


def probe_ms():
    start = time.process_time()
    total = 0
    for i in range(LOOPS):
        total += i
    return (time.process_time() - start) * 1e3


def main(argv):
    if len(argv) == 1:
        print(f"{probe_ms():.2f}")
        return 0
    if len(argv) == 4 and argv[1] == "--wait-fast":
        try:
            max_s = float(argv[3])
        except ValueError:
            max_s = -1.0
        if 0 <= max_s <= 3600:
            print(f"{wait_fast(argv[2], max_s):.1f}")
            return 0
    if len(argv) >= 3 and argv[1] == "--slow-runs":
        try:
            slow = slow_runs(argv[2], argv[3:])
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"host_speed.py: --slow-runs: {e}", file=sys.stderr)
            return 1
        for name in slow:
            print(name)
        return 0
    print("usage: host_speed.py [--wait-fast HOST_LOAD_TSV SECONDS(0-3600) | "
          "--slow-runs HOST_LOAD_TSV RUN_JSON...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
