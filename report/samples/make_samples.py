#!/usr/bin/env python3
"""Regenerate report/samples/results/: real fio json+ runs on the HOST against a
64 MiB file, with hand-written counter sidecars in guest/bench.sh's format.

The counters are synthetic but derived from fio's own I/O count, so that the
per-I/O figures are known exactly (see test_report.py):
  off:  1 ctx switch and 1 IRQ per I/O, no polled waits (also iopoll, idlepoll)
  stock, stock_iopoll, stock_hipri: as off, with no knobs and no poll statistics
        (stock 6.12)
  on:   0.01 ctx switches and 1 IRQ per I/O; every I/O a polled wait,
        95 % exit_woken, 5 % exit_budget; reaped = 3 per 1000 I/Os
  hipri: the counters of on, with the knobs of off (RWF_HIPRI polls the waits)
  irqsuppress: as on, but 0.05 IRQs per I/O; irq_held = 95 %, irq_rearmed = 5 %
        of the waits
  napi: no polled waits, 1 ctx switch and 0.5 IRQs per I/O, submit_reaped = 50 %
        of the I/Os, 4 busy jiffies per 1000 I/Os
  cpu:  busy jiffies = 5 per 1000 I/Os (clk_tck 100 -> 50 µs per I/O) unless said
"""
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results")
STATS = ["waits", "polls", "reaped", "spin_ns", "exit_woken", "exit_reaped", "exit_resched",
         "exit_busy", "exit_budget", "exit_signal", "exit_error", "irq_held", "irq_rearmed",
         "submit_reaped"]
# mode -> (IRQs, ctx switches, busy jiffies) per 1000 I/Os
PER_1000_IOS = {"on": (1000, 10, 5), "hipri": (1000, 10, 5), "irqsuppress": (50, 10, 5),
                "napi": (500, 1000, 4)}
DEFAULT_PER_1000_IOS = (1000, 1000, 5)
# mode -> queue knobs, as guest/bench.sh sets them
KNOBS = {"on": (1, 0, 0), "irqsuppress": (1, 1, 0), "napi": (0, 0, 1)}
DEFAULT_KNOBS = (0, 0, 0)
KNOB_NAMES = ("iowait_poll", "iowait_poll_irq_suppress", "iowait_poll_submit_reap")

ENGINES = {  # workload/mode -> fio options; io_uring stands in for IOPOLL on a file
    "psync": ["--ioengine=psync", "--iodepth=1", "--direct=1"],
    "iopoll": ["--ioengine=io_uring", "--iodepth=1", "--direct=1"],
    "hipri": ["--ioengine=pvsync2", "--hipri=1", "--iodepth=1", "--direct=1"],
    "libaio": ["--ioengine=libaio", "--iodepth=32", "--direct=1"],
}
# (raw dir, workload, mode, rep, engine or None)
RUNS = [("raw", "psync_qd1_randread", m, r, m if m in ("iopoll", "hipri") else "psync")
        for r in (1, 2) for m in ("off", "on", "irqsuppress", "napi", "iopoll", "hipri")]
RUNS += [("raw", "libaio_qd32_randread", m, 1, "libaio") for m in ("off", "on", "napi")]
RUNS += [("raw", "corunner", m, 1, "psync") for m in ("off", "on")]
RUNS += [("raw", "metadata_walk", m, r, None) for r in (1, 2) for m in ("off", "on")]
RUNS += [("raw-idlepoll", "psync_qd1_randread", "idlepoll", 1, "psync")]
# stock 6.12: no knobs and no poll statistics
RUNS += [("raw-stock", "psync_qd1_randread", m, r, m[6:] if m != "stock" else "psync")
         for r in (1, 2) for m in ("stock", "stock_iopoll", "stock_hipri")]

# per-walk times by (mode, rep): per-run means 0.51/0.49 and 0.41/0.39 -> off/on = 1.25
WALK_S = {("off", 1): [0.50, 0.52], ("off", 2): [0.48, 0.50],
          ("on", 1): [0.40, 0.42], ("on", 2): [0.38, 0.40]}
