#!/usr/bin/env python3
"""Turn iopoll benchmark results into results.json, report.md and latency.png.

usage: report.py RESULTS_DIR

RESULTS_DIR holds raw*/ (written by guest/bench.sh: raw/ from the main boot,
raw-idlepoll/ from the idle=poll boot, raw-stock/ from the boot of stock 6.12 without the
series), optional env*.json from the guest and
meta.json from the host. Python 3 standard library only; gnuplot is optional.
"""
import glob
import json
import operator
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from host_speed import PROBE_WINDOW_S, SLOW_PROBE_FACTOR, slow_beside, slow_probe_ms  # noqa: E402

WORKLOADS = ["psync_qd1_randread", "psync_qd1_randwrite", "buffered_randread",
             "metadata_walk", "libaio_qd32_randread", "libaio_qd128_randread",
             "uring_qd32_randread", "uring_qd128_randread", "corunner",
             "virtio_psync_qd1_randread", "virtio_buffered_randread"]
MODES = ["off", "on", "irqsuppress", "napi", "iopoll", "hipri", "idlepoll", "stock",
         "stock_iopoll", "stock_hipri"]
MODE_LABELS = {"off": "off (IRQ)", "on": "on (iowait_poll)",
               "irqsuppress": "irqsuppress (spin, IRQ masked)",
               "napi": "napi (reap on submit, IRQ moderated)",
               "iopoll": "io_uring IOPOLL", "idlepoll": "off, idle=poll boot",
               "hipri": "RWF_HIPRI, iowait_poll off",
               "stock": "stock 6.12 (IRQ)", "stock_iopoll": "stock 6.12, io_uring IOPOLL",
               "stock_hipri": "stock 6.12, RWF_HIPRI"}
EXITS = ["exit_woken", "exit_reaped", "exit_resched", "exit_busy",
         "exit_budget", "exit_signal", "exit_error"]
PERCENTILES = {"p50": 50.0, "p99": 99.0, "p99.9": 99.9}
# /proc/stat cpu columns counted as busy: user nice system irq softirq.
BUSY_COLUMNS = [0, 1, 2, 5, 6]
# Interrupt moderation rows (issue 14 item 7): engine key, label, depths; and the fields
# compared napi ÷ off (summary name, row field, label).
MODERATION_ENGINES = [("libaio", "libaio"), ("uring", "io_uring (no IOPOLL)")]
MODERATION_DEPTHS = [32, 128]
MODERATION_FIELDS = [("iops", "iops", "IOPS"), ("cpu_per_io", "cpu_us_per_io", "CPU µs/IO"),
                     ("irq_per_io", "irq_per_io", "IRQs/IO"),
                     ("ctx_per_io", "ctx_per_io", "context switches/IO")]


def moderation_key(engine, depth, field):
    """The summary key of a napi ÷ off ratio; libaio QD32's targets keep the issue's names."""
    if (engine, depth) == ("libaio", 32) and field != "irq_per_io":
        return f"moderation_qd32_{field}_vs_off"
    return f"moderation_{engine}_qd{depth}_{field}_vs_off"


