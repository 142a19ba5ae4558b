#!/usr/bin/env python3
"""Instructions per I/O, the series with its knobs off against stock 6.12.

usage: report/insn_count.py RESULTS_DIR
       report/insn_count.py --compare BOOT_DIR_A BOOT_DIR_B
       report/insn_count.py --blocks BOOT_DIR FUNCTION...

RESULTS_DIR is a scripts/insn-count.sh run: one directory per boot, series-N (the bench
kernel) and stock-N (stock 6.12, the same config), each with qemu-plugin.log (the lines of
scripts/qemu_insn_count.c, one per marker) and insn-rows.tsv (guest/insn_count.sh: each
row's batches, in the order run). Each batch takes two markers in turn; its instructions
are the count between them, divided by its I/Os (entries walked, for the metadata row).

Writes RESULTS_DIR/report.md and RESULTS_DIR/summary.json and prints the report. The ratio
series ÷ stock is of the medians over all batches, with a 95 % bootstrap interval that
draws boots of each kind, then batches of each drawn boot.

With the plugin's profile=on (make insn-count INSN_PROFILE=on, one row), each boot's log
also has "insn_profile ADDRESS INSNS" lines, the instructions each translated block ran
between markers, and its directory the booted kernel's System.map: the report then adds
the instructions per I/O of each kernel function in both kernels and their difference.
--compare prints that table for two profiled boot directories of any kind (for example
one row polled with the IRQ held off against io_uring IOPOLL, both on the series).
--blocks prints, for one profiled boot, each translated block of the named functions by
its offset in the function, to tell apart the branches of one function."""
import bisect
import glob
import json
import os
import random
import re
import statistics
import sys

ROUNDS = 4000
LEVEL = 0.95
GOAL = 1.02  # the instruction analogue of off_vs_stock's lower end >= 0.98
BOOT_RE = re.compile(r"^(series|stock)-([1-9][0-9]*)$")
ROW_TEXT = {
    "read": "psync QD1 O_DIRECT 4 KiB randread (NVMe)",
    "write": "psync QD1 O_DIRECT 4 KiB randwrite (NVMe)",
    "buffered": "buffered 4 KiB randread, every read a page cache miss (NVMe)",
    "iopoll": "io_uring IOPOLL QD1 randread (NVMe poll queue)",
    "uring32": "io_uring QD32 randread, interrupts (NVMe)",
    "uring128": "io_uring QD128 randread, interrupts (NVMe)",
    "libaio32": "Linux AIO QD32 randread (NVMe)",
    "libaio128": "Linux AIO QD128 randread (NVMe)",
    "virtio_read": "psync QD1 O_DIRECT 4 KiB randread (virtio-blk)",
    "metadata": "ext4 cold walk (lstat), per entry (NVMe; buffer heads)",
}


class BadInput(Exception):
    pass


def load_boot(path):
    """{row: [instructions per I/O of each batch]} of one boot, and its rows' order."""
    log, rows_file = os.path.join(path, "qemu-plugin.log"), os.path.join(path, "insn-rows.tsv")
    try:
        with open(log) as f:
            counts = [int(line.split()[-1]) for line in f if line.startswith("insn_count ")]
        with open(rows_file) as f:
            lines = [line.rstrip("\n").split("\t") for line in f.readlines()[1:] if line.strip()]
        batches = [(fields[0], int(fields[1]), int(fields[2])) for fields in lines]
    except (OSError, ValueError, IndexError) as e:
        raise BadInput(f"{path}: {type(e).__name__}: {e}") from e
    if len(counts) != 2 * len(batches):
        raise BadInput(f"{log}: {len(counts)} marker lines, {2 * len(batches)} expected "
                       f"from {rows_file}")
    order, result = [], {}
    for (row, _, ops), start, end in zip(batches, counts[::2], counts[1::2]):
        if end < start or ops < 1:
            raise BadInput(f"{log}: a batch of row {row} counts {end - start} instructions "
                           f"for {ops} I/Os")
        if row not in result:
            order.append(row)
            result[row] = []
        result[row].append((end - start) / ops)
    return result, order


