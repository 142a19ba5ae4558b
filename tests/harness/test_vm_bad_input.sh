#!/bin/bash
# vm.sh refuses a bad QEMU_TRACE, QEMU_PLUGIN or DATA_ZONED with a clear error and leaves
# nothing behind.
# TAP out.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"
# Not under /tmp: vm.sh refuses an output directory there before it gets to the names.
mkdir -p "$top/build"
tmp=$(mktemp -d -p "$top/build" test-vm-bad-input.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# try NAME MESSAGE VAR=VALUE...: vm.sh with these variables fails, prints MESSAGE, and
# creates no output directory.
try() {
	local name=$1 message=$2 rc=0
	shift 2
	env "$@" "$top/scripts/vm.sh" -t 10 -o "$tmp/out" -- true >"$tmp/log" 2>&1 && rc=1
	grep -qF -- "$message" "$tmp/log" || rc=1
	[ ! -e "$tmp/out" ] || rc=1
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/log"
	tap_result "vm.sh: $name" "$rc"
}

try "QEMU_TRACE with a malformed name is refused" \
	"QEMU_TRACE entry 'Bad-Name' is not a trace event name" QEMU_TRACE="pci_nvme_irq_msix Bad-Name"
try "QEMU_PLUGIN that does not exist is refused" \
	"QEMU_PLUGIN=$tmp/none.so: no such file" QEMU_PLUGIN="$tmp/none.so"
touch "$tmp/plugin.so"
try "QEMU_PLUGIN with QEMU_TRACE is refused" "QEMU_PLUGIN and QEMU_TRACE both log with -D" \
	QEMU_PLUGIN="$tmp/plugin.so" QEMU_TRACE=pci_nvme_irq_msix
try "QEMU_PLUGIN with ACCEL=kvm is refused" "QEMU_PLUGIN needs TCG" \
	QEMU_PLUGIN="$tmp/plugin.so" ACCEL=kvm
try "QEMU_PLUGIN_ARGS malformed are refused" "QEMU_PLUGIN_ARGS=profile on is not valid" \
	QEMU_PLUGIN="$tmp/plugin.so" QEMU_PLUGIN_ARGS="profile on"
try "QEMU_PLUGIN_ARGS without QEMU_PLUGIN are refused" "QEMU_PLUGIN_ARGS without QEMU_PLUGIN" \
	QEMU_PLUGIN_ARGS=profile=on
try "DATA_ZONED other than 0 or 1 is refused" "DATA_ZONED=yes is not valid; use one of: 0 1" DATA_ZONED=yes
if command -v qemu-system-x86_64 >/dev/null; then
	try "QEMU_TRACE with an event this QEMU lacks is refused" \
		"this QEMU has no trace event 'pci_nvme_no_such_event'" QEMU_TRACE=pci_nvme_no_such_event
else
	tap_result "vm.sh: QEMU_TRACE with an event this QEMU lacks is refused" skip "qemu-system-x86_64 is missing"
fi
tap_summary >/dev/null