# (summary key, what it is, goal or None); a goal is (comparison, threshold),
# the comparison one of GOAL_OPS.
GOAL_OPS = {">=": (operator.ge, "≥"), "<=": (operator.le, "≤"), ">": (operator.gt, ">")}
SUMMARY = [
    ("psync_qd1_on_vs_off", "psync QD1 randread IOPS, on ÷ off", (">=", 1.7)),
    ("psync_qd1_on_vs_iopoll", "psync QD1 randread IOPS, on ÷ io_uring IOPOLL", (">=", 0.85)),
    ("nosleep_share_psync_qd1", "psync QD1 on: polled waits that ended without sleeping", (">=", 0.90)),
    ("buffered_on_vs_off", "buffered cold randread IOPS, on ÷ off", (">=", 1.4)),
    ("metadata_off_vs_on", "ext4 metadata walk time, off ÷ on", (">=", 1.25)),
    ("libaio_qd32_on_vs_off", "libaio QD32 randread IOPS, on ÷ off", (">=", 0.98)),
    ("corunner_on_vs_off", "co-runner iterations/s, on ÷ off", (">=", 0.95)),
    ("psync_qd1_irqsuppress_vs_iopoll", "psync QD1 randread IOPS, irqsuppress ÷ io_uring IOPOLL",
     (">=", 0.95)),
    ("psync_qd1_irqsuppress_vs_off", "psync QD1 randread IOPS, irqsuppress ÷ off", (">=", 2.0)),
    ("buffered_irqsuppress_vs_off", "buffered cold randread IOPS, irqsuppress ÷ off", (">=", 1.55)),
    ("irqsuppress_buffered_vs_spin", "buffered cold randread IOPS, irqsuppress ÷ on: no worse than "
     "plain spin, within run-to-run noise (3 %)", (">=", 0.97)),
    ("napi_qd32_gain", "libaio QD32 randread with napi: the better of IOPS napi ÷ off and "
     "CPU µs/IO off ÷ napi (goal: one of the two improves)", (">", 1.0)),
    ("napi_qd1_vs_off", "psync QD1 randread IOPS, napi ÷ off: never regresses, "
     "within run-to-run noise (3 %)", (">=", 0.97)),
    ("psync_qd1_iopoll_vs_off", "psync QD1 randread IOPS, io_uring IOPOLL ÷ off: the host's polling "
     "headroom in this run (1.49-1.93 from 2026-12-02 to 12-04, and spin ÷ off moved with it)", None),
    ("psync_qd1_on_vs_idlepoll", "psync QD1 on IOPS ÷ IRQ IOPS of the idle=poll boot", None),
    ("reaped_share_psync_qd1", "psync QD1 on: completions reaped by the poller", None),
    ("psync_qd1_randwrite_on_vs_off", "psync QD1 randwrite IOPS, on ÷ off", None),
    ("corunner_fio_on_vs_off", "fio IOPS beside the co-runner, on ÷ off", None),
    ("napi_qd32_vs_off", "libaio QD32 randread IOPS, napi ÷ off", None),
    ("napi_qd32_cpu_off_vs_napi", "libaio QD32 randread CPU µs/IO, off ÷ napi", None),
    ("irq_per_io_irqsuppress_psync_qd1", "psync QD1 irqsuppress: IRQs per I/O", None),
    # Interrupt moderation (napi: the submission pass plus irq_poll), issue 14 item 7.
    ("moderation_qd32_cpu_per_io_vs_off", "libaio QD32 randread CPU µs/IO, napi ÷ off "
     "(with the two targets below)", ("<=", 0.85)),
    ("moderation_qd32_iops_vs_off", "libaio QD32 randread IOPS, napi ÷ off", (">=", 0.98)),
    ("moderation_qd32_ctx_per_io_vs_off", "libaio QD32 randread context switches per I/O, "
     "napi ÷ off", ("<=", 1.0)),
] + [(moderation_key(engine, depth, field), f"{label} QD{depth} randread {what}, napi ÷ off", None)
     for engine, label in MODERATION_ENGINES for depth in MODERATION_DEPTHS
     for field, _, what in MODERATION_FIELDS
     if (engine, depth) != ("libaio", 32) or field == "irq_per_io"] + [
    (f"off_vs_stock_{engine}_qd{depth}", f"{label} QD{depth} randread IOPS, off ÷ stock 6.12",
     (">=", 0.98))
    for engine, label in MODERATION_ENGINES for depth in MODERATION_DEPTHS
    if (engine, depth) != ("libaio", 32)] + [
    # The series with its knobs off against stock 6.12 (another boot): no cost when off.
    ("off_vs_stock_psync_qd1", "psync QD1 randread IOPS, off ÷ stock 6.12", (">=", 0.98)),
    ("iopoll_vs_stock_psync_qd1", "psync QD1 randread io_uring IOPOLL IOPS, series ÷ stock 6.12",
     (">=", 0.98)),
    ("off_vs_stock_psync_qd1_randwrite", "psync QD1 randwrite IOPS, off ÷ stock 6.12", (">=", 0.98)),
    ("off_vs_stock_buffered", "buffered cold randread IOPS, off ÷ stock 6.12", (">=", 0.98)),
    ("off_vs_stock_metadata", "ext4 metadata walk speed, off ÷ stock 6.12 (stock time ÷ off time)",
     (">=", 0.98)),
    ("off_vs_stock_libaio_qd32", "libaio QD32 randread IOPS, off ÷ stock 6.12", (">=", 0.98)),
    ("off_vs_stock_corunner", "co-runner iterations/s, off ÷ stock 6.12", (">=", 0.98)),
    ("on_vs_stock_psync_qd1", "psync QD1 randread IOPS, on ÷ stock 6.12", None),
    # virtio-blk (on null-co, like the NVMe main disk).
    ("virtio_psync_qd1_on_vs_off", "virtio-blk psync QD1 randread IOPS, on ÷ off", None),
    ("virtio_vs_nvme_psync_qd1_gain", "psync QD1 randread, the on ÷ off gain of virtio-blk ÷ "
     "that of NVMe in the same boot (goal: virtio-blk gains at least as much)", (">=", 1.0)),
    ("virtio_buffered_on_vs_off", "virtio-blk buffered cold randread IOPS, on ÷ off", (">=", 1.2)),
    ("virtio_irqsuppress_vs_on_psync_qd1", "virtio-blk psync QD1 randread IOPS, irqsuppress "
     "(callback off while polling) ÷ on", None),
    ("virtio_irq_per_io_irqsuppress_psync_qd1", "virtio-blk psync QD1 irqsuppress: IRQs per I/O", None),
    ("virtio_reaped_share_psync_qd1", "virtio-blk psync QD1 on: completions reaped by the poller",
     None),
    ("off_vs_stock_virtio_psync_qd1", "virtio-blk psync QD1 randread IOPS, off ÷ stock 6.12",
     (">=", 0.98)),
    ("irqsuppress_vs_stock_psync_qd1", "psync QD1 randread IOPS, irqsuppress ÷ stock 6.12", None),
    # Synchronous RWF_HIPRI (fio pvsync2 --hipri=1) with the disk's knobs off.
    ("hipri_vs_off_psync_qd1", "psync QD1 randread IOPS, RWF_HIPRI with iowait_poll off ÷ off", None),
    ("hipri_vs_on_psync_qd1", "psync QD1 randread IOPS, RWF_HIPRI with iowait_poll off ÷ on "
     "(goal: HIPRI ÷ off at least on ÷ off of the same boot)", (">=", 1.0)),
    ("hipri_vs_stock_psync_qd1", "psync QD1 randread RWF_HIPRI IOPS, series ÷ stock 6.12 "
     "(which ignores the flag on synchronous I/O)", None),
    ("nosleep_share_hipri_psync_qd1", "psync QD1 RWF_HIPRI: polled waits that ended without "
     "sleeping", None),
]
# Bootstrap: resamples of the reps (the same reps for every mode of a boot, so the ratios
# stay paired), the interval's coverage, and a fixed seed so that a report is reproducible.
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_SEED = 20261201
# Fewer reps than this in any boot give no interval: a resample of one or two reps says
# nothing about the noise.
BOOTSTRAP_MIN_REPS = 3
# A boot ran on a busy host when processes other than its QEMU took, on average, more than
# this many host CPUs (a kernel build beside it takes about 2).
BUSY_HOST_CPUS = 0.2
# scripts/host_speed.py's loop: a sample is slow beyond its SLOW_PROBE_FACTOR times the
# run's 10th percentile, and a rep with a slow sample within its PROBE_WINDOW_S of it is
# left out (host_speed.slow_beside). Rep times are the guest's clock, sample times the
# host's: the guest's is set from the host's at boot. A failed probe ('-') leaves the reps
# beside it in.
# A rep whose own clock says it ran outside this factor of the runtime asked for
# (or longer than an hour) saw the guest clock jump, as one rep did on 2026-12-04 on a
# host booted with tsc=unstable.  Such a rep is left out.
CLOCK_TOLERANCE = 2.0
MAX_REP_WALL_S = 3600

# Facts the report must show (or say "unknown"), with the meta.json keys that may hold them.
META_FACTS = {"kernel": ["kernel_version", "kernel_series", "kernel_base", "kernel"],
              "qemu": ["qemu_version", "qemu"], "accel": ["accel"], "vcpus": ["vcpus"],
              "backend": ["backend"], "commands": ["commands"]}


class BadInput(Exception):
    pass


# ---- loading ----------------------------------------------------------------