def boot_dirs(results_dir):
    """[(kind, path)] of the series-N and stock-N boot directories, in boot order."""
    boots = []
    for path in glob.glob(os.path.join(results_dir, "*")):
        m = BOOT_RE.match(os.path.basename(path))
        if m and os.path.isdir(path):
            boots.append((int(m.group(2)), m.group(1), path))
    return [(kind, path) for _, kind, path in sorted(boots)]


def load_times(path):
    """{row: [wall-clock µs per I/O of each batch]} of one boot, from its insn-rows.tsv."""
    times = {}
    try:
        with open(os.path.join(path, "insn-rows.tsv")) as f:
            for line in f.readlines()[1:]:
                if line.strip():
                    row, _, ops, seconds = line.rstrip("\n").split("\t")[:4]
                    times.setdefault(row, []).append(float(seconds) * 1e6 / int(ops))
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: insn-rows.tsv: {type(e).__name__}: {e}") from e
    return times


def load(results_dir):
    """{kind: [boot's {row: [per-batch values]}]} in boot order, the rows in order, and
    {kind: [boot's {row: [per-batch µs per I/O]}]}."""
    kinds, order, times = {"series": [], "stock": []}, [], {"series": [], "stock": []}
    for kind, path in boot_dirs(results_dir):
        data, rows = load_boot(path)
        kinds[kind].append(data)
        times[kind].append(load_times(path))
        order += [r for r in rows if r not in order]
    for kind, found in kinds.items():
        if not found:
            raise BadInput(f"{results_dir}: no {kind}-N boot directory with results")
    return kinds, order, times


def load_symbols(path):
    """Sorted text symbol addresses and names of a System.map."""
    try:
        with open(path) as f:
            syms = sorted((int(a, 16), n) for a, t, n in
                          (line.split()[:3] for line in f if len(line.split()) >= 3)
                          if t in "tTwW")
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: {type(e).__name__}: {e}") from e
    return [a for a, _ in syms], [n for _, n in syms]


def profile_blocks(path):
    """[(block address, instructions between markers)] of one boot, or None without a
    profile."""
    log = os.path.join(path, "qemu-plugin.log")
    with open(log) as f:
        lines = [line.split() for line in f if line.startswith("insn_profile ")]
    if not lines:
        return None
    blocks = []
    for fields in lines:
        try:
            _, addr, n = fields
            blocks.append((int(addr, 16), int(n)))
        except ValueError as e:
            raise BadInput(f"{log}: malformed insn_profile line {' '.join(fields)!r}") from e
    return blocks


def symbol_of(addrs, names, a):
    """The kernel function a block at address a starts in, and its offset there."""
    if a < 1 << 63:
        return "(user space)", 0
    i = bisect.bisect_right(addrs, a) - 1
    return (names[i], a - addrs[i]) if i >= 0 else ("(unknown)", 0)


def load_profile(path):
    """{symbol: instructions between markers} of one boot, or None without a profile."""
    blocks = profile_blocks(path)
    if blocks is None:
        return None
    addrs, names = load_symbols(os.path.join(path, "System.map"))
    per_symbol = {}
    for a, n in blocks:
        name = symbol_of(addrs, names, a)[0]
        per_symbol[name] = per_symbol.get(name, 0) + n
    return per_symbol


def boot_ops(path):
    """The I/Os of a boot's batches, from its insn-rows.tsv."""
    try:
        with open(os.path.join(path, "insn-rows.tsv")) as f:
            return sum(int(line.split("\t")[2]) for line in f.readlines()[1:]
                       if line.strip())
    except (OSError, ValueError, IndexError) as e:
        raise BadInput(f"{path}: insn-rows.tsv: {type(e).__name__}: {e}") from e


def profile_per_io(paths):
    """{function: instructions per I/O} over the profiled boots in paths, or None."""
    sums, ops = {}, 0
    for path in paths:
        profile = load_profile(path)
        if profile is None:
            return None
        ops += boot_ops(path)
        for name, n in profile.items():
            sums[name] = sums.get(name, 0) + n
    return {name: n / ops for name, n in sums.items()} if ops else None


