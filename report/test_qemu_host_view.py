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
    """One 8 s run of mode irqsuppress ending at t=120; the vCPU thread's counters grow
    at the given rates, the main loop's at half of them."""
    with open(os.path.join(path, "params.json"), "w") as f:
        json.dump({"runtime": 8, "modes": ["irqsuppress"], "futex": False}, f)
    with open(os.path.join(path, "lines.tsv"), "w") as f:
        f.write("100.000\t  guest| qemu_host_view: run 0 irqsuppress\n")
        f.write("120.000\t  guest| nvme_timeline.sh: irqsuppress: %d IOPS\n" % iops)
    with open(os.path.join(path, "threads.tsv"), "w") as f:
        f.write("t\ttid\tcomm\tcpu_s\tvol_cs\tinvol_cs\n")
        for i in range(0, 1300, 2):
            t = i / 10
            for tid, comm, k in ((11, "CPU 1/TCG", 1.0), (10, "qemu-system-x86", 0.5)):
                f.write(f"{t:.3f}\t{tid}\t{comm}\t{cpu_per_s * k * t:.2f}\t"
                        f"{int(switches_per_io * k * iops * t)}\t0\n")


class QemuHostView(unittest.TestCase):
    def run_report(self, path):
        return subprocess.run([sys.executable, REPORT, path], capture_output=True, text=True,
                              check=False)

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
            r = self.run_report(d)
            self.assertEqual(r.returncode, 1)
            self.assertIn("params.json", r.stderr)

    def test_no_result_line(self):
        with tempfile.TemporaryDirectory() as d:
            make_run(d)
            with open(os.path.join(d, "lines.tsv"), "w") as f:
                f.write("100.000\t  guest| qemu_host_view: run 0 irqsuppress\n")
            r = self.run_report(d)
            self.assertEqual(r.returncode, 1)
            self.assertIn("IOPS", r.stderr)


if __name__ == "__main__":
    unittest.main()
