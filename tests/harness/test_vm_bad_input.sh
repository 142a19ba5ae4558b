#!/bin/bash
# vm.sh refuses a bad QEMU_TRACE with a clear error and leaves nothing behind. TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
# Not under /tmp: vm.sh refuses an output directory there before it gets to the names.
mkdir -p "$top/build"
tmp=$(mktemp -d -p "$top/build" test-vm-bad-input.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# try NAME TRACE MESSAGE: vm.sh fails, prints MESSAGE, and creates no output directory.
try() {
	local name=$1 trace=$2 message=$3 rc=0
	QEMU_TRACE=$trace "$top/scripts/vm.sh" -t 10 -o "$tmp/out" -- true >"$tmp/log" 2>&1 && rc=1
	grep -qF -- "$message" "$tmp/log" || rc=1
	[ ! -e "$tmp/out" ] || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/log"
	tap_result "vm.sh: $name" "$rc"
}

try "QEMU_TRACE with a malformed name is refused" "pci_nvme_irq_msix Bad-Name" \
	"QEMU_TRACE entry 'Bad-Name' is not a trace event name"
if command -v qemu-system-x86_64 >/dev/null; then
	try "QEMU_TRACE with an event this QEMU lacks is refused" "pci_nvme_no_such_event" \
		"this QEMU has no trace event 'pci_nvme_no_such_event'"
else
	tap_result "vm.sh: QEMU_TRACE with an event this QEMU lacks is refused" skip "qemu-system-x86_64 is missing"
fi
tap_summary >/dev/null
