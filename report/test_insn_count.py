"""Tests of report/insn_count.py on made-up plugin logs."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import insn_count

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "insn_count.py")


class TempRun(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_boot(self, name, rows, seconds=0.5):
        """rows: [(row, ops per batch, [instructions per I/O of each batch])]; each batch
        took SECONDS."""
        path = os.path.join(self.dir, name)
        os.mkdir(path)
        count, log, tsv = 1000, [], ["row\tbatch\tops\tseconds"]
        for row, ops, per_io in rows:
            for b, v in enumerate(per_io):
                log.append(f"insn_count vcpu 1 insns {count}")
                count += int(v * ops)
                log.append(f"insn_count vcpu 1 insns {count}")
                count += 12345  # between batches: not counted
                tsv.append(f"{row}\t{b}\t{ops}\t{seconds}")
        with open(os.path.join(path, "qemu-plugin.log"), "w") as f:
            f.write("\n".join(["some other QEMU log line"] + log) + "\n")
        with open(os.path.join(path, "insn-rows.tsv"), "w") as f:
            f.write("\n".join(tsv) + "\n")
        return path

    def write_pairs(self, series, stock, seconds=(0.5, 0.5)):
        for i, (a, b) in enumerate(zip(series, stock), 1):
            self.write_boot(f"series-{i}", [("read", 100, a)], seconds[0])
            self.write_boot(f"stock-{i}", [("read", 100, b)], seconds[1])


class TestLoad(TempRun):
    def test_batches_are_counts_between_markers_per_io(self):
        path = self.write_boot("series-1", [("read", 100, [9500, 9600]), ("write", 50, [9800])])
        data, order = insn_count.load_boot(path)
        self.assertEqual(order, ["read", "write"])
        self.assertEqual(data, {"read": [9500, 9600], "write": [9800]})

    def test_a_missing_marker_is_refused(self):
        path = self.write_boot("series-1", [("read", 100, [9500, 9600])])
        with open(os.path.join(path, "qemu-plugin.log")) as f:
            lines = f.readlines()
        with open(os.path.join(path, "qemu-plugin.log"), "w") as f:
            f.writelines(lines[:-1])
        with self.assertRaisesRegex(insn_count.BadInput, "3 marker lines, 4 expected"):
            insn_count.load_boot(path)

    def test_a_kind_without_boots_is_refused(self):
        self.write_boot("series-1", [("read", 100, [9500])])
        result = subprocess.run([sys.executable, SCRIPT, self.dir], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no stock-N boot directory", result.stderr)


class TestJudge(TempRun):
    def summary(self):
        kinds, order, times = insn_count.load(self.dir)
        return insn_count.summarize(kinds, order, times)["read"]

    def test_equal_counts_meet_the_goal(self):
        self.write_pairs([[9500, 9510, 9490]] * 3, [[9500, 9505, 9495]] * 3)
        s = self.summary()
        self.assertAlmostEqual(s["series_vs_stock"]["median"], 1.0, places=3)
        self.assertEqual(s["status"], "met")

    def test_three_percent_more_misses_it(self):
        self.write_pairs([[9800, 9790, 9810]] * 3, [[9500, 9505, 9495]] * 3)
        self.assertEqual(self.summary()["status"], "missed")

    def test_a_boot_far_off_leaves_it_inside_the_noise(self):
        self.write_pairs([[9500] * 3, [9500] * 3, [10500] * 3], [[9500] * 3] * 3)
        self.assertEqual(self.summary()["status"], "inside the noise")

    def test_the_batches_wall_time_is_compared(self):
        self.write_pairs([[9500] * 3] * 3, [[9500] * 3] * 3, seconds=(0.6, 0.5))
        self.assertAlmostEqual(self.summary()["series_vs_stock_us_per_io"], 1.2)
        result = subprocess.run([sys.executable, SCRIPT, self.dir], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"\| met \| 1\.200 \|\n")

    def test_a_malformed_batch_time_is_refused(self):
        path = self.write_boot("series-1", [("read", 100, [9500])])
        with open(os.path.join(path, "insn-rows.tsv"), "a") as f:
            f.write("read\t1\t100\tslow\n")
        with self.assertRaisesRegex(insn_count.BadInput, "insn-rows.tsv: ValueError"):
            insn_count.load_times(path)

    def test_one_boot_of_each_is_not_judged(self):
        self.write_pairs([[9500, 9510]], [[9500, 9505]])
        self.assertTrue(self.summary()["status"].startswith("not judged"))


class TestProfile(TempRun):
    SYSTEM_MAP = ("ffffffff81000000 T _stext\nffffffff81001000 T nvme_irq\n"
                  "ffffffff81002000 t io_wait\nffffffff81003000 D some_data\n")

    def write_profiled(self, name, blocks):
        path = self.write_boot(name, [("read", 100, [9500])])
        with open(os.path.join(path, "qemu-plugin.log"), "a") as f:
            f.writelines(f"insn_profile {addr:x} {n}\n" for addr, n in blocks)
        with open(os.path.join(path, "System.map"), "w") as f:
            f.write(self.SYSTEM_MAP)

    def test_blocks_are_summed_per_function_and_compared(self):
        # Two blocks inside nvme_irq; stock runs 10 instructions per I/O fewer there.
        self.write_profiled("series-1", [(0xffffffff81001010, 3000), (0xffffffff81001080, 1000),
                                         (0x401000, 500)])
        self.write_profiled("stock-1", [(0xffffffff81001010, 3000), (0xffffffff81002004, 50)])
        lines = insn_count.profile_table(self.dir)
        self.assertIn("| `nvme_irq` | 40.0 | 30.0 | +10.0 |", lines)
        self.assertIn("| `(user space)` | 5.0 | 0.0 | +5.0 |", lines)
        self.assertIn("| `io_wait` | 0.0 | 0.5 | -0.5 |", lines)

    def test_a_boot_without_its_profile_is_named(self):
        self.write_profiled("series-1", [(0xffffffff81001010, 3000)])
        self.write_boot("stock-1", [("read", 100, [9500])])
        lines = insn_count.profile_table(self.dir)
        self.assertIn("No table: stock-1 printed no profile lines", lines[-1])

    def test_a_malformed_profile_line_is_refused(self):
        self.write_profiled("series-1", [(0xffffffff81001010, 3000)])
        self.write_profiled("stock-1", [(0xffffffff81001010, 3000)])
        with open(os.path.join(self.dir, "stock-1", "qemu-plugin.log"), "a") as f:
            f.write("insn_profile ffffffff81001010\n")
        with self.assertRaisesRegex(insn_count.BadInput, "malformed insn_profile line"):
            insn_count.profile_table(self.dir)

    def test_blocks_are_listed_by_offset_per_io(self):
        # Two blocks inside nvme_irq, one counted twice; 100 I/Os in the boot.
        self.write_profiled("series-1", [(0xffffffff81001010, 3000), (0xffffffff81001080, 1000),
                                         (0xffffffff81001010, 200), (0xffffffff81002004, 50)])
        lines = insn_count.block_lines(os.path.join(self.dir, "series-1"), ["nvme_irq"])
        self.assertIn("| `nvme_irq` | +0x10 | 32.00 |", lines)
        self.assertIn("| `nvme_irq` | +0x80 | 10.00 |", lines)
        self.assertIn("| `nvme_irq` | all | 42.00 |", lines)
        self.assertFalse([line for line in lines if "io_wait" in line])

    def test_blocks_of_an_unknown_function_are_refused(self):
        self.write_profiled("series-1", [(0xffffffff81001010, 3000)])
        run = subprocess.run([sys.executable, SCRIPT, "--blocks",
                              os.path.join(self.dir, "series-1"), "nvme_irq", "no_such"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("no function no_such", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_no_profile_no_table(self):
        self.write_pairs([[9500]], [[9500]])
        self.assertEqual(insn_count.profile_table(self.dir), [])


if __name__ == "__main__":
    unittest.main()
