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
        sys.path.insert(0, HERE)
        import qemu_host_view  # noqa: E402
        waits, span = qemu_host_view.parse_lock_waits(text)
        self.assertEqual(dict(waits), {"11": 2})
        self.assertAlmostEqual(span, 2.0)


if __name__ == "__main__":
    unittest.main()