def load_json(path, tolerate_prefix=False):
    """Parse a JSON file; fio may print notes before its JSON, so skip those if asked."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if tolerate_prefix and not text.lstrip().startswith("{"):
            start = text.find("\n{")
            text = text[start + 1:] if start >= 0 else text
        return json.loads(text)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: cannot read JSON: {e}") from e


def load_runs(results_dir):
    """Every run under results_dir/raw*/, each with its fio json+ output whole."""
    if not os.path.isdir(results_dir):
        raise BadInput(f"{results_dir}: no such directory")
    runs = []
    for raw_dir in sorted(glob.glob(os.path.join(results_dir, "raw*"))):
        if not os.path.isdir(raw_dir):
            continue
        for path in sorted(glob.glob(os.path.join(raw_dir, "*.json"))):
            if path.endswith(".fio.json"):
                continue
            run = load_json(path)
            if not isinstance(run, dict):
                raise BadInput(f"{path}: not a JSON object")
            for key in ("workload", "mode", "rep", "before", "after"):
                if key not in run:
                    raise BadInput(f"{path}: missing field '{key}'")
            if run.get("fio_file"):
                fio = load_json(os.path.join(raw_dir, run["fio_file"]), tolerate_prefix=True)
                if not fio.get("jobs"):
                    raise BadInput(f"{run['fio_file']}: fio output without jobs")
                run["fio"] = fio
            run["source"] = os.path.relpath(path, results_dir)
            runs.append(run)
    if not runs:
        raise BadInput(f"{results_dir}: no runs found in raw*/ (expected <workload>__<mode>__r<rep>.json)")
    return runs


def load_host_load(results_dir, host_cpus):
    """Per boot, from <boot>-host-load.tsv (scripts/vm.sh): the CPUs that processes other
    than QEMU used on average over the boot, QEMU's own, the host load before and after,
    and the host speed probe's median and share of slow samples (files from before
    2026-12-05 have no probe column). Also, per boot, the probe's (time, ms) samples."""
    boots, probe_samples = {}, {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*host-load.tsv"))):
        name = os.path.basename(path)[:-len("host-load.tsv")].rstrip("-") or "main"
        try:
            with open(path) as f:
                lines = [line.split("\t") for line in f.read().splitlines()[1:] if line.strip()]
            if any(len(fields) not in (5, 6) for fields in lines):
                raise ValueError("a line without 5 or 6 fields")
            samples = [(float(fields[0]), float(fields[1]), int(fields[2]), int(fields[3]),
                        int(fields[4])) for fields in lines if fields[4] != "-"]
            loads = [float(fields[1]) for fields in lines]
            probes = [(fields[4] != "-", float(fields[0]), float(fields[5])) for fields in lines
                      if len(fields) == 6 and fields[5] != "-"]
            # Only while QEMU ran: the samples before and after it are outside the reps.
            probe_samples[name] = [(t, ms) for qemu_ran, t, ms in probes if qemu_ran]
        except (OSError, ValueError) as e:
            raise BadInput(f"{path}: malformed host load samples: {e}") from e
        if len(samples) < 2:
            raise BadInput(f"{path}: fewer than two host load samples with QEMU running")
        (t0, _, busy0, total0, qemu0), (t1, _, busy1, total1, qemu1) = samples[0], samples[-1]
        # /proc/stat counts jiffies of all CPUs: CPUs used = jiffies ÷ (elapsed jiffies per CPU).
        per_cpu = (total1 - total0) / host_cpus if total1 > total0 else None
        other = max(0.0, (busy1 - busy0) - (qemu1 - qemu0)) / per_cpu if per_cpu else None
        boots[name] = {
            "seconds": t1 - t0,
            "other_cpus": other,
            "qemu_cpus": (qemu1 - qemu0) / per_cpu if per_cpu else None,
            "load1_before": loads[0],
            "load1_after": loads[-1],
            "busy": other is None or other > BUSY_HOST_CPUS,
        }
    slow_ms = slow_probe_ms(ms for samples in probe_samples.values() for _, ms in samples)
    for name, b in boots.items():
        probes = [ms for _, ms in probe_samples[name]]
        b["probe_ms_median"] = statistics.median(probes) if probes else None
        b["probe_slow_ms"] = slow_ms
        b["probe_slow_share"] = (sum(p > slow_ms for p in probes) / len(probes)
                                 if probes else None)
    return boots, probe_samples


def load_meta(results_dir):
    path = os.path.join(results_dir, "meta.json")
    meta = load_json(path) if os.path.exists(path) else {}
    if not isinstance(meta, dict):
        raise BadInput(f"{path}: not a JSON object")
    guest = {}
    for env_path in sorted(glob.glob(os.path.join(results_dir, "env*.json"))):
        guest[os.path.basename(env_path)] = load_json(env_path)
    return meta, guest


# ---- per-run numbers --------------------------------------------------------

def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def fio_job(run):
    return run["fio"]["jobs"][0] if "fio" in run else None


def fio_main_direction(job):
    """The fio direction ("read"/"write") that did the I/O."""
    return max(("read", "write", "trim"), key=lambda d: job.get(d, {}).get("total_ios", 0))


def clat_percentiles_us(job):
    pct = job[fio_main_direction(job)].get("clat_ns", {}).get("percentile", {})
    out = {}
    for name, want in PERCENTILES.items():
        out[name] = next((v / 1000.0 for k, v in pct.items() if abs(float(k) - want) < 1e-6), None)
    return out


def run_metrics(run):
    """Per-I/O costs, poll shares and the row's main result for one run."""
    before, after = run["before"], run["after"]
    m = {}
    job = fio_job(run)
    if job:
        m["iops"] = sum(job.get(d, {}).get("iops", 0.0) for d in ("read", "write", "trim"))
        m["clat_us"] = clat_percentiles_us(job)
        lat_mean = job[fio_main_direction(job)].get("lat_ns", {}).get("mean")
        m["lat_mean_us"] = lat_mean / 1000.0 if lat_mean is not None else None
    # I/O count over the same window as the other counters: the disk's own stat
    # (reads + writes completed), else fio's count.
    ios = None
    if "diskstat" in before and "diskstat" in after:
        ios = sum(after["diskstat"][i] - before["diskstat"][i] for i in (0, 4))
    if not ios and job:
        ios = sum(job.get(d, {}).get("total_ios", 0) for d in ("read", "write", "trim"))
    m["ios"] = ios or None

    clk_tck = run.get("clk_tck", 100)
    if "cpu_jiffies" in before and "cpu_jiffies" in after:
        busy = sum(after["cpu_jiffies"][i] - before["cpu_jiffies"][i] for i in BUSY_COLUMNS)
        m["cpu_us_per_io"] = ratio(busy * 1e6 / clk_tck, m["ios"])
    if "ctxt" in before:
        m["ctx_per_io"] = ratio(after["ctxt"] - before["ctxt"], m["ios"])
    if "irqs" in before:
        m["irq_per_io"] = ratio(after["irqs"] - before["irqs"], m["ios"])
    if "t_ns" in before:
        m["wall_s"] = (after["t_ns"] - before["t_ns"]) / 1e9

    stats0, stats1 = before.get("poll_stats", {}), after.get("poll_stats", {})
    # budget_ns is not a counter: the budget waits ran with at the end (learned or set).
    delta = {k: stats1[k] - stats0.get(k, 0) for k in stats1 if k != "budget_ns"}
    m["poll_delta"] = delta
    m["budget_us_end"] = stats1["budget_ns"] / 1000 if "budget_ns" in stats1 else None
    waits = delta.get("waits", 0)
    if waits:
        m["nosleep_share"] = sum(delta.get(k, 0) for k in ("exit_woken", "exit_reaped", "exit_signal")) / waits
        m["exit_shares"] = {k: delta.get(k, 0) / waits for k in EXITS}
    else:
        m["nosleep_share"] = None
        m["exit_shares"] = {}
    m["reaped_share"] = ratio(delta.get("reaped", 0), m["ios"]) if delta else None
    m["submit_reaped_share"] = ratio(delta["submit_reaped"], m["ios"]) if "submit_reaped" in delta else None

    if run.get("walk_s"):
        m["walk_s"] = statistics.mean(run["walk_s"])
    if "corunner_iterations" in run:
        m["corunner_iter_per_s"] = ratio(run["corunner_iterations"], run.get("corunner_s"))
    return m


def clock_fault(run):
    """Why a rep's own clock cannot be trusted, or None."""
    m = run["metrics"]
    job = fio_job(run)
    wanted = run.get("runtime_s")
    ran_ms = job.get("job_runtime") if job else None
    if wanted and ran_ms and not 1 / CLOCK_TOLERANCE <= ran_ms / (1000 * wanted) <= CLOCK_TOLERANCE:
        return f"fio measured {ran_ms / 1000:,.1f} s of a {wanted} s run: the guest clock jumped"
    if m.get("wall_s") is not None and not 0 <= m["wall_s"] <= MAX_REP_WALL_S:
        return f"the rep took {m['wall_s']:,.0f} s by the guest clock: the guest clock jumped"
    return None


def host_load_boot(run):
    """The boot whose host load file covers a run: raw/ is main's, raw-stock-2/ stock-2's."""
    raw_dir = os.path.basename(os.path.dirname(run["source"]))
    return raw_dir[len("raw-"):] if raw_dir.startswith("raw-") else "main"


def slow_host_fault(run, host_load, probe_samples):
    """Why a rep ran beside a slow host speed probe sample, or None."""
    boot = host_load_boot(run)
    samples = probe_samples.get(boot)
    start, end = run["before"].get("t_ns"), run["after"].get("t_ns")
    if not samples or start is None or end is None:
        return None
    slow_ms = host_load[boot]["probe_slow_ms"]
    slowest = slow_beside(samples, start / 1e9, end / 1e9, slow_ms)
    if slowest is not None:
        return (f"the host speed probe took {slowest:.1f} ms beside it (slow: over "
                f"{slow_ms:.1f} ms)")
    return None


# ---- rows and summary -------------------------------------------------------

def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def order_key(workload, mode):
    w = WORKLOADS.index(workload) if workload in WORKLOADS else len(WORKLOADS)
    m = MODES.index(mode) if mode in MODES else len(MODES)
    return (w, workload, m, mode)


def make_rows(runs):
    groups = {}
    for run in runs:
        groups.setdefault((run["workload"], run["mode"]), []).append(run)
    rows = []
    for (workload, mode) in sorted(groups, key=lambda k: order_key(*k)):
        ms = [r["metrics"] for r in groups[(workload, mode)]]
        rows.append({
            "workload": workload,
            "mode": mode,
            "boot": groups[(workload, mode)][0].get("boot", "unknown"),
            "reps": len(ms),
            "iops": spread(m.get("iops") for m in ms),
            "clat_us": {p: median_of(m.get("clat_us", {}).get(p) for m in ms) for p in PERCENTILES},
            "lat_mean_us": median_of(m.get("lat_mean_us") for m in ms),
            "cpu_us_per_io": median_of(m.get("cpu_us_per_io") for m in ms),
            "ctx_per_io": median_of(m.get("ctx_per_io") for m in ms),
            "irq_per_io": median_of(m.get("irq_per_io") for m in ms),
            "nosleep_share": median_of(m.get("nosleep_share") for m in ms),
            "reaped_share": median_of(m.get("reaped_share") for m in ms),
            "submit_reaped_share": median_of(m.get("submit_reaped_share") for m in ms),
            "exit_shares": {k: median_of(m["exit_shares"].get(k) for m in ms) for k in EXITS},
            "budget_us_end": median_of(m.get("budget_us_end") for m in ms),
            "walk_s": spread(m.get("walk_s") for m in ms),
            "corunner_iter_per_s": spread(m.get("corunner_iter_per_s") for m in ms),
        })
    return rows


def find_row(rows, workload, mode):
    return next((r for r in rows if r["workload"] == workload and r["mode"] == mode), None)


def row_value(rows, workload, mode, field):
    """The median of a row's field; None if the row or the field is missing."""
    row = find_row(rows, workload, mode)
    value = row.get(field) if row else None
    return value["median"] if isinstance(value, dict) else value


def make_summary(rows):
    def iops(w, m):
        return row_value(rows, w, m, "iops")

    def cpu(w, m):
        return row_value(rows, w, m, "cpu_us_per_io")
    p, q32, buf = "psync_qd1_randread", "libaio_qd32_randread", "buffered_randread"
    napi_iops = ratio(iops(q32, "napi"), iops(q32, "off"))
    napi_cpu = ratio(cpu(q32, "off"), cpu(q32, "napi"))
    vp, vbuf = "virtio_psync_qd1_randread", "virtio_buffered_randread"
    virtio_gain = ratio(iops(vp, "on"), iops(vp, "off"))
    moderation = {}
    for engine, _ in MODERATION_ENGINES:
        for depth in MODERATION_DEPTHS:
            w = f"{engine}_qd{depth}_randread"
            for field, row_field, _ in MODERATION_FIELDS:
                moderation[moderation_key(engine, depth, field)] = ratio(
                    row_value(rows, w, "napi", row_field), row_value(rows, w, "off", row_field))
            if (engine, depth) != ("libaio", 32):
                moderation[f"off_vs_stock_{engine}_qd{depth}"] = ratio(iops(w, "off"), iops(w, "stock"))
    return moderation | {
        "psync_qd1_on_vs_off": ratio(iops(p, "on"), iops(p, "off")),
        "psync_qd1_on_vs_iopoll": ratio(iops(p, "on"), iops(p, "iopoll")),
        "nosleep_share_psync_qd1": row_value(rows, p, "on", "nosleep_share"),
        "buffered_on_vs_off": ratio(iops("buffered_randread", "on"), iops("buffered_randread", "off")),
        "metadata_off_vs_on": ratio(row_value(rows, "metadata_walk", "off", "walk_s"),
                                    row_value(rows, "metadata_walk", "on", "walk_s")),
        "libaio_qd32_on_vs_off": ratio(iops("libaio_qd32_randread", "on"), iops("libaio_qd32_randread", "off")),
        "corunner_on_vs_off": ratio(row_value(rows, "corunner", "on", "corunner_iter_per_s"),
                                    row_value(rows, "corunner", "off", "corunner_iter_per_s")),
        "psync_qd1_iopoll_vs_off": ratio(iops(p, "iopoll"), iops(p, "off")),
        "psync_qd1_on_vs_idlepoll": ratio(iops(p, "on"), iops(p, "idlepoll")),
        "reaped_share_psync_qd1": row_value(rows, p, "on", "reaped_share"),
        "psync_qd1_randwrite_on_vs_off": ratio(iops("psync_qd1_randwrite", "on"), iops("psync_qd1_randwrite", "off")),
        "corunner_fio_on_vs_off": ratio(iops("corunner", "on"), iops("corunner", "off")),
        "psync_qd1_irqsuppress_vs_iopoll": ratio(iops(p, "irqsuppress"), iops(p, "iopoll")),
        "psync_qd1_irqsuppress_vs_off": ratio(iops(p, "irqsuppress"), iops(p, "off")),
        "buffered_irqsuppress_vs_off": ratio(iops(buf, "irqsuppress"), iops(buf, "off")),
        "irqsuppress_buffered_vs_spin": ratio(iops(buf, "irqsuppress"), iops(buf, "on")),
        "napi_qd32_vs_off": napi_iops,
        "napi_qd32_cpu_off_vs_napi": napi_cpu,
        "napi_qd32_gain": max(napi_iops, napi_cpu) if None not in (napi_iops, napi_cpu) else None,
        "napi_qd1_vs_off": ratio(iops(p, "napi"), iops(p, "off")),
        "irq_per_io_irqsuppress_psync_qd1": row_value(rows, p, "irqsuppress", "irq_per_io"),
        "off_vs_stock_psync_qd1": ratio(iops(p, "off"), iops(p, "stock")),
        "iopoll_vs_stock_psync_qd1": ratio(iops(p, "iopoll"), iops(p, "stock_iopoll")),
        "hipri_vs_off_psync_qd1": ratio(iops(p, "hipri"), iops(p, "off")),
        "hipri_vs_on_psync_qd1": ratio(iops(p, "hipri"), iops(p, "on")),
        "hipri_vs_stock_psync_qd1": ratio(iops(p, "hipri"), iops(p, "stock_hipri")),
        "nosleep_share_hipri_psync_qd1": row_value(rows, p, "hipri", "nosleep_share"),
        "off_vs_stock_psync_qd1_randwrite": ratio(iops("psync_qd1_randwrite", "off"),
                                                  iops("psync_qd1_randwrite", "stock")),
        "off_vs_stock_buffered": ratio(iops(buf, "off"), iops(buf, "stock")),
        "off_vs_stock_metadata": ratio(row_value(rows, "metadata_walk", "stock", "walk_s"),
                                       row_value(rows, "metadata_walk", "off", "walk_s")),
        "off_vs_stock_libaio_qd32": ratio(iops(q32, "off"), iops(q32, "stock")),
        "off_vs_stock_corunner": ratio(row_value(rows, "corunner", "off", "corunner_iter_per_s"),
                                       row_value(rows, "corunner", "stock", "corunner_iter_per_s")),
        "on_vs_stock_psync_qd1": ratio(iops(p, "on"), iops(p, "stock")),
        "virtio_psync_qd1_on_vs_off": virtio_gain,
        "virtio_vs_nvme_psync_qd1_gain": ratio(virtio_gain, ratio(iops(p, "on"), iops(p, "off"))),
        "virtio_buffered_on_vs_off": ratio(iops(vbuf, "on"), iops(vbuf, "off")),
        "virtio_irqsuppress_vs_on_psync_qd1": ratio(iops(vp, "irqsuppress"), iops(vp, "on")),
        "virtio_irq_per_io_irqsuppress_psync_qd1": row_value(rows, vp, "irqsuppress", "irq_per_io"),
        "virtio_reaped_share_psync_qd1": row_value(rows, vp, "on", "reaped_share"),
        "off_vs_stock_virtio_psync_qd1": ratio(iops(vp, "off"), iops(vp, "stock")),
        "irqsuppress_vs_stock_psync_qd1": ratio(iops(p, "irqsuppress"), iops(p, "stock")),
    }


def boot_instance(run):
    """The boot a run came from: its raw directory (raw-stock-2 is the second stock boot)."""
    return os.path.dirname(run.get("source", "")) or run.get("boot", "main")


def bootstrap_summary(runs, point):
    """Each summary value as {"median", "lo", "hi"}: the value from all reps, and the
    BOOTSTRAP_LEVEL interval of the same value over resamples. A resample draws reps with
    replacement per boot and keeps every mode of a drawn rep, so each ratio stays a ratio of
    modes measured side by side. Where a kind of boot ran more than once (alternated boots,
    make bench BENCH_AB=N), it first draws that kind's boots with replacement, so the
    interval holds the boot-to-boot noise too."""
    by_kind = {}
    for run in runs:
        boots = by_kind.setdefault(run.get("boot", "main"), {})
        boots.setdefault(boot_instance(run), {}).setdefault(run["rep"], []).append(run)
    rng = random.Random(BOOTSTRAP_SEED)
    draws = {key: [] for key in point}
    fewest = min(len(reps) for boots in by_kind.values() for reps in boots.values())
    for _ in range(BOOTSTRAP_RESAMPLES if fewest >= BOOTSTRAP_MIN_REPS else 0):
        sample = []
        for boots in by_kind.values():
            names = sorted(boots)
            for name in names:
                reps = boots[rng.choice(names) if len(names) > 1 else name]
                keys = sorted(reps)
                for _ in keys:
                    sample += reps[rng.choice(keys)]
        for key, value in make_summary(make_rows(sample)).items():
            if value is not None:
                draws[key].append(value)
    if fewest < BOOTSTRAP_MIN_REPS:
        return {key: None if value is None else {"median": value, "lo": None, "hi": None}
                for key, value in point.items()}
    tail = (1.0 - BOOTSTRAP_LEVEL) / 2.0
    out = {}
    for key, value in point.items():
        values = sorted(draws[key])
        if value is None:
            out[key] = None
        elif len(values) < BOOTSTRAP_RESAMPLES // 2:
            out[key] = {"median": value, "lo": None, "hi": None}
        else:
            out[key] = {"median": value, "lo": values[int(tail * (len(values) - 1))],
                        "hi": values[int(round((1.0 - tail) * (len(values) - 1)))]}
    return out


def judge(value, goal, host_busy):
    """A target's status: met only when the whole interval clears the goal."""
    if goal is None:
        return "info"
    if value is None:
        return "no data"
    if host_busy:
        return "not judged: host busy"
    if value["lo"] is None:
        return f"no interval (fewer than {BOOTSTRAP_MIN_REPS} reps)"
    op, threshold = goal
    compare = GOAL_OPS[op][0]
    if op == "<=":
        clears, fails = compare(value["hi"], threshold), not compare(value["lo"], threshold)
    else:
        clears, fails = compare(value["lo"], threshold), not compare(value["hi"], threshold)
    return "met" if clears else ("missed" if fails else "inside the noise")


# ---- report.md --------------------------------------------------------------

def fmt(value, digits=2):
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_spread(s, digits=0):
    if s is None:
        return "–"
    if digits == 0:
        return f"{s['median']:,.0f} [{s['min']:,.0f}–{s['max']:,.0f}]"
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}–{s['max']:.{digits}f}]"


