"""Tests for qemu_host_view.py on a made-up run directory whose answers are known.

Run from the repo top: python3 -m unittest discover -s report -v
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "qemu_host_view.py")
sys.path.insert(0, HERE)
import qemu_host_view  # noqa: E402


def make_run(path, iops=10000, cpu_per_s=0.75, switches_per_io=1.0):
    """One 8 s run of mode irqsuppress whose IOPS line comes at t=120; inside its window
    (112.4-118.8 s, its ends as sampled) the vCPU thread's counters grow at the given rates, the main loop's
    at half of them; outside it at a tenth, so that a window in the wrong place shows."""
    with open(os.path.join(path, "params.json"), "w") as f:
        json.dump({"runtime": 8, "modes": ["irqsuppress"], "futex": False}, f)
    with open(os.path.join(path, "lines.tsv"), "w") as f:
        f.write("100.000\t  guest| qemu_host_view: run 0 irqsuppress\n")
        f.write("120.000\t  guest| nvme_timeline.sh: irqsuppress: %d IOPS\n" % iops)
    with open(os.path.join(path, "threads.tsv"), "w") as f:
        f.write("t\ttid\tcomm\tcpu_s\tvol_cs\tinvol_cs\n")
        for i in range(0, 1300, 2):
            t = i / 10
            # time spent at the full rate by t: only inside the window
            full = min(max(t - 112.4, 0), 118.8 - 112.4)
            eff = full + (t - full) / 10
            for tid, comm, k in ((11, "CPU 1/TCG", 1.0), (10, "qemu-system-x86", 0.5)):
                f.write(f"{t:.3f}\t{tid}\t{comm}\t{cpu_per_s * k * eff:.3f}\t"
                        f"{int(switches_per_io * k * iops * eff)}\t0\n")


class QemuHostView(unittest.TestCase):
    def run_report(self, path):
        return subprocess.run([sys.executable, REPORT, path], capture_output=True, text=True,
                              check=False)

    def assert_clear_error(self, r, word):
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stderr.startswith("qemu_host_view.py: error: "), r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertIn(word, r.stderr)

    def test_rates_per_io(self):
        with tempfile.TemporaryDirectory() as d:
            make_run(d)
            r = self.run_report(d)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = [ln.split("|") for ln in r.stdout.splitlines() if "irqsuppress" in ln]
            vcpu = [c.strip() for c in rows[0]] if "CPU 1/TCG" in rows[0][4] else \
                [c.strip() for c in rows[1]]
            # 0.75 CPU s per s at 10,000 IOPS: 75 µs per I/O; 1 switch per I/O
            self.assertEqual(vcpu[5], "0.75")
            self.assertAlmostEqual(float(vcpu[6]), 75.0, delta=0.5)
            self.assertAlmostEqual(float(vcpu[7]), 1.0, delta=0.02)
            self.assertEqual(vcpu[8], "–")

    def test_not_a_run(self):
        with tempfile.TemporaryDirectory() as d:
            self.assert_clear_error(self.run_report(d), "params.json")

    def assert_error_with(self, name, mode, text, word):
        """A good run whose file NAME is rewritten (mode "w") or added to ("a")."""
        with tempfile.TemporaryDirectory() as d:
            make_run(d)
            with open(os.path.join(d, name), mode) as f:
                f.write(text)
            self.assert_clear_error(self.run_report(d), word)

    def test_no_result_line(self):
        self.assert_error_with("lines.tsv", "w",
                               "100.000\t  guest| qemu_host_view: run 0 irqsuppress\n", "IOPS")

    def test_malformed_sample(self):
        self.assert_error_with("threads.tsv", "a", "121.0\t11\tCPU 1/TCG\n", "threads.tsv")

    def test_lock_waits(self):
        """Two WAITs for the BQL by thread 11, one WAIT elsewhere, one WAKE: 2 waits."""
        head = "  CPU 1/TCG    11 {t}: syscalls:sys_enter_futex: uaddr: 0x1, op: {op}, val: 0x2"
        bql = "\t   8612b __GI___lll_lock_wait\n\t  96d000 qemu_mutex_lock_iothread_impl\n"
        other = "\t   8612b __GI___lll_lock_wait\n\t  96d100 qemu_cond_wait_impl\n"
        text = "\n".join([head.format(t="10.000000", op="0x00000080"), bql,
                          head.format(t="10.500000", op="0x00000080"), other,
                          head.format(t="11.000000", op="0x00000081"), bql,
                          head.format(t="12.000000", op="0x00000080"), bql])
        waits, span = qemu_host_view.parse_lock_waits(text)
        self.assertEqual(dict(waits), {"11": 2})
        self.assertAlmostEqual(span, 2.0)

    def test_switches(self):
        """Thread 11 sleeps on the lock in io_writex(), then writes the CQ head doorbell;
        writes the SQ tail doorbell; is preempted (state R: not a sleep); sleeps on the lock
        for an interrupt, then writes the APIC's EOI; sends an MSI.  Thread 10 waits for
        events."""
        switch = ("  CPU 1/TCG    {tid} {t}: sched:sched_switch: prev_comm=x prev_pid={tid} "
                  "prev_prio=120 prev_state={state} ==> next_comm=y next_pid=1 next_prio=120")
        lock = ("\tffffffff82248208 __schedule\n\t   8612b __GI___lll_lock_wait\n"
                "\t  96d000 qemu_mutex_lock_iothread_impl\n\t  6924a6 {caller}\n")
        probe = "  CPU 1/TCG    11 {t}: qemu_host_view:{fn}: (5580a04db3b0) addr={addr}"
        text = "\n".join([
            switch.format(tid=11, t="10.000000", state="S"), lock.format(caller="io_writex"),
            probe.format(t="10.000100", fn="nvme_mmio_write", addr="0x100c"), "",
            probe.format(t="10.000200", fn="nvme_mmio_write", addr="0x1008"), "",
            switch.format(tid=11, t="10.100000", state="R"), lock.format(caller="io_writex"),
            probe.format(t="10.100100", fn="nvme_mmio_write", addr="0x1008"), "",
            switch.format(tid=11, t="10.200000", state="S"),
            lock.format(caller="cpu_handle_interrupt"),
            probe.format(t="10.200100", fn="apic_mem_write", addr="0xb0"), "",
            probe.format(t="10.300000", fn="apic_mem_write", addr="0x1000"), "",
            switch.format(tid=10, t="11.000000", state="S"),
            "\t  400000 qemu_poll_ns\n\t  400100 os_host_main_loop_wait\n"])
        sleeps, waits_for, writes, span = qemu_host_view.parse_switches(text)
        self.assertEqual(dict(sleeps), {("11", "BQL: MMIO write"): 1,
                                        ("11", "BQL: interrupt"): 1,
                                        ("10", "main loop: no event"): 1})
        self.assertEqual(dict(waits_for), {("11", "NVMe CQ head doorbell"): 1})
        self.assertEqual(dict(writes), {("11", "NVMe CQ head doorbell"): 1,
                                        ("11", "NVMe SQ tail doorbell"): 2,
                                        ("11", "APIC EOI"): 1,
                                        ("11", "MSI (an interrupt sent)"): 1})
        self.assertAlmostEqual(span, 1.0)


if __name__ == "__main__":
    unittest.main()
