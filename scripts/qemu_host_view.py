#!/usr/bin/env python3
"""QEMU seen from the host while the guest reads at psync QD1 in several modes.

Boots the bench kernel (scripts/vm.sh -p bench) and runs guest/nvme_timeline.sh once per
mode, RUNTIME s each.  Meanwhile it samples each QEMU thread's CPU time and context
switches from /proc every 0.2 s and stamps each guest line with CLOCK_MONOTONIC as it
reads it (up to 1 s late: vm.sh reads the guest's log once a second); with --futex, perf
records QEMU's futex() calls with their call chains for 2 s in each run, with --switches
its threads' context switches (sched:sched_switch) with theirs and, if QEMU has symbols
(scripts/qemu-symbols.sh), its MMIO writes to the NVMe devices and the APIC (uprobes).
report/qemu_host_view.py turns OUTDIR into a table per mode.

usage: qemu_host_view.py [--futex] [--switches] [--runtime S] [--append ARGS] OUTDIR MODE...
  MODE: off, on, irqsuppress or iopoll (guest/nvme_timeline.sh's modes)
Writes OUTDIR/params.json, lines.tsv, threads.tsv, perf-{futex,switch}-RUN.data and
OUTDIR/vm/.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIET_S = 2          # nvme_timeline.sh's pause before each run
RECORD_DELAY_S = 3   # after the run's start line: the pause and fio's start
RECORD_SPAN_S = 2
# One group per run: two runs at once do not remove each other's probes.
PROBE_GROUP = f"qemu_host_view_{os.getpid()}"
PROBES = ("nvme_mmio_write addr", "apic_mem_write addr")


def die(msg):
    print(f"qemu_host_view.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def qemu_pid(vm, outdir):
    """The QEMU that vm.sh started for OUTDIR, or None."""
    for _ in range(1200):
        if vm.poll() is not None:
            return None
        r = subprocess.run(["pgrep", "-f", f"^qemu-system-x86_64 .*{outdir}/vm/"],
                           capture_output=True, text=True, check=False)
        pids = r.stdout.split()
        if len(pids) == 1:
            return int(pids[0])
        time.sleep(0.1)
    return None


def sample_threads(pid, path, done):
    hz = os.sysconf("SC_CLK_TCK")
    with open(path, "w") as f:
        f.write("t\ttid\tcomm\tcpu_s\tvol_cs\tinvol_cs\n")
        while not done.is_set():
            t = time.monotonic()
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except FileNotFoundError:
                return
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/stat") as s:
                        stat = s.read()
                    with open(f"/proc/{pid}/task/{tid}/status") as s:
                        status = dict(ln.split(":\t", 1) for ln in s if ":\t" in ln)
                except (FileNotFoundError, ProcessLookupError):
                    continue
                comm = stat[stat.index("(") + 1:stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2:].split()
                cpu = (int(fields[11]) + int(fields[12])) / hz
                f.write(f"{t:.3f}\t{tid}\t{comm}\t{cpu:.2f}\t"
                        f"{status['voluntary_ctxt_switches'].strip()}\t"
                        f"{status['nonvoluntary_ctxt_switches'].strip()}\n")
            f.flush()
            time.sleep(0.2)


def remove_probes():
    subprocess.run(["perf", "probe", "-q", "-d", f"{PROBE_GROUP}:*"], capture_output=True,
                   check=False)


def add_probes(pid):
    """Uprobes on QEMU's MMIO write handlers: their events, or none if QEMU has no symbols."""
    exe = os.readlink(f"/proc/{pid}/exe")
    events = [f"{PROBE_GROUP}:{spec.split()[0]}" for spec in PROBES]
    remove_probes()
    for event, spec in zip(events, PROBES):
        r = subprocess.run(["perf", "probe", "-q", "-x", exe, "--add", f"{event}={spec}"],
                           capture_output=True, text=True, check=False)
        if r.returncode:
            detail = r.stderr.strip()[:200]
            print(f"qemu_host_view.py: warning: no MMIO write probes in {exe} (no symbols? "
                  f"see scripts/qemu-symbols.sh){': ' + detail if detail else ''}",
                  file=sys.stderr)
            remove_probes()
            return []
    return events


