#!/usr/bin/env python3
"""Turn guest/profile.sh's output into a per-I/O time breakdown (markdown on stdout).

usage: profile.py OUTDIR [TOP]

OUTDIR holds profile.tsv and profile-MODE.txt (perf report -F overhead,sample,dso,sym).
perf sampled the clock of the CPU fio ran on, idle included, once per PERIOD_NS, so a
symbol's samples x period / I/Os is that CPU's time in it per I/O, and all of them add up
to the time per I/O under perf. TOP symbols (default 25) by their largest cost in any mode
are shown.
"""
import csv
import os
import re
import sys

LINE = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(\S+)")
# Categories, first match wins; kernel symbols unless "user".
CATEGORIES = [
    ("idle (halted or idle loop)", re.compile(r"idle|halt|mwait|cpuidle")),
    ("polling: io_wait(), the hook, CQ reads", re.compile(
        r"io_wait|iowait_poll|poll_irq_queue|nvme_poll|blk_mq_poll|blk_hctx_poll|bio_poll"
        r"|iopoll|nvme_process_cq|nvme_handle_cqe|blk_mq_complete|blk_mq_end_request")),
    ("interrupt entry and handling", re.compile(
        r"irq|apic|msi|__sysvec|asm_|handle_edge|common_interrupt|nvme_irq")),
    ("scheduler: sleep, wakeup, switch", re.compile(
        r"schedule|switch|pick_next|enqueue|dequeue|try_to_wake|ttwu|update_curr|update_load"
        r"|select_task_rq|set_next_entity|put_prev")),
    ("syscall entry and exit", re.compile(r"entry_SYSCALL|syscall|__x64_sys|do_syscall")),
]


def category(dso, sym):
    if not dso.startswith("[kernel"):
        return "user space (fio, libc)"
    for name, pattern in CATEGORIES:
        if pattern.search(sym):
            return name
    return "other kernel (block, fs, mm, nvme submit...)"


def load(outdir):
    with open(os.path.join(outdir, "profile.tsv"), encoding="utf-8") as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    if not runs:
        sys.exit(f"profile.py: {outdir}/profile.tsv has no runs")
    modes = {}
    for run in runs:
        path = os.path.join(outdir, f"profile-{run['mode']}.txt")
        syms = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = LINE.match(line)
                if m:
                    key = (m.group(3), m.group(5))
                    syms[key] = syms.get(key, 0) + int(m.group(2))
        if not syms:
            sys.exit(f"profile.py: no samples in {path}")
        ios = int(run["ios"])
        scale = int(run["period_ns"]) / 1000 / ios  # µs of the CPU's clock per I/O per sample
        modes[run["mode"]] = {
            "ios": ios, "seconds": float(run["seconds"]), "plain": float(run["iops_without_perf"]),
            "us": {k: n * scale for k, n in syms.items()}}
    return modes


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    outdir = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) == 3 else 25
    modes = load(outdir)
    names = list(modes)
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    print("| I/Os profiled | " + " | ".join(f"{modes[m]['ios']:,}" for m in names) + " |")
    print("| IOPS without perf (the same fio command just before) | " + " | ".join(
        f"{modes[m]['plain']:,.0f}" for m in names) + " |")
    print("| I/Os per second of perf's wall time | " + " | ".join(
        f"{modes[m]['ios'] / modes[m]['seconds']:,.0f}" for m in names) + " |")
    print("| µs per I/O of fio's CPU, all | " + " | ".join(
        f"{sum(modes[m]['us'].values()):.1f}" for m in names) + " |")
    cats = {}
    for m in names:
        for (dso, sym), us in modes[m]["us"].items():
            row = cats.setdefault(category(dso, sym), {})
            row[m] = row.get(m, 0.0) + us
    for cat in sorted(cats, key=lambda c: -max(cats[c].values())):
        print(f"| {cat} | " + " | ".join(f"{cats[cat].get(m, 0.0):.1f}" for m in names) + " |")
    print()
    keys = set()
    for m in names:
        keys.update(modes[m]["us"])
    ranked = sorted(keys, key=lambda k: -max(modes[m]["us"].get(k, 0.0) for m in names))[:top]
    print("| symbol (µs per I/O) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for dso, sym in ranked:
        label = sym if dso.startswith("[kernel") else f"{sym} ({os.path.basename(dso)})"
        print(f"| `{label}` | " + " | ".join(
            f"{modes[m]['us'].get((dso, sym), 0.0):.1f}" for m in names) + " |")


if __name__ == "__main__":
    main()
