#!/usr/bin/env python3
"""Where a psync QD1 read's time goes on each side of the emulated NVMe device.

usage: nvme_timeline.py OUTDIR          (markdown on stdout)
       nvme_timeline.py --events        (the QEMU trace events to enable, for QEMU_TRACE)
       nvme_timeline.py --events-few    (only the doorbells and the CQE posts: less tracing,
                                         less disturbance; the steps inside QEMU show as –)

OUTDIR is a scripts/vm.sh output directory of guest/nvme_timeline.sh, run with QEMU_TRACE
set: qemu-trace.log (QEMU's trace, host time stamps) and timeline.tsv (the runs' modes in
order, with their IOPS). The trace is cut into one piece per run at the quiet gaps between
runs. At QD1 each I/O is then, in host time: the guest rings the SQ doorbell, QEMU fetches
the command, the backend completes it, QEMU enqueues the completion (and posts the CQE,
signalling it with an MSI-X message, pending if the vector is masked, unless the CQ has
interrupts disabled as a poll queue's has), the guest writes the CQ head doorbell, and the
guest rings the next SQ doorbell.
"""
import csv
import os
import re
import statistics
import sys

EVENTS = ["pci_nvme_mmio_doorbell_sq", "pci_nvme_io_cmd", "pci_nvme_rw_complete_cb",
          "pci_nvme_enqueue_req_completion", "pci_nvme_irq_msix", "pci_nvme_irq_masked",
          "pci_nvme_mmio_doorbell_cq"]
FEW_EVENTS = ["pci_nvme_mmio_doorbell_sq", "pci_nvme_irq_msix", "pci_nvme_irq_masked",
              "pci_nvme_mmio_doorbell_cq"]
# "TID@SECONDS.MICROSECONDS:event args" (QEMU's log backend with -msg timestamp=on)
LINE = re.compile(r"^(\d+)@(\d+)\.(\d{6}):(pci_nvme_\w+)\s*(.*)$")
ARG = re.compile(r"(\w+) (?:'([^']*)'|(0x[0-9a-f]+|\d+))")
# Gaps without I/O longer than this separate two runs, in µs.
RUN_GAP_US = 500_000
MIN_IOS = 1000
# (column, from event, to event): intervals within one I/O, from its SQ doorbell on.
STEPS = [("SQ doorbell → CQE posted (the device's part)", "sq", "post"),
         ("doorbell → command fetched", "sq", "cmd"),
         ("command → backend done", "cmd", "backend"),
         ("backend → completion enqueued", "backend", "enq"),
         ("completion enqueued → CQE posted", "enq", "post"),
         ("CQE posted → CQ head doorbell", "post", "cq"),
         ("completion → CQ head doorbell", "enq", "cq"),
         ("CQ head doorbell → next SQ doorbell", "cq", "next"),
         ("CQE posted → next SQ doorbell (the guest's part)", "post", "next"),
         ("SQ doorbell → next SQ doorbell", "sq", "next")]


def die(msg):
    sys.exit(f"nvme_timeline.py: error: {msg}")


def parse(path):
    """The trace's I/O-queue events: (µs, tid, event, args); queue 0 (admin) left out."""
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            args = {k: (s if s else int(n, 0)) for k, s, n in ARG.findall(m.group(5))}
            if args.get("sqid") == 0 or args.get("cqid") == 0:
                continue
            t = int(m.group(2)) * 1_000_000 + int(m.group(3))
            events.append((t, int(m.group(1)), m.group(4), args))
    return events


def cut_runs(events):
    """The pieces of the trace between quiet gaps that hold at least MIN_IOS submissions."""
    runs, cur, last_sq = [], [], None
    for e in events:
        if e[2] == "pci_nvme_mmio_doorbell_sq":
            if last_sq is not None and e[0] - last_sq > RUN_GAP_US:
                runs.append(cur)
                cur = []
            last_sq = e[0]
        cur.append(e)
    runs.append(cur)
    return [r for r in runs if sum(e[2] == "pci_nvme_mmio_doorbell_sq" for e in r) >= MIN_IOS]


