#!/usr/bin/env python3
"""Per run of scripts/qemu_host_view.py: each QEMU thread's host CPU and context switches
per guest I/O and, where perf recorded them, its waits for the big QEMU lock per I/O
(--futex) and where it slept, with the MMIO write each lock wait was for (--switches).
The --switches tables count per I/O of the 2 s that perf recorded: the SQ tail doorbell
writes it saw when QEMU had symbols (one per read here), else the run's IOPS times 2 s.

usage: qemu_host_view.py OUTDIR
A run's window is its fio run as the guest reported it: from RUNTIME - 0.5 s before the
line with its IOPS to END_MARGIN_S before it (the host sees a guest line up to 1 s late:
scripts/vm.sh reads the guest's log once a second).  A wait for the big QEMU lock is a
FUTEX_WAIT called from qemu_mutex_lock_iothread_impl().  A sleep is a sched_switch away
from the thread in state S or D; its cause is the frame that called the lock (or what it
waited in), and for a lock wait in io_writex() the MMIO write the thread made next.
"""
import collections
import json
import os
import re
import subprocess
import sys

FUTEX_WAIT_PRIVATE = "0x00000080"
END_MARGIN_S = 1.2
LOCK_CALLERS = {"io_writex": "BQL: MMIO write", "io_readx": "BQL: MMIO read",
                "cpu_handle_interrupt": "BQL: interrupt", "cpu_handle_halt": "BQL: halt",
                "mttcg_cpu_thread_fn": "BQL: vCPU loop", "os_host_main_loop_wait": "BQL: main loop"}
APIC_REGS = {0x0b0: "APIC EOI", 0x380: "APIC timer count", 0x300: "APIC ICR",
             0x310: "APIC ICR (destination)"}


class BadInput(Exception):
    pass


def runs(outdir, runtime):
    """(index, mode, IOPS, window start, window end) of each run, from the guest's lines."""
    out, index = [], None
    with open(f"{outdir}/lines.tsv", errors="replace") as f:
        for n, line in enumerate(f, 1):
            try:
                t, text = line.split("\t", 1)
                float(t)
            except ValueError:
                raise BadInput(f"{outdir}/lines.tsv:{n}: not 'TIME<tab>LINE'") from None
            m = re.search(r"qemu_host_view: run (\d+) (\w+)", text)
            if m and "echo" not in text:
                index = int(m.group(1))
            m = re.search(r"nvme_timeline.sh: (\w+): (\d+) IOPS", text)
            if m:
                end = float(t)
                out.append((index, m.group(1), int(m.group(2)), end - runtime + 0.5,
                            end - END_MARGIN_S))
    if not out:
        raise BadInput(f"{outdir}/lines.tsv has no 'nvme_timeline.sh: MODE: N IOPS' line")
    return out


def threads(outdir):
    series = collections.defaultdict(list)
    with open(f"{outdir}/threads.tsv") as f:
        for n, line in enumerate(f, 1):
            if n == 1:
                continue
            try:
                t, tid, comm, cpu, vol, invol = line.rstrip("\n").split("\t")
                series[(tid, comm)].append((float(t), float(cpu), int(vol), int(invol)))
            except ValueError:
                raise BadInput(f"{outdir}/threads.tsv:{n}: malformed line {line!r}") from None
    if not series:
        raise BadInput(f"{outdir}/threads.tsv has no samples")
    return series


def at(samples, t):
    """The last sample at or before t (the first if none is)."""
    best = samples[0]
    for s in samples:
        if s[0] > t:
            break
        best = s
    return best


def lock_waits(path):
    """BQL waits per thread id, and the seconds the record spans."""
    return parse_lock_waits(perf_script(path))


def perf_events(text):
    """perf script's events, each as (tid, time, event, fields, call chain innermost
    frame first)."""
    head, chain = None, []
    for line in text.splitlines():
        m = re.match(r"\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+(\S+):(.*)", line)
        if m:
            if head:
                yield (*head, chain)
            head, chain = (m.group(2), float(m.group(3)), m.group(4), m.group(5)), []
        elif line.strip():
            chain.append(line.strip())
    if head:
        yield (*head, chain)


def parse_lock_waits(text):
    """From perf script's lines: BQL waits per thread id, and the seconds they span."""
    waits, times = collections.Counter(), []
    for tid, t, event, fields, chain in perf_events(text):
        if event != "syscalls:sys_enter_futex":
            continue
        times.append(t)
        if f"op: {FUTEX_WAIT_PRIVATE}" in fields and any(
                "qemu_mutex_lock_iothread" in c for c in chain):
            waits[tid] += 1
    return waits, (times[-1] - times[0]) if times else 0.0


def sleep_cause(chain):
    """Why a thread slept, from its call chain (innermost frame first)."""
    names = [c.split()[1] if len(c.split()) > 1 else "" for c in chain]
    if "qemu_mutex_lock_iothread_impl" in names:
        for caller in names[names.index("qemu_mutex_lock_iothread_impl") + 1:]:
            if caller in LOCK_CALLERS:
                return LOCK_CALLERS[caller]
        return "BQL: other"
    if "qemu_wait_io_event" in names:
        return "vCPU halted"
    if "os_host_main_loop_wait" in names:
        return "main loop: no event"
    return "other"


def mmio_write_name(event, addr):
    if event == "apic_mem_write":
        if addr > 0xfff or not addr & 0xff0:      # as apic_mem_write() tells them apart
            return "MSI (an interrupt sent)"
        return APIC_REGS.get(addr & 0xff0, f"APIC {addr & 0xff0:#x}")
    if addr < 0x1000:
        return f"NVMe register {addr:#x}"
    db = (addr - 0x1000) // 4          # CAP.DSTRD 0: SQ y tail at 2y, CQ y head at 2y + 1
    return f"NVMe {'CQ head' if db % 2 else 'SQ tail'} doorbell"


