"""Tests for nvme_timeline.py, on synthetic QEMU traces whose step times are known.

Run from the repo top: python3 -m unittest discover -s report -v
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nvme_timeline  # noqa: E402

TIMELINE = os.path.join(HERE, "nvme_timeline.py")
T0 = 1_796_419_312_000_000  # µs, a host time stamp as QEMU logs it


def stamp(us):
    return f"{us // 1_000_000}.{us % 1_000_000:06d}"


def io_lines(start, n, post_event="pci_nvme_irq_msix", cq_after=20, period=30):
    """QD1 I/Os on queue 1 from START µs: SQ doorbell, command +3, backend +10,
    completion +12, CQE post +14, CQ doorbell +CQ_AFTER, next SQ doorbell +PERIOD."""
    lines = []
    for i in range(n):
        t = start + i * period
        cid = i % 1024
        post = ("raising MSI-X IRQ vector 1" if post_event == "pci_nvme_irq_msix"
                else "IRQ is masked")
        lines += [
            f"200@{stamp(t)}:pci_nvme_mmio_doorbell_sq sqid 1 new_tail {i % 64}",
            f"100@{stamp(t + 3)}:pci_nvme_io_cmd cid {cid} nsid 0x1 sqid 1 opc 0x2 "
            "opname 'NVME_NVM_CMD_READ'",
            f"100@{stamp(t + 10)}:pci_nvme_rw_complete_cb cid {cid} blk 'main'",
            f"100@{stamp(t + 12)}:pci_nvme_enqueue_req_completion cid {cid} cqid 1 "
            "dw0 0x0 dw1 0x0 status 0x0",
            f"100@{stamp(t + 14)}:{post_event} {post}",
            f"200@{stamp(t + cq_after)}:pci_nvme_mmio_doorbell_cq cqid 1 new_head {i % 64}",
        ]
    return lines


def admin_lines(t):
    """An admin command: queue 0, left out of every run."""
    return [f"200@{stamp(t)}:pci_nvme_mmio_doorbell_sq sqid 0 new_tail 1",
            f"100@{stamp(t + 500)}:pci_nvme_enqueue_req_completion cid 0 cqid 0 "
            "dw0 0x0 dw1 0x0 status 0x0",
            f"200@{stamp(t + 900)}:pci_nvme_mmio_doorbell_cq cqid 0 new_head 1"]


def trace(n=1200):
    """Two runs of N I/Os (the second's CQEs on a CQ without interrupts, its CQ
    doorbell later), a stray run of 10 I/Os between them, gaps of 1 s, admin
    commands and lines that are not trace events."""
    run2 = T0 + 4_000_000
    return (["qemu-system-x86_64: some warning", *admin_lines(T0 - 10_000),
             *io_lines(T0, n), *admin_lines(T0 + 2_000_000),
             *io_lines(T0 + 2_500_000, 10),
             *io_lines(run2, n, post_event="pci_nvme_irq_masked", cq_after=24, period=40)])


class Parse(unittest.TestCase):
    def test_admin_queue_and_other_lines_left_out(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write("\n".join(admin_lines(T0) + io_lines(T0 + 5_000, 2) + ["junk"]) + "\n")
        try:
            events = nvme_timeline.parse(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(len(events), 12)
        self.assertEqual(events[0][:3], (T0 + 5_000, 200, "pci_nvme_mmio_doorbell_sq"))
        self.assertEqual(events[0][3], {"sqid": 1, "new_tail": 0})
        self.assertEqual(events[1][3]["opname"], "NVME_NVM_CMD_READ")

    def test_runs_cut_at_gaps_short_ones_dropped(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write("\n".join(trace()) + "\n")
        try:
            runs = nvme_timeline.cut_runs(nvme_timeline.parse(f.name))
        finally:
            os.unlink(f.name)
        self.assertEqual(len(runs), 2)
        for run in runs:
            sq = sum(e[2] == "pci_nvme_mmio_doorbell_sq" for e in run)
            self.assertEqual(sq, 1200)


class Steps(unittest.TestCase):
    def test_step_medians(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write("\n".join(io_lines(T0, 50)) + "\n")
        try:
            events = nvme_timeline.parse(f.name)
        finally:
            os.unlink(f.name)
        ios, threads, irqs = nvme_timeline.ios_of(events)
        # The last I/O has no next SQ doorbell: left out.
        self.assertEqual(len(ios), 49)
        self.assertEqual(irqs["pci_nvme_irq_msix"], 50)
        self.assertEqual(threads["pci_nvme_mmio_doorbell_sq"], {200})
        want = {("sq", "post"): 14, ("sq", "cmd"): 3, ("cmd", "backend"): 7,
                ("backend", "enq"): 2, ("enq", "post"): 2, ("post", "cq"): 6,
                ("enq", "cq"): 8, ("cq", "next"): 10, ("post", "next"): 16,
                ("sq", "next"): 30}
        for (a, b), us in want.items():
            self.assertEqual(nvme_timeline.median_us(ios, a, b), (us, 49), f"{a} → {b}")


class Main(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "qemu-trace.log"), "w", encoding="utf-8") as f:
            f.write("\n".join(trace()) + "\n")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def run_timeline(self, modes):
        with open(os.path.join(self.dir, "timeline.tsv"), "w", encoding="utf-8") as f:
            f.write("mode\tiops\n" + "".join(f"{m}\t{1000 + i}\n" for i, m in enumerate(modes)))
        return subprocess.run([sys.executable, TIMELINE, self.dir], capture_output=True,
                              text=True)

    def row(self, out, label):
        for line in out.splitlines():
            if line.startswith(f"| {label} |"):
                return [c.strip() for c in line.strip("|").split("|")[1:]]
        self.fail(f"no row '{label}' in:\n{out}")

    def test_table(self):
        r = self.run_timeline(["irqsuppress", "iopoll"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| | irqsuppress (1) | iopoll (2) |", r.stdout)
        self.assertEqual(self.row(r.stdout, "SQ doorbell → CQE posted (the device's part), "
                                  "median µs"), ["14.0", "14.0"])
        self.assertEqual(self.row(r.stdout, "CQE posted → CQ head doorbell, median µs"),
                         ["6.0", "10.0"])
        self.assertEqual(self.row(r.stdout, "SQ doorbell → next SQ doorbell, median µs"),
                         ["30.0", "40.0"])
        self.assertEqual(self.row(r.stdout, "CQEs posted with an MSI-X message / on a CQ "
                                  "without interrupts, per I/O"),
                         ["1.00 / 0.00", "0.00 / 1.00"])
        self.assertEqual(self.row(r.stdout, "IOPS in the guest (fio)"), ["1000", "1001"])

    def test_modes_and_runs_disagree(self):
        r = self.run_timeline(["off", "on", "iopoll"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the trace has 2 runs of 1000+ I/Os, timeline.tsv 3 modes", r.stderr)

    def test_missing_trace(self):
        os.unlink(os.path.join(self.dir, "qemu-trace.log"))
        r = self.run_timeline(["off"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no qemu-trace.log in", r.stderr)

    def test_events(self):
        r = subprocess.run([sys.executable, TIMELINE, "--events"], capture_output=True,
                           text=True, check=True)
        self.assertEqual(r.stdout.split(), nvme_timeline.EVENTS)


if __name__ == "__main__":
    unittest.main()