def ios_of(run):
    """Per I/O, the time of each step (µs), and the threads and interrupts seen."""
    ios, cur = [], None
    threads = {}
    irqs = {"pci_nvme_irq_msix": 0, "pci_nvme_irq_masked": 0}
    for t, tid, name, args in run:
        threads.setdefault(name, set()).add(tid)
        if name == "pci_nvme_mmio_doorbell_sq":
            if cur is not None:
                cur["next"] = t
                ios.append(cur)
            cur = {"sq": t}
        elif cur is None:
            continue
        elif name == "pci_nvme_io_cmd":
            cur.setdefault("cmd", t)
        elif name == "pci_nvme_rw_complete_cb":
            cur.setdefault("backend", t)
        elif name == "pci_nvme_enqueue_req_completion":
            cur.setdefault("enq", t)
        elif name == "pci_nvme_mmio_doorbell_cq":
            cur.setdefault("cq", t)
        elif name in irqs:
            irqs[name] += 1
            cur.setdefault("post", t)
    # The first of each step counts (at QD1 there is one); an I/O without a CQE post is left out.
    return [io for io in ios if "post" in io], threads, irqs


def median_us(ios, a, b):
    values = [io[b] - io[a] for io in ios if a in io and b in io and io[b] >= io[a]]
    return (statistics.median(values), len(values)) if values else (None, 0)


def main():
    if sys.argv[1:] == ["--events"]:
        print(" ".join(EVENTS))
        return
    if sys.argv[1:] == ["--events-few"]:
        print(" ".join(FEW_EVENTS))
        return
    if len(sys.argv) != 2:
        die("usage: nvme_timeline.py OUTDIR | --events | --events-few")
    out = sys.argv[1]
    for name in ("qemu-trace.log", "timeline.tsv"):
        if not os.path.isfile(os.path.join(out, name)):
            die(f"no {name} in {out} (run guest/nvme_timeline.sh with QEMU_TRACE set, see its header)")
    with open(os.path.join(out, "timeline.tsv"), encoding="utf-8") as f:
        modes = list(csv.DictReader(f, delimiter="\t"))
    events = parse(os.path.join(out, "qemu-trace.log"))
    if not events:
        die(f"no time-stamped pci_nvme events in {out}/qemu-trace.log")
    runs = cut_runs(events)
    if len(runs) != len(modes):
        die(f"the trace has {len(runs)} runs of {MIN_IOS}+ I/Os, timeline.tsv {len(modes)} modes")
    cols = [f"{m['mode']} ({i + 1})" for i, m in enumerate(modes)]
    table = {c: {} for c in cols}
    for col, mode, run in zip(cols, modes, runs):
        ios, threads, irqs = ios_of(run)
        sq = [e[0] for e in run if e[2] == "pci_nvme_mmio_doorbell_sq"]
        span_s = (sq[-1] - sq[0]) / 1e6
        row = table[col]
        row["IOPS in the guest (fio)"] = mode["iops"]
        row["I/Os traced; per second of trace"] = f"{len(ios)}; {len(ios) / span_s:.0f}"
        for label, a, b in STEPS:
            value, n = median_us(ios, a, b)
            row[f"{label}, median µs"] = "–" if value is None else f"{value:.1f}"
        row["CQEs posted with an MSI-X message / on a CQ without interrupts, per I/O"] = (f"{irqs['pci_nvme_irq_msix'] / len(ios):.2f} / "
                                             f"{irqs['pci_nvme_irq_masked'] / len(ios):.2f}")
        row["threads: SQ doorbell; completion"] = (
            f"{len(threads.get('pci_nvme_mmio_doorbell_sq', ()))}; "
            f"{len(threads.get('pci_nvme_enqueue_req_completion', ()))}")
        row["same thread for both"] = str(bool(
            threads.get("pci_nvme_mmio_doorbell_sq", set()) &
            threads.get("pci_nvme_enqueue_req_completion", set())))
    print("| | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for key in table[cols[0]]:
        print(f"| {key} | " + " | ".join(table[c].get(key, "–") for c in cols) + " |")


if __name__ == "__main__":
    main()
