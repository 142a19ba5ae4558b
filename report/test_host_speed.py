"""Tests for scripts/host_speed.py's wait for a fast host (guest/bench.sh calls it before
each rep) and its verdict on the runs of a round (after each round of reps). Here because
make check discovers the tests in report/.

Run from the repo top: python3 -m unittest discover -s report -v
"""
import json
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


class ProbeFile(unittest.TestCase):
    """A host-load.tsv in a temporary directory, its samples 5 s apart from t = 1000 s."""

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


class WaitFast(ProbeFile):
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


class SlowRuns(ProbeFile):

    def run_file(self, name, start_s, end_s):
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as f:
            json.dump({"before": {"t_ns": int(start_s * 1e9)},
                       "after": {"t_ns": int(end_s * 1e9)}}, f)
        return path

    def test_the_runs_beside_a_slow_sample(self):
        self.write([4.5] * 13 + [8.0] + [4.5] * 2)
        runs = [self.run_file("a", 1055.0, 1059.0),  # 1060 s, fast; 1065 s is 6 s away
                self.run_file("b", 1059.5, 1063.5),  # 1065 s is 1.5 s after its end
                self.run_file("c", 1066.0, 1070.0),  # 1065 s is 1 s before its start
                self.run_file("d", 1068.0, 1072.0)]  # 1065 s is 3 s before its start
        self.assertEqual(host_speed.slow_runs(self.path, runs), [runs[1], runs[2]])

    def test_waits_for_the_sample_that_closes_the_window(self):
        self.write([4.5] * 14)
        run = self.run_file("a", 1066.0, 1067.5)  # the 1070 s sample closes its window
        writer = threading.Timer(1.2, self.write, args=([8.0], "a"))
        writer.start()
        try:
            start = time.monotonic()
            slow = host_speed.slow_runs(self.path, [run])
        finally:
            writer.join()
        self.assertEqual(slow, [run])
        self.assertGreaterEqual(time.monotonic() - start, 1.2)

    def test_no_verdict_before_a_minute_of_samples(self):
        self.write([4.5] * 5 + [8.0])
        self.assertEqual(host_speed.slow_runs(self.path, [self.run_file("a", 1020.0, 1022.0)]), [])

    def test_command_line(self):
        self.write([4.5] * 13 + [8.0] + [4.5])
        slow, fast = self.run_file("slow", 1063.0, 1066.0), self.run_file("fast", 1000.0, 1003.0)
        out = subprocess.run([sys.executable, "-I", "-S", HOST_SPEED, "--slow-runs", self.path,
                              fast, slow], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout, slow + "\n")
        out = subprocess.run([sys.executable, HOST_SPEED, "--slow-runs", self.path,
                              os.path.join(self.tmp, "none.json")], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("--slow-runs", out.stderr)


if __name__ == "__main__":
    unittest.main()
