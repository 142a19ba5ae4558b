# iopoll: the series in patches/, and a harness to apply, build, boot, test and measure it.
# See README.md.  Knobs: PROFILE=debug|bench|stock|preempt-kasan ACCEL=auto|kvm|tcg BACKEND=null|file VCPUS=N
#                        BENCH=quick|full BENCH_ROWS='workload ...' BENCH_AB=pairs VM_TIMEOUT=seconds
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
PROFILE ?= debug
export PROFILE ACCEL BACKEND VCPUS MEM_MB VM_TIMEOUT BENCH BENCH_ROWS BENCH_AB
export INSN_PAIRS INSN_BATCHES INSN_OPS INSN_ROWS

.PHONY: all deps tree export kernel selftests vm matrix mutants check check-preempt kunit check-series check-series-objects sparse bench insn-count qemu-symbols lint help

all: help

help:
	@sed -n '1,3p' Makefile; echo; grep -E '^[a-z-]+:.*## ' Makefile | sed 's/:.*## /\t/'

deps: ## install every package the harness needs (apt, as root; as non-root, names what is missing)
	scripts/deps.sh all

tree: ## extract linux-source into build/linux and apply patches/ as commits
	scripts/deps.sh build
	scripts/tree.sh

export: ## regenerate patches/ from the commits in build/linux
	scripts/export.sh

kernel: tree ## build build/bzImage-$(PROFILE)
	scripts/kernel.sh $(PROFILE)

selftests: tree ## build tools/testing/selftests/iopoll into build/kselftest
	scripts/selftests.sh

# CMD reaches the guest as written, quotes and $ included (CMD='N="a b"; echo "$N"'
# needs no $$): make passes it unexpanded, through the environment.
vm: export IOPOLL_VM_CMD = $(value CMD)
vm: ## boot the $(PROFILE) kernel and run CMD in the guest: make vm CMD='fio ...'
	@[ -n "$$IOPOLL_VM_CMD" ] || { echo "error: set CMD='command to run in the guest'" >&2; exit 2; }
	scripts/deps.sh vm
	scripts/vm.sh -p $(PROFILE) -- "$$IOPOLL_VM_CMD"

check: ## the tests: series hygiene, debug kernel, KUnit and kselftests in the guest, dmesg
	scripts/check.sh

check-preempt: tree ## the preemptible KASAN kernel in its matrix configurations (not in check: a second kernel)
	scripts/deps.sh check
	scripts/kernel.sh preempt-kasan
	scripts/selftests.sh
	MATRIX_TIMEOUT=$${MATRIX_TIMEOUT:-2400} scripts/matrix.sh preempt_kasan preempt_kasan_cpu_pair

kunit: tree ## the io_wait() KUnit suite with the kernel's kunit.py (KUNIT_ARCH=um|x86_64), no guest
	scripts/kunit.sh

check-series: tree ## build the kernel after every patch (bisectability)
	scripts/build-each-patch.sh

check-series-objects: tree ## compile the C files the series touches after every patch (no link)
	scripts/build-each-patch.sh --objects

sparse: ## sparse (C=2) on the files the series touches; fails on warnings in added lines
	scripts/sparse.sh

matrix: ## boot the debug kernel in each NVMe configuration (CONFIGS='threaded_irq ...') and run its tests
	scripts/deps.sh check
	scripts/matrix.sh $(CONFIGS)

mutants: ## apply each deliberate bug in tests/mutants/ in turn and check that its test catches it
	scripts/deps.sh check
	scripts/mutants.sh $(MUTANTS)

bench: ## the benchmark: fio matrix in the bench kernel and in stock 6.12, report in results/latest
	scripts/bench.sh

insn-count: ## instructions per I/O, the series with its knobs off ÷ stock 6.12, counted by a QEMU plugin
	scripts/insn-count.sh

qemu-symbols: ## rebuild the installed QEMU from Debian's source with symbols, for perf (build/qemu-symbols/bin)
	scripts/qemu-symbols.sh

lint: ## shellcheck the harness, its tests, .ci/run and the selftests' scripts in build/linux
	scripts/lint.sh