def fmt_interval(value):
    if value is None:
        return "–"
    if value["lo"] is None:
        return f"{value['median']:.3f}"
    return f"{value['median']:.3f} [{value['lo']:.3f}, {value['hi']:.3f}]"


def fmt_share(value):
    return "–" if value is None else f"{100 * value:.1f}%"


def fmt_exits(shares):
    parts = [f"{k[5:]} {100 * v:.0f}%" for k, v in shares.items() if v]
    return ", ".join(parts) or "–"


def workload_table(workload, rows):
    """Markdown lines for one workload's table."""
    mine = [r for r in rows if r["workload"] == workload]
    is_walk = workload == "metadata_walk"
    main = "walk_s" if is_walk else "iops"
    off = find_row(rows, workload, "off")
    iopoll = find_row(rows, workload, "iopoll")
    header = ["mode", "reps", "walk s median [min–max]" if is_walk else "IOPS median [min–max]",
              "vs off (IRQ)"]
    if iopoll:
        header.append("vs io_uring IOPOLL")
    if workload == "corunner":
        header += ["co-runner it/s median [min–max]", "co-runner vs off"]
    header += ["clat p50 / p99 / p99.9 µs", "CPU µs/IO", "ctx/IO", "IRQ/IO",
               "nosleep", "reaped", "exit reasons", "budget µs at end"]
    lines = [f"### {workload}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    for r in mine:
        value = r[main]["median"] if r[main] else None
        base = off[main]["median"] if off and off[main] else None
        # Speed-up against off: IOPS on÷off, walk time off÷on.
        vs_off = ratio(base, value) if is_walk else ratio(value, base)
        cells = [MODE_LABELS.get(r["mode"], r["mode"]), str(r["reps"]),
                 fmt_spread(r[main], 3 if is_walk else 0), fmt(vs_off)]
        if iopoll:
            cells.append(fmt(ratio(value, iopoll["iops"]["median"] if iopoll["iops"] else None)))
        if workload == "corunner":
            co = r["corunner_iter_per_s"]
            co_off = off["corunner_iter_per_s"] if off else None
            cells += [fmt_spread(co), fmt(ratio(co["median"] if co else None,
                                                co_off["median"] if co_off else None))]
        c = r["clat_us"]
        cells += [" / ".join(fmt(c[p], 1) for p in PERCENTILES), fmt(r["cpu_us_per_io"], 1),
                  fmt(r["ctx_per_io"]), fmt(r["irq_per_io"]), fmt_share(r["nosleep_share"]),
                  fmt_share(r["reaped_share"]), fmt_exits(r["exit_shares"]),
                  fmt(r["budget_us_end"] if r["nosleep_share"] is not None else None, 0)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


# (title, workload, modes) of the "Modes side by side" tables.
SIDE_BY_SIDE = [
    ("psync QD1 4 KiB randread", "psync_qd1_randread",
     ["off", "on", "irqsuppress", "napi", "iopoll", "hipri", "idlepoll", "stock",
      "stock_iopoll", "stock_hipri"]),
    ("libaio QD32 4 KiB randread", "libaio_qd32_randread", ["off", "on", "napi", "stock"]),
    ("libaio QD128 4 KiB randread", "libaio_qd128_randread", ["off", "napi", "stock"]),
    ("io_uring QD32 4 KiB randread (no IOPOLL)", "uring_qd32_randread", ["off", "napi", "stock"]),
    ("io_uring QD128 4 KiB randread (no IOPOLL)", "uring_qd128_randread", ["off", "napi", "stock"]),
    ("buffered cold 4 KiB randread", "buffered_randread", ["off", "on", "irqsuppress"]),
    ("virtio-blk psync QD1 4 KiB randread", "virtio_psync_qd1_randread", ["off", "on", "irqsuppress", "stock"]),
    ("virtio-blk buffered cold 4 KiB randread", "virtio_buffered_randread", ["off", "on", "stock"]),
]


def side_by_side_table(title, workload, modes, rows):
    """Markdown lines comparing the modes of one workload; [] if it has no rows."""
    present = [m for m in modes if find_row(rows, workload, m)]
    if not present:
        return []
    off = find_row(rows, workload, "off")
    base = off["iops"]["median"] if off and off["iops"] else None
    header = ["mode", "IOPS median", "vs off (IRQ)", "lat mean µs", "clat p99 µs", "CPU µs/IO",
              "IRQ/IO", "ctx/IO"]
    lines = [f"## Modes side by side ({title})", "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    for mode in present:
        r = find_row(rows, workload, mode)
        value = r["iops"]["median"] if r["iops"] else None
        cells = [MODE_LABELS.get(mode, mode), "–" if value is None else f"{value:,.0f}",
                 fmt(ratio(value, base)), fmt(r["lat_mean_us"], 1), fmt(r["clat_us"]["p99"], 1),
                 fmt(r["cpu_us_per_io"], 1), fmt(r["irq_per_io"]), fmt(r["ctx_per_io"])]
        lines.append("| " + " | ".join(cells) + " |")
    missing = [m for m in modes if m not in present]
    if missing:
        lines += ["", "Not run: " + ", ".join(missing) + "."]
    return lines + [""]


def meta_lines(meta, guest):
    lines = ["## Setup", "", "| fact | value |", "|---|---|"]
    missing = {fact: "unknown" for fact, keys in META_FACTS.items() if not any(k in meta for k in keys)}
    for key, value in list(meta.items()) + list(missing.items()):
        if isinstance(value, (list, dict)):
            value = json.dumps(value)
        lines.append(f"| {key} | {str(value).replace('|', '¦')} |")
    for name, env in guest.items():
        for key in ("uname_r", "nproc", "cmdline", "fio_version", "budget_us", "bench_size", "reps", "runtime_s"):
            lines.append(f"| {name}: {key} | {str(env.get(key, 'unknown')).replace('|', '¦')} |")
        for dev in env.get("devices", []):
            lines.append(f"| {name}: {dev.get('disk')} | serial {dev.get('serial')}, model {dev.get('model')} |")
    return lines + [""]


def make_markdown(rows, summary, meta, guest, host_load=None, excluded=()):
    lines = ["# iowait_poll benchmark report", "",
             "Each row is one workload and mode; numbers are medians over the reps "
             "(IOPS with [min–max]). Ratios are ratios of the medians. "
             "\"nosleep\" is the share of polled waits that ended without sleeping "
             "((exit_woken + exit_reaped + exit_signal) ÷ waits); \"reaped\" is completions "
             "reaped by the poller ÷ all I/Os; exit reasons are shares of polled waits. "
             "CPU is user+nice+system+irq+softirq time of all CPUs; per-I/O figures divide "
             "by the disk's completed I/Os over the whole run (ramp included). "
             "The idle=poll and stock 6.12 rows come from boots of their own, so ratios against "
             "them cross boots; with one boot of a kind their intervals hold the noise of the reps, "
             "not of the boots; with alternated boots (BENCH_AB) they resample the boots too. "
             "Modes: off is the IRQ path; on is iowait_poll spinning; irqsuppress is on "
             "with the queue's vector masked while a task polls (iowait_poll_irq_suppress); napi is "
             "iowait_poll_submit_reap alone (a completion-queue pass on each submission); io_uring "
             "IOPOLL is fio's io_uring with hipri on a poll queue; RWF_HIPRI is fio's pvsync2 with "
             "hipri=1 (preadv2() with RWF_HIPRI on the interrupt-driven queues) with every knob off, "
             "and its stock 6.12 row the same command there. \"lat mean\" is fio's mean total "
             "latency (lat_ns, submission to completion); percentiles are completion latency (clat).", ""]
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    if excluded:
        slow_host = [e for e in excluded if e["kind"] == "slow_host"]
        lines += ["**Reps left out** (their rows count the others):", ""]
        lines += [f"- {e['source']}: {e['reason']}" for e in excluded if e not in slow_host]
        if slow_host:
            lines.append(f"- reps with a slow host speed probe sample within {PROBE_WINDOW_S} s "
                         f"of them: {len(slow_host)} (see Host load; each is listed in "
                         "results.json's excluded_runs)")
        lines.append("")
    for w in workloads:
        lines += workload_table(w, rows)
    for title, workload, modes in SIDE_BY_SIDE:
        lines += side_by_side_table(title, workload, modes, rows)
    host_load = host_load or {}
    host_busy = any(b["busy"] for b in host_load.values())
    level = f"{100 * BOOTSTRAP_LEVEL:.0f} %"
    lines += ["## Targets", "",
              f"Measured: the value from all reps, with its {level} bootstrap interval over the "
              "reps (resampled together, so each ratio stays paired). A target is met only when "
              "the whole interval clears the goal, missed when the whole interval misses it, and "
              "inside the noise otherwise.", ""]
    if host_busy:
        lines += [f"**The host was busy** (other processes used more than {BUSY_HOST_CPUS} CPUs "
                  "on average in at least one boot; see Host load): no target is judged.", ""]
    elif not host_load:
        lines += ["No host load was recorded for this run.", ""]
    lines += ["| what | summary key | measured | goal | status |", "|---|---|---|---|---|"]
    for key, what, goal in SUMMARY:
        value = summary.get(key)
        goal_text = "–" if goal is None else f"{GOAL_OPS[goal[0]][1]} {goal[1]:.2f}"
        lines.append(f"| {what} | {key} | {fmt_interval(value)} | {goal_text} | "
                     f"{judge(value, goal, host_busy)} |")
    lines.append("")
    if host_load:
        slow_ms = next(iter(host_load.values()))["probe_slow_ms"]
        slow_def = (f"over {fmt(slow_ms)} ms, {SLOW_PROBE_FACTOR} times the run's 10th percentile"
                    if slow_ms else "none recorded")
        lines += ["## Host load", "",
                  "CPUs used on the host during each boot, from /proc/stat and QEMU's "
                  "/proc/PID/stat, sampled every 5 s by scripts/vm.sh, and the CPU ms that "
                  "scripts/host_speed.py's fixed loop took at each sample while QEMU ran "
                  f"(more is a slower host core; slow: {slow_def}). Reps with a slow sample "
                  f"within {PROBE_WINDOW_S} s of them are left out." + (
                      " Before each rep the guest waited while the newest sample was slow, "
                      f"{meta['host_wait_s']} s at most (BENCH_HOST_WAIT_S; the column 'reps waited for')."
                      if meta.get("host_wait_s") else " The guest did not wait for a fast host.") + (
                      " After each round of reps the guest ran again the reps with a slow sample "
                      f"beside them, {meta['host_retries']} times at most (BENCH_HOST_RETRIES; "
                      "the runs replaced are the raw files *.json.slowN)."
                      if meta.get("host_retries") else " The guest ran no rep again.") + (
                      f" Waits and runs again had {meta['host_extra_s']} s of each boot in all "
                      "(BENCH_HOST_EXTRA_S); once it was spent the guest did neither (its log says when)."
                      if meta.get("host_extra_s") else ""), "",
                  "| boot | seconds | other processes, CPUs | QEMU, CPUs | load1 before | load1 after "
                  "| busy | probe ms, median | slow probe samples | reps waited for, s in all "
                  "| reps run again, slow runs replaced |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, b in host_load.items():
            slow = b["probe_slow_share"]
            lines.append(f"| {name} | {b['seconds']:.0f} | {fmt(b['other_cpus'])} | {fmt(b['qemu_cpus'])} "
                         f"| {b['load1_before']:.2f} | {b['load1_after']:.2f} | {'yes' if b['busy'] else 'no'} "
                         f"| {fmt(b['probe_ms_median'])} | {'–' if slow is None else f'{100 * slow:.0f} %'} "
                         f"| {b.get('host_waits', 0)}, {b.get('host_wait_s', 0.0):.0f} "
                         f"| {b.get('host_rerun_reps', 0)}, {b.get('host_slow_tries', 0)} |")
        lines.append("")
    return "\n".join(lines + meta_lines(meta, guest))


# ---- latency.png ------------------------------------------------------------

def clat_cdf(runs, workload, mode):
    """[(µs, cumulative fraction)] from the merged fio json+ clat_ns bins of a row."""
    bins = {}
    for run in runs:
        job = fio_job(run)
        if run["workload"] != workload or run["mode"] != mode or not job:
            continue
        for ns, count in job[fio_main_direction(job)].get("clat_ns", {}).get("bins", {}).items():
            bins[int(ns)] = bins.get(int(ns), 0) + count
    total = sum(bins.values())
    points, seen = [], 0
    for ns in sorted(bins):
        seen += bins[ns]
        points.append((ns / 1000.0, seen / total))
    return points


def plot(out_dir, rows, runs):
    """latency.png: p50/p99 per row, and the psync QD1 clat CDF per mode."""
    if not shutil.which("gnuplot"):
        print("report.py: warning: gnuplot not found, latency.png skipped", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory() as tmp:
        pct_file = os.path.join(tmp, "pct.dat")
        with_clat = [x for x in rows if x["clat_us"]["p50"] is not None]
        with open(pct_file, "w") as f:
            for i, r in enumerate(with_clat):
                f.write(f'{i} "{r["workload"]} {r["mode"]}" {r["clat_us"]["p50"]} {r["clat_us"]["p99"] or "NaN"}\n')
        cdf_plots = []
        for mode in MODES:
            points = clat_cdf(runs, "psync_qd1_randread", mode)
            if points:
                path = os.path.join(tmp, f"cdf_{mode}.dat")
                with open(path, "w") as f:
                    f.writelines(f"{us} {frac}\n" for us, frac in points)
                cdf_plots.append(f"'{path}' using 1:2 with steps title '{MODE_LABELS[mode]}'")
        script = [
            "set terminal pngcairo size 1600,700 font ',10' noenhanced",
            f"set output '{os.path.join(out_dir, 'latency.png')}'",
            "set multiplot layout 1,2",
            "set title 'clat per workload and mode (median of reps)'",
            "set logscale y", "set ylabel 'µs'", "set grid",
            "set xtics rotate by 45 right", f"set xrange [-0.5:{len(with_clat) - 0.5}]",
            f"plot '{pct_file}' using 1:3:xtic(2) with points pt 7 title 'p50', "
            f"'' using 1:4 with points pt 5 title 'p99'",
            "unset logscale y", "set xtics norotate autofreq", "set autoscale x", "set logscale x",
            "set title 'psync QD1 4k randread: clat CDF'",
            "set xlabel 'clat µs'", "set ylabel 'fraction of I/Os'",
            "set yrange [0:1]", "set key bottom right",
            ("plot " + ", ".join(cdf_plots)) if cdf_plots else "plot NaN notitle",
            "unset multiplot",
        ]
        result = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True,
                                capture_output=True, check=False)
        if result.returncode != 0:
            print(f"report.py: warning: gnuplot failed, latency.png skipped: {result.stderr.strip()}",
                  file=sys.stderr)
        return result.returncode == 0


# ---- main -------------------------------------------------------------------

def build(results_dir):
    """Everything report.py writes, computed before anything is written."""
    runs = load_runs(results_dir)
    meta, guest = load_meta(results_dir)
    try:
        for run in runs:
            run["metrics"] = run_metrics(run)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise BadInput(f"{run['source']}: malformed run: {type(e).__name__}: {e}") from e
    host_load, probe_samples = load_host_load(results_dir,
                                              meta.get("host_cpus") or os.cpu_count() or 1)
    for boot, b in host_load.items():
        waits = [r.get("host_wait_s", 0.0) for r in runs if host_load_boot(r) == boot]
        b["host_waits"] = sum(w > 0 for w in waits)
        b["host_wait_s"] = sum(waits)
        retries = [r.get("host_retries", 0) for r in runs if host_load_boot(r) == boot]
        b["host_rerun_reps"] = sum(n > 0 for n in retries)
        b["host_slow_tries"] = sum(retries)
    excluded = []
    for r in runs:
        for kind, why in (("clock", clock_fault(r)),
                          ("slow_host", slow_host_fault(r, host_load, probe_samples))):
            if why:
                excluded.append({"source": r["source"], "kind": kind, "reason": why})
                break
    left_out = {e["source"] for e in excluded}
    runs = [r for r in runs if r["source"] not in left_out]
    if not runs:
        raise BadInput(f"{results_dir}: every run was left out: {excluded[0]['reason']}")
    rows = make_rows(runs)
    summary = bootstrap_summary(runs, make_summary(rows))
    results = {"meta": dict(meta, guest_env=guest, host_load=host_load),
               "host_busy": any(b["busy"] for b in host_load.values()),
               "excluded_runs": excluded,
               "runs": runs, "rows": rows, "summary": summary}
    return results, make_markdown(rows, summary, meta, guest, host_load, excluded)


def main(argv):
    if len(argv) != 2:
        print("usage: report.py RESULTS_DIR", file=sys.stderr)
        return 2
    results_dir = argv[1]
    try:
        results, markdown = build(results_dir)
    except BadInput as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 2
    with open(os.path.join(results_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(results_dir, "report.md"), "w") as f:
        f.write(markdown)
    wrote = "results.json, report.md" + (" and latency.png" if plot(results_dir, results["rows"], results["runs"]) else "")
    print(f"report.py: wrote {wrote} in {results_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