def parse_switches(text):
    """From perf script's lines of a --switches record: sleeps per (tid, cause), lock waits
    in io_writex() per (tid, the MMIO write that came next), MMIO writes per (tid, write),
    and the seconds the record spans.  Only NVMe and APIC writes are probed: a wait for a
    write elsewhere (the MSI-X table, another device) counts for the thread's next probed
    write."""
    sleeps, waits_for, writes = collections.Counter(), collections.Counter(), collections.Counter()
    pending, times = {}, []
    for tid, t, event, fields, chain in perf_events(text):
        times.append(t)
        if event == "sched:sched_switch":
            m = re.search(r"prev_pid=(\d+) .*prev_state=(\S+)", fields)
            if m and m.group(2)[0] in "SD":
                cause = sleep_cause(chain)
                sleeps[(m.group(1), cause)] += 1
                if cause == "BQL: MMIO write":
                    pending[m.group(1)] = True
            continue
        m = re.search(r"addr=(0x[0-9a-f]+)", fields)
        if m:
            w = mmio_write_name(event.split(":")[1], int(m.group(1), 16))
            writes[(tid, w)] += 1
            if pending.pop(tid, False):
                waits_for[(tid, w)] += 1
    return sleeps, waits_for, writes, (times[-1] - times[0]) if times else 0.0


def perf_script(path):
    r = subprocess.run(["perf", "script", "-i", path, "-F", "comm,tid,time,event,trace,ip,sym"],
                       capture_output=True, text=True, errors="replace", check=False)
    if r.returncode:
        raise BadInput(f"perf script -i {path} failed: {r.stderr.strip()[:200]}")
    return r.stdout


def print_switches(outdir, run_list, names):
    """The --switches tables: where each thread slept, per I/O, and for what MMIO write."""
    rows, mmio = [], []
    for index, mode, iops, _, _ in run_list:
        path = f"{outdir}/perf-switch-{index}.data"
        if not os.path.isfile(path):
            continue
        sleeps, waits_for, writes, span = parse_switches(perf_script(path))
        # perf slows the guest while it records: count the reads it saw where it can.
        ios = sum(n for (_, w), n in writes.items() if w == "NVMe SQ tail doorbell") or iops * span
        if not ios:
            continue
        for (tid, cause), n in sorted(sleeps.items(),
                                      key=lambda kv: (names.get(kv[0][0], ""), -kv[1])):
            if n / ios >= 0.01:
                rows.append(f"| {index} | {mode} | {names.get(tid, tid)} | {cause} "
                            f"| {n / ios:.2f} |")
        for (tid, w), n in sorted(writes.items(), key=lambda kv: -kv[1]):
            if n / ios >= 0.01:
                mmio.append(f"| {index} | {mode} | {names.get(tid, tid)} | {w} | {n / ios:.2f} "
                            f"| {waits_for.get((tid, w), 0) / ios:.2f} |")
    if rows:
        print("\nWhere each thread slept (sleeps per I/O, 0.01 and more):\n")
        print("| run | mode | thread | slept on | per I/O |\n|---|---|---|---|---:|")
        print("\n".join(rows))
    if mmio:
        print("\nMMIO writes per I/O, and how many of them waited for the lock:\n")
        print("| run | mode | thread | write | per I/O | after a lock wait, per I/O |")
        print("|---|---|---|---|---:|---:|")
        print("\n".join(mmio))


def main():
    if len(sys.argv) != 2:
        raise BadInput("usage: qemu_host_view.py OUTDIR")
    outdir = sys.argv[1]
    if not os.path.isfile(f"{outdir}/params.json"):
        raise BadInput(f"{outdir} has no params.json: not a scripts/qemu_host_view.py run")
    try:
        with open(f"{outdir}/params.json") as f:
            runtime = float(json.load(f)["runtime"])
    except (ValueError, KeyError, TypeError) as e:
        raise BadInput(f"{outdir}/params.json: no runtime ({e})") from None
    series = threads(outdir)
    print("| run | mode | IOPS | thread | CPU share | host CPU µs per I/O "
          "| voluntary switches per I/O | BQL waits per I/O |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    rows = 0
    run_list = runs(outdir, runtime)
    for index, mode, iops, a, b in run_list:
        waits, span = {}, 0.0
        perf = f"{outdir}/perf-futex-{index}.data"
        if os.path.isfile(perf):
            waits, span = lock_waits(perf)
        for (tid, comm), s in sorted(series.items(), key=lambda kv: kv[0][1]):
            x, y = at(s, a), at(s, b)
            dt, cpu = y[0] - x[0], y[1] - x[1]
            if dt <= 0 or cpu / dt < 0.02:
                continue
            ios = iops * dt
            bql = f"{waits.get(tid, 0) / (iops * span):.2f}" if span else "–"
            rows += 1
            print(f"| {index} | {mode} | {iops} | {comm} | {cpu / dt:.2f} | "
                  f"{cpu / ios * 1e6:.1f} | {(y[2] - x[2]) / ios:.2f} | {bql} |")
    if not rows:
        raise BadInput(f"no thread samples in any run's window: {outdir}/threads.tsv")
    print_switches(outdir, run_list, {tid: comm for tid, comm in series})


if __name__ == "__main__":
    try:
        main()
    except (BadInput, OSError) as e:
        print(f"qemu_host_view.py: error: {e}", file=sys.stderr)
        sys.exit(1)
