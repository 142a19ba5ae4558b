"""Tests for scripts/host_speed.py's wait for a fast host (guest/bench.sh calls it before
each rep). Here because make check discovers the tests in report/.

Run from the repo top: python3 -m unittest discover -s report -v
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HOST_SPEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                          "host_speed.py")
sys.path.insert(0, os.path.dirname(HOST_SPEED))
import host_speed  # noqa: E402


class WaitFast(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.path = os.path.join(self.tmp, "host-load.tsv")
        self.t = 1000.0

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, probes, mode="w", qemu="800"):
        with open(self.path, mode) as f:
            if mode == "w":
                f.write("time\tload1\tcpu_busy\tcpu_total\tqemu_cpu\tprobe_ms\n")
            for ms in probes:
                f.write(f"{self.t}\t0.10\t100\t1000\t{qemu}\t{ms}\n")
                self.t += 5

    def test_no_wait_while_the_host_is_fast(self):
        self.write([4.5] * 14)
        self.assertEqual(host_speed.wait_fast(self.path, 5), 0.0)

    def test_waits_for_the_whole_bound_while_slow(self):
        self.write([4.5] * 13 + [8.0])
        waited = host_speed.wait_fast(self.path, 1.5)
        self.assertGreaterEqual(waited, 1.5)
        self.assertLess(waited, 4)

    def test_stops_waiting_when_a_fast_sample_comes(self):
        self.write([4.5] * 13 + [8.0])
        writer = threading.Timer(1.2, self.write, args=([4.4], "a"))
        writer.start()
        try:
            waited = host_speed.wait_fast(self.path, 30)
        finally:
            writer.join()
        self.assertGreaterEqual(waited, 1.2)
        self.assertLess(waited, 5)

    def test_too_few_samples_or_no_file_do_not_wait(self):
        self.write([4.5] * 5 + [8.0])
        self.assertEqual(host_speed.wait_fast(self.path, 5), 0.0)
        self.assertEqual(host_speed.wait_fast(os.path.join(self.tmp, "none.tsv"), 5), 0.0)

    def test_samples_without_qemu_failed_or_half_written_are_not_read(self):
        self.write([4.5] * 13 + [8.0])
        self.write(["-"], "a")
        self.write([4.0], "a", qemu="-")
        with open(self.path, "a") as f:
            f.write(f"{self.t}\t0.10\t100\t1000\t800\t4")  # no newline yet
        self.assertEqual(host_speed.read_probes(self.path), [4.5] * 13 + [8.0])

    def test_slow_rule(self):
        # 1.4 times the 10th percentile: here the second smallest of 14.
        self.assertAlmostEqual(host_speed.slow_probe_ms([4.0, 4.2] + [5.0] * 12), 1.4 * 4.2)
        self.assertIsNone(host_speed.slow_probe_ms([]))

    def test_command_line(self):
        self.write([4.5] * 14)
        out = subprocess.run([sys.executable, HOST_SPEED, "--wait-fast", self.path, "3"],
                             capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout, "0.0\n")
        for bad in (["--wait-fast", self.path], ["--wait-fast", self.path, "x"],
                    ["--wait-fast", self.path, "-1"], ["--bogus"]):
            out = subprocess.run([sys.executable, HOST_SPEED] + bad, capture_output=True,
                                 text=True)
            self.assertEqual(out.returncode, 2, bad)
            self.assertIn("usage", out.stderr)
        start = time.monotonic()
        out = subprocess.run([sys.executable, "-I", "-S", HOST_SPEED], capture_output=True,
                             text=True, check=True)
        self.assertRegex(out.stdout, r"^[0-9]+\.[0-9]{2}\n$")
        self.assertLess(time.monotonic() - start, 5)


if __name__ == "__main__":
    unittest.main()