def block_lines(path, functions):
    """Markdown lines: each translated block of the named functions, by its offset in
    the function, with its instructions per I/O; read them beside objdump -d of the
    boot's vmlinux to see which branch a block is."""
    blocks = profile_blocks(path)
    if blocks is None:
        raise BadInput(f"{path}: no profile (make insn-count INSN_PROFILE=on)")
    ops = boot_ops(path)
    if not ops:
        raise BadInput(f"{path}: insn-rows.tsv has no I/Os")
    addrs, names = load_symbols(os.path.join(path, "System.map"))
    missing = [f for f in functions if f not in names]
    if missing:
        raise BadInput(f"{path}/System.map: no function {', '.join(missing)}")
    found = {f: {} for f in functions}
    for a, n in blocks:
        name, offset = symbol_of(addrs, names, a)
        if name in found:
            found[name][offset] = found[name].get(offset, 0) + n
    lines = [f"Instructions per I/O of each translated block ({ops:,} I/Os):", "",
             "| function | block | instructions per I/O |", "|---|---:|---:|"]
    for f in functions:
        for offset in sorted(found[f]):
            lines.append(f"| `{f}` | +{offset:#x} | {found[f][offset] / ops:,.2f} |")
        lines.append(f"| `{f}` | all | {sum(found[f].values()) / ops:,.2f} |")
    return lines


def compare_lines(a, b, label_a, label_b, top=25):
    """Markdown lines: the functions whose instructions per I/O differ most, a against b."""
    names = set(a) | set(b)
    diff = {n: a.get(n, 0) - b.get(n, 0) for n in names}
    total_a, total_b = sum(a.values()), sum(b.values())
    lines = [f"Instructions per I/O by kernel function (the translated block's start address "
             f"in its kernel's System.map): {label_a} {total_a:,.0f}, {label_b} {total_b:,.0f}, "
             f"difference {total_a - total_b:+,.1f}. The {top} largest differences:", "",
             f"| function | {label_a} | {label_b} | {label_a} − {label_b} |",
             "|---|---:|---:|---:|"]
    for name in sorted(names, key=lambda n: (-abs(diff[n]), n))[:top]:
        lines.append(f"| `{name}` | {a.get(name, 0):,.1f} | {b.get(name, 0):,.1f} | "
                     f"{diff[name]:+,.1f} |")
    return lines


def profile_table(results_dir, top=25):
    """Markdown lines: instructions per I/O per function, series against stock."""
    paths = {"series": [], "stock": []}
    for kind, path in boot_dirs(results_dir):
        paths[kind].append(path)
    if not paths["series"] or not paths["stock"]:
        return []
    every = paths["series"] + paths["stock"]
    missing = [os.path.basename(p) for p in every if load_profile(p) is None]
    title = ["", "## Where the instructions go (plugin profile=on)", ""]
    if len(missing) == len(every):
        return []
    if missing:
        return title + [f"No table: {', '.join(missing)} printed no profile lines, so "
                        "the kernels cannot be compared (see qemu-plugin.log and "
                        "qemu-hung in its directory)."]
    series, stock = profile_per_io(paths["series"]), profile_per_io(paths["stock"])
    return (title + ["All boots of a kernel together."] +
            compare_lines(series, stock, "series", "stock", top))


def pooled(boots, row):
    return [v for b in boots for v in b.get(row, [])]


def ratio_interval(series, stock, rng):
    """Bootstrap of median(series) ÷ median(stock): boots, then batches within them."""
    def draw(boots):
        picked = rng.choices(boots, k=len(boots))
        return [v for b in picked for v in rng.choices(b, k=len(b))]
    ratios = sorted(statistics.median(draw(series)) / statistics.median(draw(stock))
                    for _ in range(ROUNDS))
    cut = int(ROUNDS * (1 - LEVEL) / 2)
    return ratios[cut], ratios[ROUNDS - cut - 1]


def summarize(kinds, order, times):
    rng = random.Random(1)
    summary = {}
    for row in order:
        series = [b[row] for b in kinds["series"] if b.get(row)]
        stock = [b[row] for b in kinds["stock"] if b.get(row)]
        if not series or not stock:
            continue
        s, t = statistics.median(pooled(kinds["series"], row)), statistics.median(pooled(kinds["stock"], row))
        lo, hi = ratio_interval(series, stock, rng)
        status = "met" if hi <= GOAL else "missed" if lo > GOAL else "inside the noise"
        if len(series) < 2 or len(stock) < 2:
            status = "not judged: one boot of a kernel cannot show the boot-to-boot noise"
        summary[row] = {
            "series_insns_per_io": s, "stock_insns_per_io": t,
            "series_boot_medians": [statistics.median(b) for b in series],
            "stock_boot_medians": [statistics.median(b) for b in stock],
            "batches": [sum(len(b) for b in series), sum(len(b) for b in stock)],
            "series_vs_stock": {"median": s / t, "lo": lo, "hi": hi},
            "status": status,
            "series_vs_stock_us_per_io": (statistics.median(pooled(times["series"], row)) /
                                          statistics.median(pooled(times["stock"], row))),
        }
    return summary