CORUNNER = {"off": 1_000_000, "on": 960_000}          # iterations in 2 s -> 0.96
META = {"kernel_version": "6.12.117 + iopoll (sample)", "qemu_version": "7.2 (sample)",
        "accel": "tcg,thread=multi", "vcpus": 2, "backend": "null-co",
        "commands": ["report/samples/make_samples.py"]}


def snapshot(t_ns, ios, mode, after):
    """Counters before (after=False) or after a run of `ios` I/Os."""
    k = 1 if after else 0
    stats = {name: 0 for name in STATS}
    if mode in ("on", "hipri", "irqsuppress") and after:
        stats.update(waits=ios, polls=3 * ios, reaped=3 * ios // 1000, spin_ns=10_000 * ios,
                     exit_woken=ios - ios // 20, exit_budget=ios // 20)
    if mode == "irqsuppress" and after:
        stats.update(irq_held=ios - ios // 20, irq_rearmed=ios // 20)
    if mode == "napi" and after:
        stats.update(submit_reaped=ios // 2)
    base = 1000
    poll_stats = {n: base + v for n, v in stats.items()}
    if mode.startswith("stock"):
        poll_stats = {}
    irqs, ctxt, jiffies = PER_1000_IOS.get(mode, DEFAULT_PER_1000_IOS)
    return {
        "t_ns": t_ns,
        "poll_stats": poll_stats,
        "irqs": base + k * irqs * ios // 1000,
        "irq_lines": "",
        "ctxt": base + k * ctxt * ios // 1000,
        "cpu_jiffies": [base + k * jiffies * ios // 1000, base, base, 5000, 0, base, base, 0, 0, 0],
        "diskstat": [base + k * ios, 0, 0, 0, base, 0, 0, 0, 0, 0, 0],
    }


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for d in ("raw", "raw-idlepoll", "raw-stock"):
        os.makedirs(os.path.join(OUT, d))
    with open(os.path.join(OUT, "meta.json"), "w") as f:
        json.dump(META, f, indent=1)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        data = os.path.join(tmp, "x")
        for raw, workload, mode, rep, engine in RUNS:
            name = f"{workload}__{mode}__r{rep}"
            stock = mode.startswith("stock")
            knobs = {} if stock else dict(zip(KNOB_NAMES, KNOBS.get(mode, DEFAULT_KNOBS)))
            side = {"workload": workload, "mode": mode, "rep": rep,
                    "boot": raw[4:] if raw != "raw" else "main", "profile": "sample",
                    "disk": "nvme0n1", "poll": knobs.get("iowait_poll", 0), "knobs": knobs,
                    "budget_us": None if stock else 200, "clk_tck": 100, "runtime_s": 1, "ramp_s": 0}
            if engine:
                args = ["fio", "--name=x", f"--filename={data}", "--size=64M", "--time_based",
                        "--runtime=1", "--randrepeat=0", "--norandommap", "--group_reporting",
                        "--percentile_list=50:99:99.9", "--bs=4k", "--rw=randread",
                        *ENGINES[engine], "--output-format=json+",
                        f"--output={os.path.join(OUT, raw, name + '.fio.json')}"]
                subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
                with open(os.path.join(OUT, raw, name + ".fio.json")) as f:
                    ios = json.load(f)["jobs"][0]["read"]["total_ios"]
                side.update(fio_file=name + ".fio.json", fio_args=" ".join(args[1:]))
            else:
                ios = 2000
                side["walk_s"] = WALK_S[(mode, rep)]
            if workload == "corunner":
                side.update(corunner_iterations=CORUNNER[mode], corunner_s=2.0)
            side["before"] = snapshot(10**9, ios, mode, False)
            side["after"] = snapshot(3 * 10**9, ios, mode, True)
            with open(os.path.join(OUT, raw, name + ".json"), "w") as f:
                json.dump(side, f, indent=1)
    print(f"wrote {len(RUNS)} runs in {OUT}")


if __name__ == "__main__":
    main()
