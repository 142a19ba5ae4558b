#!/bin/bash
# Smoke tests that hold on any kernel, patched or not: data integrity and io_uring IOPOLL.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $n smoke: $1"; else echo "not ok $n smoke: $1"; failed=1; fi
}

data=$(disk_by_serial iopoll-data) || { echo "not ok 1 smoke: no NVMe disk with serial iopoll-data"; exit 1; }
main=$(disk_by_serial iopoll-main) || { echo "not ok 1 smoke: no NVMe disk with serial iopoll-main"; exit 1; }
echo "# data disk $data, main disk $main"

rc=0
timeout 120 fio --name=verify --filename="/dev/$data" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=8 --size=64M --verify=crc32c --do_verify=1 --output=/tmp/verify.txt || rc=$?
result "fio randwrite+verify crc32c on /dev/$data" "$rc"

# io_uring IOPOLL on the dedicated poll queue: I/O completes and takes (almost) no interrupts.
before=$(nvme_irq_count "$main")
rc=0
timeout 60 fio --name=iopoll --filename="/dev/$main" --ioengine=io_uring --hipri=1 --direct=1 \
	--rw=randread --bs=4k --iodepth=1 --number_ios=2000 --size=1G --output-format=json \
	--output=/tmp/iopoll.json || rc=$?
after=$(nvme_irq_count "$main")
ios=$(python3 -c 'import json; print(json.load(open("/tmp/iopoll.json"))["jobs"][0]["read"]["total_ios"])' 2>/dev/null || echo 0)
echo "# io_uring IOPOLL: $ios I/Os, $((after - before)) interrupts"
if [ "$ios" -lt 2000 ] || [ $((after - before)) -ge $((ios / 20)) ]; then
	rc=1
fi
result "io_uring IOPOLL on a poll queue completes I/O without interrupts" "$rc"
exit "$failed"