def record(pid, events, path):
    time.sleep(RECORD_DELAY_S)
    r = subprocess.run(["perf", "record", "-q", "--call-graph", "dwarf,4096"] +
                       [arg for e in events for arg in ("-e", e)] +
                       ["-p", str(pid), "-o", path, "--", "sleep", str(RECORD_SPAN_S)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if r.returncode:
        print(f"qemu_host_view.py: warning: perf record for {path} failed: "
              f"{r.stderr.strip()[:200]}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--futex", action="store_true")
    ap.add_argument("--switches", action="store_true")
    ap.add_argument("--runtime", type=int, default=8)
    ap.add_argument("--append", default="", help="more kernel command line for the guest")
    ap.add_argument("outdir")
    ap.add_argument("modes", nargs="+")
    a = ap.parse_args()
    for m in a.modes:
        if m not in ("off", "on", "irqsuppress", "iopoll"):
            die(f"mode {m!r} is not off, on, irqsuppress or iopoll")
    if not 3 <= a.runtime <= 60:
        die(f"--runtime {a.runtime} is not 3-60 s")
    events = {}                 # perf-NAME-RUN.data: its events
    if a.futex:
        events["futex"] = ["syscalls:sys_enter_futex"]
    if a.switches:
        events["switch"] = ["sched:sched_switch"]
    if events and not shutil.which("perf"):
        die("--futex and --switches need perf (apt install linux-perf)")
    if events and a.runtime < RECORD_DELAY_S + RECORD_SPAN_S + 1:
        die(f"--futex and --switches need --runtime of at least "
            f"{RECORD_DELAY_S + RECORD_SPAN_S + 1} s: perf records from {RECORD_DELAY_S} "
            f"to {RECORD_DELAY_S + RECORD_SPAN_S} s after a run's start")
    outdir = os.path.abspath(a.outdir)
    if os.path.exists(outdir):
        die(f"{outdir} exists; give a new directory")
    os.makedirs(outdir)
    with open(f"{outdir}/params.json", "w") as f:
        json.dump({"runtime": a.runtime, "modes": a.modes, "futex": a.futex,
                   "switches": a.switches, "append": a.append}, f)
    guest = "; ".join(f"echo qemu_host_view: run {i} {m}; MODES={m} RUNTIME={a.runtime} "
                      f"QUIET={QUIET_S} PIN=last bash guest/nvme_timeline.sh"
                      for i, m in enumerate(a.modes))
    vm = subprocess.Popen([f"{TOP}/scripts/vm.sh", "-p", "bench", "-o", f"{outdir}/vm",
                           "-a", a.append,
                           "-t", str(len(a.modes) * (a.runtime + 30) + 300), "--", guest],
                          cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    done = threading.Event()
    sampler, recorders = None, []
    try:
        pid = qemu_pid(vm, outdir)
        if pid is None:
            vm.kill()
            die(f"no QEMU for this boot within 120 s; see {outdir}/vm/ and "
                f"{outdir}/vm/qemu.log")
        if a.switches:
            events["switch"] += add_probes(pid)
        sampler = threading.Thread(target=sample_threads,
                                   args=(pid, f"{outdir}/threads.tsv", done))
        sampler.start()
        with open(f"{outdir}/lines.tsv", "w") as f:
            for line in vm.stdout:
                f.write(f"{time.monotonic():.3f}\t{line}")
                f.flush()
                words = line.split()
                if events and "qemu_host_view: run" in line and "echo" not in words:
                    run = words[words.index("run") + 1]
                    for name, perf_events in events.items():
                        r = threading.Thread(target=record, args=(
                            pid, perf_events, f"{outdir}/perf-{name}-{run}.data"))
                        r.start()
                        recorders.append(r)
        rc = vm.wait()
    finally:
        if vm.poll() is None:
            vm.terminate()
        done.set()
        if sampler:
            sampler.join()
        for r in recorders:
            r.join()
        if a.switches:
            remove_probes()
    if rc:
        die(f"vm.sh failed ({rc}); see {outdir}/lines.tsv and {outdir}/vm/")
    print(f"qemu_host_view.py: wrote {outdir}; report: python3 report/qemu_host_view.py {outdir}")


if __name__ == "__main__":
    main()
