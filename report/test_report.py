"""Tests for report.py, on the stored samples in samples/results/ (real fio json+
from the host; counters written by samples/make_samples.py).

Run from the repo top: python3 -m unittest discover -s report -v
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

SAMPLES = os.path.join(HERE, "samples", "results")
REPORT = os.path.join(HERE, "report.py")
HOST_SPEED_REPS = os.path.join(HERE, "..", "scripts", "host_speed_reps.py")
OUTPUTS = ("results.json", "report.md", "latency.png")


def point(summary):
    """The summary's values without their intervals."""
    return {k: (v["median"] if v else None) for k, v in summary.items()}


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

    def set_fio(self, name, raw="raw", **fields):
        """Overwrite fields of the read direction that fio reported for one sample run."""
        path = os.path.join(self.dir, raw, name + ".fio.json")
        with open(path) as f:
            fio = json.load(f)
        fio["jobs"][0]["read"].update(fields)
        with open(path, "w") as f:
            json.dump(fio, f)

    def set_iops(self, name, iops, raw="raw"):
        """Overwrite the IOPS that fio reported for one sample run."""
        self.set_fio(name, raw=raw, iops=iops)

    def report_md(self):
        """Run report.py on the samples copy; return its report.md."""
        self.assertEqual(run_report(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            return f.read()

    def copy_run(self, name, workload):
        """A copy of sample run `name` (sidecar and fio output) as a run of `workload`."""
        raw = os.path.join(self.dir, "raw")
        with open(os.path.join(raw, name + ".json")) as f:
            run = json.load(f)
        new = name.replace(run["workload"], workload)
        run.update(workload=workload, fio_file=new + ".fio.json")
        with open(os.path.join(raw, new + ".json"), "w") as f:
            json.dump(run, f)
        shutil.copy(os.path.join(raw, name + ".fio.json"), os.path.join(raw, run["fio_file"]))
        return new

    def ios_of(self, name):
        """The I/Os of a sample run (make_samples.py counts fio's)."""
        return self.fio_of(name)["total_ios"]

    def per_run(self, workload, mode, f):
        """The median over the sample reps of f(ios) (make_samples.py's formulas)."""
        names = [os.path.basename(p)[:-len(".fio.json")]
                 for p in glob.glob(os.path.join(self.dir, "raw", f"{workload}__{mode}__r*.fio.json"))]
        self.assertTrue(names)
        return statistics.median(f(self.ios_of(n)) for n in names)


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

    def test_lat_mean_comes_from_fio(self):
        runs = {r["source"]: r for r in report.load_runs(self.dir)}
        for name in ("psync_qd1_randread__irqsuppress__r1", "libaio_qd32_randread__napi__r1"):
            m = report.run_metrics(runs[f"raw/{name}.json"])
            self.assertAlmostEqual(m["lat_mean_us"], self.fio_of(name)["lat_ns"]["mean"] / 1000)

    def test_new_mode_counters(self):
        # make_samples.py: irqsuppress 0.05 IRQ/IO; napi submit_reaped = 50 % of the I/Os,
        # 40 µs CPU/IO and no polled waits.
        runs = {r["source"]: r for r in report.load_runs(self.dir)}
        irqs = report.run_metrics(runs["raw/psync_qd1_randread__irqsuppress__r1.json"])
        ios = self.ios_of("psync_qd1_randread__irqsuppress__r1")
        self.assertAlmostEqual(irqs["irq_per_io"], (50 * ios // 1000) / ios)
        self.assertEqual(irqs["poll_delta"]["irq_held"], ios - ios // 20)
        napi = report.run_metrics(runs["raw/psync_qd1_randread__napi__r1.json"])
        ios = self.ios_of("psync_qd1_randread__napi__r1")
        self.assertIsNone(napi["nosleep_share"])
        self.assertEqual(napi["poll_delta"]["waits"], 0)  # no polled waits
        self.assertAlmostEqual(napi["cpu_us_per_io"], (4 * ios // 1000) * 1e4 / ios)
        self.assertAlmostEqual(napi["submit_reaped_share"], (ios // 2) / ios)

    def test_old_counters_without_new_lines(self):
        # Runs from a kernel without the new stats lines: the new per-run fields are None.
        stats = {n: 0 for n in report.EXITS + ["waits", "reaped"]}
        run = {"workload": "w", "mode": "on", "rep": 1,
               "before": {"poll_stats": stats, "diskstat": [0] * 11},
               "after": {"poll_stats": dict(stats, waits=4, exit_woken=4), "diskstat": [4] + [0] * 10}}
        m = report.run_metrics(run)
        self.assertIsNone(m["submit_reaped_share"])
        # Every stats line is a counter: its delta over the run.
        self.assertEqual(m["poll_delta"], dict(stats, waits=4, exit_woken=4))

    def test_budget_ns_is_the_budget_at_the_end_not_a_delta(self):
        stats = {n: 0 for n in report.EXITS + ["waits", "reaped"]}
        run = {"workload": "w", "mode": "on", "rep": 1,
               "before": {"poll_stats": dict(stats, budget_ns=200000), "diskstat": [0] * 11},
               "after": {"poll_stats": dict(stats, waits=4, exit_woken=4, budget_ns=458752),
                         "diskstat": [4] + [0] * 10}}
        m = report.run_metrics(run)
        self.assertAlmostEqual(m["budget_us_end"], 458.752)
        self.assertNotIn("budget_ns", m["poll_delta"])
        del run["after"]["poll_stats"]["budget_ns"]
        self.assertIsNone(report.run_metrics(run)["budget_us_end"])

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

    def test_moderation_keys(self):
        results, _ = report.build(self.dir)
        s = point(results["summary"])
        rows = results["rows"]
        w = "libaio_qd32_randread"
        for key, field in (("cpu_per_io", "cpu_us_per_io"), ("iops", "iops"),
                           ("ctx_per_io", "ctx_per_io")):
            self.assertAlmostEqual(s[f"moderation_qd32_{key}_vs_off"],
                                   report.row_value(rows, w, "napi", field) /
                                   report.row_value(rows, w, "off", field), msg=key)
        self.assertLess(s[report.moderation_key("libaio", 32, "irq_per_io")], 1.0)
        for key in ("moderation_uring_qd128_iops_vs_off", "off_vs_stock_libaio_qd128"):
            self.assertIsNone(s[key], key)  # no such runs in the samples
        self.assertEqual(set(s), {key for key, _, _ in report.SUMMARY})

    def test_ratio_of_medians(self):
        for mode in ("off", "on", "iopoll"):
            self.add_rep3("psync_qd1_randread", mode)
        for rep, off, on, iopoll in ((1, 100.0, 150.0, 200.0), (2, 300.0, 170.0, 180.0),
                                     (3, 110.0, 160.0, 190.0)):
            self.set_iops(f"psync_qd1_randread__off__r{rep}", off)
            self.set_iops(f"psync_qd1_randread__on__r{rep}", on)
            self.set_iops(f"psync_qd1_randread__iopoll__r{rep}", iopoll)
        results, _ = report.build(self.dir)
        s = point(results["summary"])
        self.assertAlmostEqual(s["psync_qd1_on_vs_off"], 160.0 / 110.0)
        self.assertAlmostEqual(s["psync_qd1_on_vs_iopoll"], 160.0 / 190.0)
        self.assertAlmostEqual(s["psync_qd1_iopoll_vs_off"], 190.0 / 110.0)
        row = report.find_row(results["rows"], "psync_qd1_randread", "off")
        self.assertEqual(row["iops"], {"median": 110.0, "min": 100.0, "max": 300.0})
        self.assertEqual(row["reps"], 3)
        idle = self.fio_of("psync_qd1_randread__idlepoll__r1", raw="raw-idlepoll")["iops"]
        self.assertAlmostEqual(s["psync_qd1_on_vs_idlepoll"], 160.0 / idle)

    def test_known_sample_ratios(self):
        s = point(report.build(self.dir)[0]["summary"])
        self.assertAlmostEqual(s["metadata_off_vs_on"], 1.25)
        self.assertAlmostEqual(s["corunner_on_vs_off"], 0.96)
        self.assertAlmostEqual(s["nosleep_share_psync_qd1"], 0.95, places=2)
        self.assertIsNone(s["buffered_on_vs_off"])  # no buffered runs in the samples

    def test_mode_order(self):
        rows = report.build(self.dir)[0]["rows"]
        modes = [r["mode"] for r in rows if r["workload"] == "psync_qd1_randread"]
        self.assertEqual(modes, ["off", "on", "irqsuppress", "napi", "iopoll", "hipri",
                                 "idlepoll", "stock", "stock_iopoll", "stock_hipri"])

    def test_new_mode_ratios(self):
        p = "psync_qd1_randread"
        for rep in (1, 2):
            for mode, iops in (("off", 100.0), ("on", 150.0), ("irqsuppress", 160.0), ("napi", 98.0),
                               ("iopoll", 170.0), ("hipri", 144.0)):
                self.set_iops(f"{p}__{mode}__r{rep}", iops)
            self.set_iops(f"{p}__stock_hipri__r{rep}", 96.0, raw="raw-stock")
        self.set_iops("libaio_qd32_randread__off__r1", 1000.0)
        self.set_iops("libaio_qd32_randread__napi__r1", 990.0)
        s = point(report.build(self.dir)[0]["summary"])
        self.assertAlmostEqual(s["psync_qd1_irqsuppress_vs_iopoll"], 160.0 / 170.0)
        self.assertAlmostEqual(s["psync_qd1_irqsuppress_vs_off"], 1.6)
        self.assertAlmostEqual(s["napi_qd1_vs_off"], 0.98)
        self.assertAlmostEqual(s["hipri_vs_off_psync_qd1"], 1.44)
        self.assertAlmostEqual(s["hipri_vs_on_psync_qd1"], 0.96)
        self.assertAlmostEqual(s["hipri_vs_stock_psync_qd1"], 1.5)
        self.assertAlmostEqual(s["nosleep_share_hipri_psync_qd1"], 0.95, places=2)
        self.assertAlmostEqual(s["napi_qd32_vs_off"], 0.99)
        # CPU per I/O: libaio off 5, napi 4 busy jiffies per 1000 I/Os.
        cpu = {j: (lambda ios, j=j: (j * ios // 1000) * 1e4 / ios) for j in (4, 5)}
        cpu_off_vs_napi = (self.per_run("libaio_qd32_randread", "off", cpu[5])
                           / self.per_run("libaio_qd32_randread", "napi", cpu[4]))
        self.assertAlmostEqual(s["napi_qd32_cpu_off_vs_napi"], cpu_off_vs_napi)
        self.assertAlmostEqual(s["napi_qd32_gain"], max(0.99, cpu_off_vs_napi))
        self.assertAlmostEqual(s["irq_per_io_irqsuppress_psync_qd1"],
                               self.per_run(p, "irqsuppress", lambda ios: (50 * ios // 1000) / ios))
        self.assertIsNone(s["irqsuppress_buffered_vs_spin"])  # no buffered runs in the samples

    def test_buffered_irqsuppress_vs_spin(self):
        for mode, iops in (("on", 200.0), ("irqsuppress", 196.0)):
            name = self.copy_run(f"psync_qd1_randread__{mode}__r1", "buffered_randread")
            self.set_iops(name, iops)
        s = point(report.build(self.dir)[0]["summary"])
        self.assertAlmostEqual(s["irqsuppress_buffered_vs_spin"], 0.98)

    def test_summary_keys_present(self):
        self.assertEqual(run_report(self.dir).returncode, 0)
        with open(os.path.join(self.dir, "results.json")) as f:
            results = json.load(f)
        for key in ("psync_qd1_on_vs_off", "psync_qd1_on_vs_iopoll", "buffered_on_vs_off",
                    "metadata_off_vs_on", "libaio_qd32_on_vs_off", "corunner_on_vs_off",
                    "psync_qd1_on_vs_idlepoll", "psync_qd1_iopoll_vs_off", "nosleep_share_psync_qd1",
                    "reaped_share_psync_qd1",
                    "psync_qd1_irqsuppress_vs_iopoll", "psync_qd1_irqsuppress_vs_off", "irqsuppress_buffered_vs_spin",
                    "napi_qd32_vs_off", "napi_qd32_cpu_off_vs_napi", "napi_qd32_gain",
                    "napi_qd1_vs_off", "irq_per_io_irqsuppress_psync_qd1"):
            self.assertIn(key, results["summary"])
        self.assertEqual(sorted(results["summary"]), sorted(k for k, _, _ in report.SUMMARY))
        run = next(r for r in results["runs"] if r["mode"] == "irqsuppress")
        self.assertEqual(run["knobs"]["iowait_poll_irq_suppress"], 1)
        self.assertEqual(run["poll"], 1)
        self.assertEqual(len(results["runs"]), len(glob.glob(os.path.join(self.dir, "raw*", "*__r*.json")))
                         - len(glob.glob(os.path.join(self.dir, "raw*", "*.fio.json"))))
        self.assertIn("jobs", results["runs"][0]["fio"])  # fio json+ kept whole
        self.assertIn("bins", results["runs"][0]["fio"]["jobs"][0]["read"]["clat_ns"])


class TestMarkdown(TempResults):
    def test_tables_and_targets(self):
        md = self.report_md()
        for heading in ("### psync_qd1_randread", "### libaio_qd32_randread", "### metadata_walk",
                        "### corunner", "## Targets", "## Setup"):
            self.assertIn(heading, md)
        iops = self.fio_of("psync_qd1_randread__idlepoll__r1", raw="raw-idlepoll")["iops"]
        self.assertIn(f"| off, idle=poll boot | 1 | {iops:,.0f} [", md)
        self.assertIn("| on (iowait_poll) | 2 |", md)
        self.assertIn("| io_uring IOPOLL | 2 |", md)
        self.assertIn("| ext4 metadata walk time, off ÷ on | metadata_off_vs_on | 1.250 | ≥ 1.25 | "
                      "no interval (fewer than 3 reps) |", md)
        self.assertIn("| buffered_on_vs_off | – | ≥ 1.40 | no data |", md)
        self.assertIn("| accel | tcg,thread=multi |", md)
        self.assertIn("ratios of the medians", md)

    def test_modes_side_by_side(self):
        md = self.report_md()
        section = md.split("## Modes side by side (psync QD1 4 KiB randread)")[1].split("\n## ")[0]
        labels = [line.split(" | ")[0][2:] for line in section.splitlines() if line.startswith("| ")][1:]
        self.assertEqual(labels, [report.MODE_LABELS[m] for m in
                                  ("off", "on", "irqsuppress", "napi", "iopoll", "hipri",
                                   "idlepoll", "stock", "stock_iopoll", "stock_hipri")])
        self.assertNotIn("Not run", section)
        iops = self.fio_of("psync_qd1_randread__off__r1")["iops"], self.fio_of("psync_qd1_randread__off__r2")["iops"]
        self.assertIn(f"| off (IRQ) | {statistics.median(iops):,.0f} | 1.00 | ", section)
        self.assertIn("| lat mean µs | clat p99 µs | CPU µs/IO | IRQ/IO | ctx/IO |", section)
        section = md.split("## Modes side by side (libaio QD32 4 KiB randread)")[1].split("\n## ")[0]
        self.assertIn("| napi (reap on submit, IRQ moderated) |", section)
        self.assertNotIn("## Modes side by side (buffered", md)  # no buffered runs in the samples
        self.assertIn("| psync_qd1_irqsuppress_vs_off |", md)
        self.assertIn("| ≥ 2.00 |", md)
        self.assertIn("| napi_qd32_gain |", md)

    def test_goal_comparisons(self):
        def iv(median, lo, hi):
            return {"median": median, "lo": lo, "hi": hi}
        summary = {key: None for key, _, _ in report.SUMMARY}
        summary.update(buffered_irqsuppress_vs_off=iv(1.6, 1.55, 1.7), buffered_on_vs_off=iv(1.45, 1.38, 1.5),
                       napi_qd32_gain=iv(1.1, 1.0, 1.2), psync_qd1_irqsuppress_vs_off=iv(2.1, 2.05, 2.2),
                       napi_qd1_vs_off=iv(0.9, 0.85, 0.96))
        md = report.make_markdown([], summary, {}, {})
        self.assertIn("| buffered_irqsuppress_vs_off | 1.600 [1.550, 1.700] | ≥ 1.55 | met |", md)
        self.assertIn("| buffered_on_vs_off | 1.450 [1.380, 1.500] | ≥ 1.40 | inside the noise |", md)
        self.assertIn("| napi_qd32_gain | 1.100 [1.000, 1.200] | > 1.00 | inside the noise |", md)
        self.assertIn("| psync_qd1_irqsuppress_vs_off | 2.100 [2.050, 2.200] | ≥ 2.00 | met |", md)
        self.assertIn("| napi_qd1_vs_off | 0.900 [0.850, 0.960] | ≥ 0.97 | missed |", md)
        self.assertIn("within run-to-run noise (3 %)", md)
        summary["buffered_on_vs_off"] = iv(1.35, 1.30, 1.39)
        self.assertIn("| buffered_on_vs_off | 1.350 [1.300, 1.390] | ≥ 1.40 | missed |",
                      report.make_markdown([], summary, {}, {}))
        # No key has a "≤" goal now: an upper bound is met only when the whole interval is under it.
        with mock.patch.object(report, "SUMMARY", [("cpu_share", "CPU µs/IO, a ÷ b", ("<=", 0.50))]):
            for value, status in ((iv(0.45, 0.40, 0.50), "met"), (iv(0.50, 0.45, 0.55), "inside the noise"),
                                  (iv(0.55, 0.51, 0.60), "missed")):
                self.assertIn(f"| cpu_share | {report.fmt_interval(value)} | ≤ 0.50 | {status} |",
                              report.make_markdown([], {"cpu_share": value}, {}, {}))
        busy = {"main": {"seconds": 60, "other_cpus": 1.9, "qemu_cpus": 2.0, "load1_before": 3.0,
                         "load1_after": 4.0, "busy": True, "probe_ms_median": None,
                         "probe_slow_ms": None, "probe_slow_share": None}}
        md = report.make_markdown([], summary, {}, {}, busy)
        self.assertIn("| psync_qd1_irqsuppress_vs_off | 2.100 [2.050, 2.200] | ≥ 2.00 | not judged: host busy |", md)
        self.assertIn("**The host was busy**", md)
        self.assertIn("| main | 60 | 1.90 | 2.00 | 3.00 | 4.00 | yes | – | – |", md)

    def test_results_without_new_modes(self):
        # Results from before the new modes: no such runs, no new stats lines, no knobs.
        for path in glob.glob(os.path.join(self.dir, "raw*", "*.json")):
            if any(f"__{m}__" in path for m in ("irqsuppress", "napi")):
                os.remove(path)
            elif not path.endswith(".fio.json"):
                with open(path) as f:
                    run = json.load(f)
                run.pop("knobs")
                for snap in (run["before"], run["after"]):
                    for k in ("irq_held", "irq_rearmed", "submit_reaped"):
                        snap["poll_stats"].pop(k, None)
                with open(path, "w") as f:
                    json.dump(run, f)
        result = run_report(self.dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.dir, "results.json")) as f:
            s = point(json.load(f)["summary"])
        for key in ("psync_qd1_irqsuppress_vs_iopoll", "psync_qd1_irqsuppress_vs_off",
                    "napi_qd32_gain", "irq_per_io_irqsuppress_psync_qd1"):
            self.assertIsNone(s[key], key)
        self.assertIsNotNone(s["psync_qd1_on_vs_off"])
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        self.assertIn("Not run: irqsuppress, napi.", md)
        self.assertIn("Not run: napi, stock.", md)
        self.assertIn("| psync_qd1_irqsuppress_vs_off | – | ≥ 2.00 | no data |", md)
        self.assertIn("| on (iowait_poll) | 2 |", md)

    def test_missing_meta_fields_say_unknown(self):
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump({"accel": "tcg"}, f)
        md = self.report_md()
        self.assertIn("| qemu | unknown |", md)
        self.assertIn("| accel | tcg |", md)


class TestIntervals(TempResults):
    def copy_rep(self, raw_dir, name, reps):
        """Copies of run NAME's rep 1 (sidecar and fio output) as reps 2..reps."""
        raw = os.path.join(self.dir, raw_dir)
        with open(os.path.join(raw, f"{name}__r1.json")) as f:
            run = json.load(f)
        for rep in range(2, reps + 1):
            run.update(rep=rep, fio_file=f"{name}__r{rep}.fio.json")
            with open(os.path.join(raw, f"{name}__r{rep}.json"), "w") as f:
                json.dump(run, f)
            shutil.copy(os.path.join(raw, f"{name}__r1.fio.json"), os.path.join(raw, run["fio_file"]))

    def add_reps(self, workload, modes, reps):
        """Reps 2..reps of each mode, and of the other boots' runs, so that every boot
        has enough reps for an interval."""
        for mode in modes:
            self.copy_rep("raw", f"{workload}__{mode}", reps)
        for boot, mode in (("idlepoll", "idlepoll"), ("stock", "stock"), ("stock", "stock_iopoll")):
            self.copy_rep(f"raw-{boot}", f"psync_qd1_randread__{mode}", reps)

    def test_paired_reps_give_a_tight_interval(self):
        # The host's speed swings 3x between reps, but on is 1.5x off within every rep:
        # a paired bootstrap sees no noise in the ratio; unpaired, it would span 0.5 to 4.5.
        p = "psync_qd1_randread"
        self.add_reps(p, ("off", "on", "iopoll"), 6)
        for rep, speed in enumerate((100.0, 300.0, 150.0, 250.0, 120.0, 200.0), start=1):
            self.set_iops(f"{p}__off__r{rep}", speed)
            self.set_iops(f"{p}__on__r{rep}", 1.5 * speed)
        s = report.build(self.dir)[0]["summary"]["psync_qd1_on_vs_off"]
        self.assertAlmostEqual(s["median"], 1.5)
        self.assertAlmostEqual(s["lo"], 1.5)
        self.assertAlmostEqual(s["hi"], 1.5)

    def test_noisy_ratio_gives_a_wide_interval(self):
        p = "psync_qd1_randread"
        self.add_reps(p, ("off", "on", "iopoll"), 6)
        for rep, on in enumerate((120.0, 180.0, 100.0, 200.0, 150.0, 90.0), start=1):
            self.set_iops(f"{p}__off__r{rep}", 100.0)
            self.set_iops(f"{p}__on__r{rep}", on)
        s = report.build(self.dir)[0]["summary"]["psync_qd1_on_vs_off"]
        self.assertAlmostEqual(s["median"], 1.35)
        self.assertLess(s["lo"], 1.2)
        self.assertGreater(s["hi"], 1.5)
        self.assertLessEqual(s["lo"], s["median"])
        self.assertGreaterEqual(s["hi"], s["median"])

    def test_off_vs_stock_crosses_boots_unpaired(self):
        # The stock boot's reps are not paired with the main boot's: the host's swings
        # between reps widen the interval of off ÷ stock, while on ÷ off stays exact.
        p = "psync_qd1_randread"
        self.add_reps(p, ("off", "on", "iopoll"), 6)
        speeds = (100.0, 300.0, 150.0, 250.0, 120.0, 200.0)
        for rep, speed in enumerate(speeds, start=1):
            self.set_iops(f"{p}__off__r{rep}", speed)
            self.set_iops(f"{p}__on__r{rep}", 1.5 * speed)
            self.set_iops(f"{p}__iopoll__r{rep}", 2.0 * speed)
            self.set_iops(f"{p}__stock__r{rep}", speed, raw="raw-stock")
            self.set_iops(f"{p}__stock_iopoll__r{rep}", 2.0 * speed, raw="raw-stock")
        summary = report.build(self.dir)[0]["summary"]
        s = summary["off_vs_stock_psync_qd1"]
        self.assertAlmostEqual(s["median"], 1.0)
        self.assertLess(s["lo"], 0.8)
        self.assertGreater(s["hi"], 1.2)
        self.assertAlmostEqual(summary["iopoll_vs_stock_psync_qd1"]["median"], 1.0)
        self.assertAlmostEqual(summary["on_vs_stock_psync_qd1"]["median"], 1.5)
        self.assertAlmostEqual(summary["psync_qd1_on_vs_off"]["lo"], 1.5)
        md = self.report_md()
        self.assertIn("| off_vs_stock_psync_qd1 | 1.000 [", md)
        self.assertIn("| ≥ 0.98 | inside the noise |", md)

    def alternated_boots(self, offpath_speeds, stock_speeds, reps=4):
        """Only alternated boots (BENCH_AB): raw-offpath-N with off runs and raw-stock-N with
        stock runs of psync QD1, made from the stock sample; every rep of a boot at its speed."""
        for d in glob.glob(os.path.join(self.dir, "raw*")):
            if d.endswith("raw-stock"):
                continue
            shutil.rmtree(d)
        sample = os.path.join(self.dir, "raw-stock")
        for kind, mode, speeds in (("offpath", "off", offpath_speeds), ("stock", "stock", stock_speeds)):
            for n, speed in enumerate(speeds, start=1):
                raw = os.path.join(self.dir, f"raw-{kind}-{n}")
                os.mkdir(raw)
                for rep in range(1, reps + 1):
                    with open(os.path.join(sample, "psync_qd1_randread__stock__r1.json")) as f:
                        run = json.load(f)
                    name = f"psync_qd1_randread__{mode}__r{rep}"
                    run.update(mode=mode, rep=rep, boot=kind, fio_file=f"{name}.fio.json")
                    with open(os.path.join(raw, f"{name}.json"), "w") as f:
                        json.dump(run, f)
                    shutil.copy(os.path.join(sample, "psync_qd1_randread__stock__r1.fio.json"),
                                os.path.join(raw, run["fio_file"]))
                    self.set_iops(name, speed, raw=f"raw-{kind}-{n}")
        shutil.rmtree(sample)

    def test_alternated_boots_hold_the_boot_noise(self):
        # No noise between the reps of a boot, 20 % between boots: resampling only the reps
        # would give an interval of zero width; drawing the boots first does not.
        self.alternated_boots((100.0, 120.0, 90.0), (110.0, 95.0, 100.0))
        s = report.build(self.dir)[0]["summary"]["off_vs_stock_psync_qd1"]
        self.assertAlmostEqual(s["median"], 1.0)
        self.assertLess(s["lo"], 0.92)
        self.assertGreater(s["hi"], 1.08)
        self.assertIsNone(report.build(self.dir)[0]["summary"]["psync_qd1_on_vs_off"])

    def test_alternated_boots_of_one_speed_give_a_tight_interval(self):
        self.alternated_boots((100.0, 100.0, 100.0), (100.0, 100.0, 100.0))
        s = report.build(self.dir)[0]["summary"]["off_vs_stock_psync_qd1"]
        self.assertEqual((s["lo"], s["median"], s["hi"]), (1.0, 1.0, 1.0))
        self.assertIn("| off_vs_stock_psync_qd1 | 1.000 [1.000, 1.000] | ≥ 0.98 | met |",
                      self.report_md())

    def test_stock_runs_have_no_poll_statistics(self):
        rows = report.build(self.dir)[0]["rows"]
        row = report.find_row(rows, "psync_qd1_randread", "stock")
        self.assertEqual(row["boot"], "stock")
        self.assertIsNone(row["nosleep_share"])
        self.assertEqual(row["exit_shares"], {k: None for k in report.EXITS})

    def write_host_load(self, name, other_jiffies_per_5s, probes=None):
        # 2 CPUs, 100 jiffies/s: 1000 jiffies per 5 s sample; QEMU takes 800 of them.
        # probes: the 14 samples' host speed probe (ms), or None for the old 5 columns.
        lines = ["time\tload1\tcpu_busy\tcpu_total\tqemu_cpu" + ("\tprobe_ms" if probes else "")]
        busy = 0
        for i in range(14):
            qemu = f"{800 * i}" if i < 13 else "-"
            probe = f"\t{probes[i]}" if probes else ""
            load = f"{1.0 + i / 10:.2f}" if i < 13 else "2.50"
            lines.append(f"{1000 + 5 * i}\t{load}\t{busy}\t{1000 * i}\t{qemu}{probe}")
            busy += 800 + other_jiffies_per_5s
        with open(os.path.join(self.dir, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def set_meta(self, **fields):
        with open(os.path.join(self.dir, "meta.json")) as f:
            meta = json.load(f)
        meta.update(fields)
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump(meta, f)

    def set_host_cpus(self, n):
        self.set_meta(host_cpus=n)

    def set_run(self, name, **fields):
        """Set fields of raw/NAME.json; its path."""
        path = os.path.join(self.dir, "raw", name + ".json")
        with open(path) as f:
            run = json.load(f)
        run.update(fields)
        with open(path, "w") as f:
            json.dump(run, f)
        return path

    def test_host_load(self):
        self.write_host_load("main-host-load.tsv", 20)
        self.write_host_load("idlepoll-host-load.tsv", 20)
        self.set_host_cpus(2)
        results = report.build(self.dir)[0]
        main = results["meta"]["host_load"]["main"]
        self.assertAlmostEqual(main["other_cpus"], 0.04)
        self.assertAlmostEqual(main["qemu_cpus"], 1.6)
        self.assertEqual((main["load1_before"], main["load1_after"]), (1.0, 2.5))
        self.assertFalse(results["host_busy"])
        self.write_host_load("idlepoll-host-load.tsv", 600)  # a kernel build beside it
        results, md = report.build(self.dir)
        self.assertAlmostEqual(results["meta"]["host_load"]["idlepoll"]["other_cpus"], 1.2)
        self.assertTrue(results["host_busy"])
        self.assertIn("**The host was busy**", md)
        self.assertIn("| idlepoll | 60 | 1.20 | 1.60 | 1.00 | 2.50 | yes | – | – | 0, 0 |", md)
        self.assertIn("The guest did not wait for a fast host.", md)

    def test_guest_waits_for_a_fast_host_are_counted(self):
        self.set_host_cpus(2)
        self.write_host_load("main-host-load.tsv", 20, [4.5] * 14)
        self.set_meta(host_wait_s=60)
        self.set_run("psync_qd1_randread__off__r2", host_wait_s=12.4)
        self.set_run("psync_qd1_randread__on__r1", host_wait_s=3.0)
        results, md = report.build(self.dir)
        main = results["meta"]["host_load"]["main"]
        self.assertEqual(main["host_waits"], 2)
        self.assertAlmostEqual(main["host_wait_s"], 15.4)
        self.assertIn("| 2, 15 |", md)
        self.assertIn("newest sample was slow, 60 s at most (BENCH_HOST_WAIT_S", md)

    def test_reps_run_again_are_counted(self):
        self.set_host_cpus(2)
        self.write_host_load("main-host-load.tsv", 20, [4.5] * 14)
        self.set_meta(host_retries=3, host_extra_s=2700)
        for name, tries in (("psync_qd1_randread__off__r2", 3),
                            ("psync_qd1_randread__on__r1", 1)):
            path = self.set_run(name, host_retries=tries)
            # The runs replaced stay beside it, and the report does not read them.
            shutil.copy(path, path + ".slow1")
        results, md = report.build(self.dir)
        main = results["meta"]["host_load"]["main"]
        self.assertEqual((main["host_rerun_reps"], main["host_slow_tries"]), (2, 4))
        self.assertIn("| 0, 0 | 2, 4 |", md)
        self.assertIn("3 times at most (BENCH_HOST_RETRIES", md)
        self.assertIn("had 2700 s of each boot in all (BENCH_HOST_EXTRA_S)", md)
        self.set_meta(host_extra_s=0)
        self.assertNotIn("BENCH_HOST_EXTRA_S", report.build(self.dir)[1])
        self.assertEqual(len([r for r in results["runs"] if r["boot"] == "main"]),
                         len([f for f in os.listdir(os.path.join(self.dir, "raw"))
                              if f.endswith(".json") and not f.endswith(".fio.json")]))

    def test_host_speed_probe(self):
        # As on 2026-12-05: the probe ran about 4.5 ms, or about 8 ms part of the time.
        # The last sample, taken after QEMU ended, does not count.
        fast = [4.5, 4.6, 4.4, 4.8, 4.5, 4.7, 4.6, 4.5, 4.9, 4.4, 4.6, 4.5, 4.7, 9.0]
        self.set_host_cpus(2)
        self.write_host_load("main-host-load.tsv", 20, fast)
        self.write_host_load("stock-host-load.tsv", 20, fast[:10] + [6.0, 7.9, 8.1, 4.5])
        results, md = report.build(self.dir)
        main, stock = (results["meta"]["host_load"][b] for b in ("main", "stock"))
        self.assertAlmostEqual(main["probe_ms_median"], 4.6)
        self.assertEqual(main["probe_slow_share"], 0.0)
        # 6.0 ms is within 1.4 times the run's 10th percentile (4.4 ms); 7.9 and 8.1 are not.
        self.assertAlmostEqual(stock["probe_slow_share"], 2 / 13)
        self.assertIn("slow: over 6.16 ms", md)
        self.assertIn("| no | 4.60 | 15 % |", md)
        self.assertFalse(results["host_busy"])

    def test_host_speed_probe_over_the_whole_run(self):
        # A boot that ran slow throughout is slow against the run, not against itself;
        # one very fast sample does not make every other sample slow.
        self.set_host_cpus(2)
        self.write_host_load("main-host-load.tsv", 20, [4.5] * 12 + [1.0, 4.5])
        self.write_host_load("stock-host-load.tsv", 20, [8.0] * 13 + ["-"])
        host_load = report.build(self.dir)[0]["meta"]["host_load"]
        self.assertEqual(host_load["main"]["probe_slow_share"], 0.0)
        self.assertEqual(host_load["stock"]["probe_slow_share"], 1.0)

    def test_host_load_without_probe_beside_one_with(self):
        # A run whose boots came from before and after the probe column was added.
        self.set_host_cpus(2)
        self.write_host_load("main-host-load.tsv", 20, [4.5] * 13 + ["-"])
        self.write_host_load("stock-host-load.tsv", 20)
        results, md = report.build(self.dir)
        self.assertIsNone(results["meta"]["host_load"]["stock"]["probe_slow_share"])
        self.assertEqual(results["meta"]["host_load"]["main"]["probe_slow_share"], 0.0)
        self.assertIn("| no | – | – |", md)

    def set_rep_time(self, name, start_s, end_s, raw="raw"):
        path = os.path.join(self.dir, raw, name + ".json")
        with open(path) as f:
            run = json.load(f)
        run["before"]["t_ns"], run["after"]["t_ns"] = int(start_s * 1e9), int(end_s * 1e9)
        with open(path, "w") as f:
            json.dump(run, f)

    def test_rep_beside_a_slow_probe_sample_is_left_out(self):
        # Samples every 5 s from 1000 s; the one at 1025 s ran slow. A rep from 1026 s is
        # beside it; one from 1036 s has only fast samples within 2.5 s of it.
        self.set_host_cpus(2)
        probes = [4.5] * 14
        probes[5] = 8.0
        self.write_host_load("main-host-load.tsv", 20, probes)
        self.write_host_load("stock-host-load.tsv", 20, [4.5] * 14)
        self.set_rep_time("psync_qd1_randread__off__r2", 1026.0, 1029.0)
        self.set_rep_time("psync_qd1_randread__on__r2", 1036.0, 1039.0)
        self.set_rep_time("psync_qd1_randread__stock__r2", 1026.0, 1029.0, raw="raw-stock")
        results, md = report.build(self.dir)
        self.assertEqual([e["source"] for e in results["excluded_runs"]],
                         ["raw/psync_qd1_randread__off__r2.json"])
        self.assertIn("8.0 ms beside it", results["excluded_runs"][0]["reason"])
        self.assertEqual(results["excluded_runs"][0]["kind"], "slow_host")
        self.assertEqual(report.find_row(results["rows"], "psync_qd1_randread", "off")["reps"], 1)
        self.assertEqual(report.find_row(results["rows"], "psync_qd1_randread", "on")["reps"], 2)
        self.assertIn("- reps with a slow host speed probe sample within 2.5 s of them: 1 (", md)

    def test_rep_with_a_jumped_clock_and_a_slow_probe_is_left_out_once(self):
        # The clock names it; the slow-host count holds only off r2.
        self.set_host_cpus(2)
        probes = [4.5] * 14
        probes[5] = 8.0
        self.write_host_load("main-host-load.tsv", 20, probes)
        self.set_rep_time("psync_qd1_randread__off__r2", 1026.0, 1029.0)
        self.set_rep_time("psync_qd1_randread__on__r1", 1022.0, 1025.0)
        path = os.path.join(self.dir, "raw", "psync_qd1_randread__on__r1.fio.json")
        with open(path) as f:
            fio = json.load(f)
        fio["jobs"][0]["job_runtime"] = 31418566
        with open(path, "w") as f:
            json.dump(fio, f)
        results, md = report.build(self.dir)
        self.assertEqual([(e["source"], e["kind"]) for e in results["excluded_runs"]],
                         [("raw/psync_qd1_randread__off__r2.json", "slow_host"),
                          ("raw/psync_qd1_randread__on__r1.json", "clock")])
        self.assertIn("- raw/psync_qd1_randread__on__r1.json: fio measured", md)
        self.assertIn("- reps with a slow host speed probe sample within 2.5 s of them: 1 (", md)

    def test_host_speed_reps(self):
        # scripts/host_speed_reps.py: off r2 ran across the slow sample at 1025 s at half
        # the IOPS of off r1, which ran across a fast one.
        self.set_host_cpus(2)
        probes = [4.5] * 14
        probes[5] = 8.0
        self.write_host_load("main-host-load.tsv", 20, probes)
        self.set_rep_time("psync_qd1_randread__off__r1", 1036.0, 1041.0)
        self.set_rep_time("psync_qd1_randread__off__r2", 1024.0, 1027.0)
        self.set_iops("psync_qd1_randread__off__r1", 100.0)
        self.set_iops("psync_qd1_randread__off__r2", 50.0)
        out = subprocess.run([sys.executable, HOST_SPEED_REPS, self.dir], capture_output=True,
                             text=True, check=True).stdout
        self.assertIn("reps beside a slow sample: n=1, IOPS ÷ the other unslowed reps' median: "
                      "median 0.500", out)
        self.assertIn("off 1/2", out)  # the samples at 1025 s and 1040 s

    def test_malformed_probe_column(self):
        self.write_host_load("main-host-load.tsv", 20, [4.5] * 13 + ["fast"])
        with self.assertRaisesRegex(report.BadInput, "malformed host load samples"):
            report.build(self.dir)


class TestClockJump(TempResults):
    def test_rep_with_a_jumped_clock_is_left_out(self):
        # As in a full bench of 2026-12-04: the guest TSC jumped 8.7 h inside one rep.
        name = "psync_qd1_randread__on__r1"
        reps = report.build(self.dir)[0]["rows"]
        reps = report.find_row(reps, "psync_qd1_randread", "on")["reps"]
        path = os.path.join(self.dir, "raw", name + ".fio.json")
        with open(path) as f:
            fio = json.load(f)
        fio["jobs"][0]["job_runtime"] = 31418566
        fio["jobs"][0]["read"]["iops"] = 1.0
        with open(path, "w") as f:
            json.dump(fio, f)
        results, md = report.build(self.dir)
        row = report.find_row(results["rows"], "psync_qd1_randread", "on")
        self.assertEqual(row["reps"], reps - 1)
        self.assertGreater(row["iops"]["min"], 1.0)
        self.assertEqual([e["source"] for e in results["excluded_runs"]], [f"raw/{name}.json"])
        self.assertEqual(results["excluded_runs"][0]["kind"], "clock")
        self.assertIn(f"- raw/{name}.json: fio measured 31,418.6 s of a 1 s run", md)

    def test_rep_without_fio_whose_clock_jumped_is_left_out(self):
        # The metadata walk has no fio runtime: its sidecar's own clock gives it away.
        name = "metadata_walk__on__r1"
        path = os.path.join(self.dir, "raw", name + ".json")
        with open(path) as f:
            run = json.load(f)
        run["after"]["t_ns"] = run["before"]["t_ns"] + 31416 * 10**9
        with open(path, "w") as f:
            json.dump(run, f)
        results, md = report.build(self.dir)
        self.assertEqual([e["source"] for e in results["excluded_runs"]], [f"raw/{name}.json"])
        self.assertIn(f"- raw/{name}.json: the rep took 31,416 s by the guest clock", md)

    def test_clean_run_leaves_nothing_out(self):
        results, md = report.build(self.dir)
        self.assertEqual(results["excluded_runs"], [])
        self.assertNotIn("Reps left out", md)


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