def markdown(summary, kinds):
    n_series, n_stock = len(kinds["series"]), len(kinds["stock"])
    lines = ["# Instructions per I/O: the series with its knobs off ÷ stock 6.12", "",
             f"Counted by the QEMU plugin scripts/qemu_insn_count.c (every guest instruction "
             f"of both vCPUs, TCG with one thread) in {n_series} boots of the series' bench kernel "
             f"and {n_stock} of stock 6.12 with the same config, alternated. Each row: the median "
             "over all batches of (instructions between the batch's markers ÷ its I/Os), idle "
             "and interrupt work of the whole guest included. Ratio: series ÷ stock, with its "
             f"{100 * LEVEL:.0f} % bootstrap interval (boots, then batches). Goal: upper end ≤ "
             f"{GOAL:.2f}, the count's form of off_vs_stock's lower end ≥ 0.98. Instructions are "
             "not time: a cache miss or a trap to the device model costs far more than an "
             "instruction. A polled row (io_uring IOPOLL) also counts the instructions of its "
             "spinning while the device works, so its count follows the device's latency as "
             "well as the path's work. The idle loop, timers and the scheduler's load tracking "
             "run more the longer a batch takes, so the last column, the batches' wall time "
             "per I/O, series ÷ stock (medians), says when the kernels' batches took different "
             "times; under the plugin on one host thread it is no timing of the kernels.", "",
             "| row | series, instr./I/O | stock, instr./I/O | series ÷ stock [95 %] | batches | status "
             "| wall time per I/O, series ÷ stock |",
             "|---|---:|---:|---|---|---|---:|"]
    for row, s in summary.items():
        r = s["series_vs_stock"]
        lines.append(f"| {ROW_TEXT.get(row, row)} | {s['series_insns_per_io']:,.0f} | "
                     f"{s['stock_insns_per_io']:,.0f} | {r['median']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}] | "
                     f"{s['batches'][0]} + {s['batches'][1]} | {s['status']} | "
                     f"{s['series_vs_stock_us_per_io']:.3f} |")
    lines += ["", "Each boot's median, in boot order:", "",
              "| row | series boots | stock boots |", "|---|---|---|"]
    for row, s in summary.items():
        lines.append(f"| {row} | {' '.join(f'{v:,.0f}' for v in s['series_boot_medians'])} | "
                     f"{' '.join(f'{v:,.0f}' for v in s['stock_boot_medians'])} |")
    return "\n".join(lines) + "\n"


def compare(path_a, path_b):
    try:
        a, b = profile_per_io([path_a]), profile_per_io([path_b])
    except (BadInput, OSError) as e:
        print(f"insn_count.py: {e}", file=sys.stderr)
        return 2
    for path, p in ((path_a, a), (path_b, b)):
        if p is None:
            print(f"insn_count.py: {path}: no profile (make insn-count INSN_PROFILE=on)",
                  file=sys.stderr)
            return 2
    print("\n".join(compare_lines(a, b, os.path.basename(path_a.rstrip("/")),
                                  os.path.basename(path_b.rstrip("/")), top=40)))
    return 0


def blocks(path, functions):
    try:
        lines = block_lines(path, functions)
    except (BadInput, OSError) as e:
        print(f"insn_count.py: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--compare":
        return compare(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "--blocks":
        return blocks(argv[2], argv[3:])
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        kinds, order, times = load(argv[1])
    except BadInput as e:
        print(f"insn_count.py: {e}", file=sys.stderr)
        return 2
    summary = summarize(kinds, order, times)
    try:
        profile = profile_table(argv[1])
    except BadInput as e:
        print(f"insn_count.py: {e}", file=sys.stderr)
        return 2
    text = markdown(summary, kinds) + "\n".join(profile) + ("\n" if profile else "")
    with open(os.path.join(argv[1], "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(argv[1], "report.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
