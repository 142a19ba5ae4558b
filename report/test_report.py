"""Tests for report.py, on the stored samples in samples/results/ (real fio json+
from the host; counters written by samples/make_samples.py).

Run from the repo top: python3 -m unittest discover -s report -v
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

SAMPLES = os.path.join(HERE, "samples", "results")
REPORT = os.path.join(HERE, "report.py")
OUTPUTS = ("results.json", "report.md", "latency.png")


def run_report(results_dir):
    return subprocess.run([sys.executable, REPORT, results_dir], capture_output=True, text=True)


class TempResults(unittest.TestCase):
    """Each test gets its own copy of the samples in self.dir."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.dir = os.path.join(self.tmp, "results")
        shutil.copytree(SAMPLES, self.dir)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fio_of(self, name, raw="raw"):
        with open(os.path.join(self.dir, raw, name + ".fio.json")) as f:
            return json.load(f)["jobs"][0]["read"]

    def set_iops(self, name, iops):
        """Overwrite the IOPS that fio reported for one sample run."""
        path = os.path.join(self.dir, "raw", name + ".fio.json")
        with open(path) as f:
            fio = json.load(f)
        fio["jobs"][0]["read"]["iops"] = iops
        with open(path, "w") as f:
            json.dump(fio, f)


class TestRunMetrics(TempResults):
    def test_iops_and_percentiles_come_from_fio(self):
        runs = {r["source"]: r for r in report.load_runs(self.dir)}
        for name in ("psync_qd1_randread__off__r1", "libaio_qd32_randread__on__r1"):
            fio = self.fio_of(name)
            m = report.run_metrics(runs[f"raw/{name}.json"])
            self.assertAlmostEqual(m["iops"], fio["iops"])
            self.assertGreater(m["iops"], 100)
            pct = fio["clat_ns"]["percentile"]
            self.assertAlmostEqual(m["clat_us"]["p50"], pct["50.000000"] / 1000)
            self.assertAlmostEqual(m["clat_us"]["p99"], pct["99.000000"] / 1000)
            self.assertAlmostEqual(m["clat_us"]["p99.9"], pct["99.900000"] / 1000)

    def test_per_io_costs_and_poll_shares(self):
        # make_samples.py: on = 0.01 ctx/IO, 1 IRQ/IO, 50 µs CPU/IO, 95 % woken, 5 % budget.
        runs = {r["source"]: r for r in report.load_runs(self.dir)}
        on = report.run_metrics(runs["raw/psync_qd1_randread__on__r1.json"])
        self.assertEqual(on["ios"], self.fio_of("psync_qd1_randread__on__r1")["total_ios"])
        self.assertAlmostEqual(on["irq_per_io"], 1.0)
        self.assertAlmostEqual(on["ctx_per_io"], (on["ios"] // 100) / on["ios"])
        self.assertAlmostEqual(on["cpu_us_per_io"], (5 * on["ios"] // 1000) * 1e4 / on["ios"])
        waits = on["ios"]
        self.assertAlmostEqual(on["nosleep_share"], (waits - waits // 20) / waits)
        self.assertAlmostEqual(on["exit_shares"]["exit_budget"], (waits // 20) / waits)
        self.assertAlmostEqual(on["reaped_share"], (3 * waits // 1000) / waits)
        off = report.run_metrics(runs["raw/psync_qd1_randread__off__r1.json"])
        self.assertIsNone(off["nosleep_share"])
        self.assertAlmostEqual(off["ctx_per_io"], 1.0)

    def test_nosleep_share_counts_woken_reaped_signal(self):
        stats = {n: 0 for n in report.EXITS + ["waits", "reaped"]}
        after = dict(stats, waits=10, reaped=2, exit_woken=5, exit_reaped=2, exit_signal=1,
                     exit_busy=1, exit_budget=1)
        run = {"workload": "w", "mode": "on", "rep": 1,
               "before": {"poll_stats": stats, "diskstat": [0] * 11},
               "after": {"poll_stats": after, "diskstat": [20] + [0] * 10}}
        m = report.run_metrics(run)
        self.assertAlmostEqual(m["nosleep_share"], 0.8)
        self.assertAlmostEqual(m["reaped_share"], 0.1)

    def test_clat_cdf_ends_at_one_and_rises(self):
        runs = report.load_runs(self.dir)
        cdf = report.clat_cdf(runs, "psync_qd1_randread", "off")
        self.assertGreater(len(cdf), 10)
        self.assertAlmostEqual(cdf[-1][1], 1.0)
        self.assertEqual(cdf, sorted(cdf))


class TestSummary(TempResults):
    def add_rep3(self, workload, mode):
        """A third rep, copied from rep 1."""
        raw = os.path.join(self.dir, "raw")
        with open(os.path.join(raw, f"{workload}__{mode}__r1.json")) as f:
            run = json.load(f)
        run.update(rep=3, fio_file=f"{workload}__{mode}__r3.fio.json")
        with open(os.path.join(raw, f"{workload}__{mode}__r3.json"), "w") as f:
            json.dump(run, f)
        shutil.copy(os.path.join(raw, f"{workload}__{mode}__r1.fio.json"),
                    os.path.join(raw, run["fio_file"]))

    def test_ratio_of_medians(self):
        for mode in ("off", "on", "iopoll"):
            self.add_rep3("psync_qd1_randread", mode)
        for rep, off, on, iopoll in ((1, 100.0, 150.0, 200.0), (2, 300.0, 170.0, 180.0),
                                     (3, 110.0, 160.0, 190.0)):
            self.set_iops(f"psync_qd1_randread__off__r{rep}", off)
            self.set_iops(f"psync_qd1_randread__on__r{rep}", on)
            self.set_iops(f"psync_qd1_randread__iopoll__r{rep}", iopoll)
        results, _ = report.build(self.dir)
        s = results["summary"]
        self.assertAlmostEqual(s["psync_qd1_on_vs_off"], 160.0 / 110.0)
        self.assertAlmostEqual(s["psync_qd1_on_vs_iopoll"], 160.0 / 190.0)
        row = report.find_row(results["rows"], "psync_qd1_randread", "off")
        self.assertEqual(row["iops"], {"median": 110.0, "min": 100.0, "max": 300.0})
        self.assertEqual(row["reps"], 3)
        idle = self.fio_of("psync_qd1_randread__idlepoll__r1", raw="raw-idlepoll")["iops"]
        self.assertAlmostEqual(s["psync_qd1_on_vs_idlepoll"], 160.0 / idle)

    def test_known_sample_ratios(self):
        s = report.build(self.dir)[0]["summary"]
        self.assertAlmostEqual(s["metadata_off_vs_on"], 1.25)
        self.assertAlmostEqual(s["corunner_on_vs_off"], 0.96)
        self.assertAlmostEqual(s["nosleep_share_psync_qd1"], 0.95, places=2)
        self.assertIsNone(s["buffered_on_vs_off"])  # no buffered runs in the samples

    def test_summary_keys_present(self):
        self.assertEqual(run_report(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "results.json")) as f:
            results = json.load(f)
        for key in ("psync_qd1_on_vs_off", "psync_qd1_on_vs_iopoll", "buffered_on_vs_off",
                    "metadata_off_vs_on", "libaio_qd32_on_vs_off", "corunner_on_vs_off",
                    "psync_qd1_on_vs_idlepoll", "nosleep_share_psync_qd1",
                    "reaped_share_psync_qd1"):
            self.assertIn(key, results["summary"])
        self.assertEqual(len(results["runs"]), len(glob.glob(os.path.join(self.dir, "raw*", "*__r*.json")))
                         - len(glob.glob(os.path.join(self.dir, "raw*", "*.fio.json"))))
        self.assertIn("jobs", results["runs"][0]["fio"])  # fio json+ kept whole
        self.assertIn("bins", results["runs"][0]["fio"]["jobs"][0]["read"]["clat_ns"])


class TestMarkdown(TempResults):
    def test_tables_and_targets(self):
        self.assertEqual(run_report(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        for heading in ("### psync_qd1_randread", "### libaio_qd32_randread", "### metadata_walk",
                        "### corunner", "## Targets", "## Setup"):
            self.assertIn(heading, md)
        iops = self.fio_of("psync_qd1_randread__idlepoll__r1", raw="raw-idlepoll")["iops"]
        self.assertIn(f"| off, idle=poll boot | 1 | {iops:,.0f} [", md)
        self.assertIn("| on (iowait_poll) | 2 |", md)
        self.assertIn("| io_uring IOPOLL | 2 |", md)
        self.assertIn("| ext4 metadata walk time, off ÷ on | metadata_off_vs_on | 1.250 | ≥ 1.25 | met |", md)
        self.assertIn("| buffered_on_vs_off | – | ≥ 1.40 | no data |", md)
        self.assertIn("| accel | tcg,thread=multi |", md)
        self.assertIn("ratios of the medians", md)

    def test_missing_meta_fields_say_unknown(self):
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump({"accel": "tcg"}, f)
        self.assertEqual(run_report(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        self.assertIn("| qemu | unknown |", md)
        self.assertIn("| accel | tcg |", md)


class TestBadInput(TempResults):
    def assert_rejected(self, results_dir):
        result = run_report(results_dir)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("error", result.stderr)
        for name in OUTPUTS:
            self.assertFalse(os.path.exists(os.path.join(results_dir, name)), name)

    def test_missing_dir(self):
        self.assert_rejected(os.path.join(self.tmp, "nope"))

    def test_no_runs(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(os.path.join(empty, "raw"))
        self.assert_rejected(empty)

    def test_malformed_sidecar(self):
        with open(os.path.join(self.dir, "raw", "corunner__on__r1.json"), "w") as f:
            f.write('{"workload": "corunner", ')
        self.assert_rejected(self.dir)

    def test_malformed_fio_json(self):
        with open(os.path.join(self.dir, "raw", "corunner__on__r1.fio.json"), "w") as f:
            f.write("{ not json")
        self.assert_rejected(self.dir)

    def test_sidecar_missing_counters(self):
        path = os.path.join(self.dir, "raw", "corunner__on__r1.json")
        with open(path) as f:
            run = json.load(f)
        del run["after"]["poll_stats"]
        run["after"]["irqs"] = "many"
        with open(path, "w") as f:
            json.dump(run, f)
        self.assert_rejected(self.dir)


if __name__ == "__main__":
    unittest.main()
