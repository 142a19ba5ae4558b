#!/bin/bash
# deps.sh finds the pinned linux-source in 'apt-cache madison' output written line by line,
# as apt-cache writes it, and says so when it is not there. TAP on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=../../scripts/tap.sh
. "$top/scripts/tap.sh"

stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT

# make_stub FIRST_VERSION: an apt-cache that writes FIRST_VERSION, then 100 more lines,
# one write each, 10 ms apart: a reader that stops early kills it with SIGPIPE.
make_stub() {
	cat >"$stub/apt-cache" <<STUB
#!/bin/bash
[ "\$1" = madison ] || exit 100
echo " $LINUX_SOURCE_PKG | $1 | http://archive.invalid/debian bookworm/main amd64 Packages"
for i in \$(seq 1 100); do
	sleep 0.01
	echo " $LINUX_SOURCE_PKG | 6.12.\$i-0 | http://archive.invalid/debian bookworm/main amd64 Packages"
done
STUB
	chmod +x "$stub/apt-cache"
}

rc=0
make_stub "$LINUX_SOURCE_VERSION"
PATH=$stub:$PATH "$top/scripts/deps.sh" --archive-check >"$stub/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# /' "$stub/out"
tap_result "deps: the pinned $LINUX_SOURCE_PKG is found in apt-cache output written line by line" "$rc"

rc=0
make_stub "0.0-not-the-pin"
PATH=$stub:$PATH "$top/scripts/deps.sh" --archive-check >"$stub/out" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && grep -qF "is not in the archive" "$stub/out"; then rc=0; else rc=1; fi
[ "$rc" -eq 0 ] || sed 's/^/# /' "$stub/out"
tap_result "deps: a pinned $LINUX_SOURCE_PKG missing from the archive is reported" "$rc"
tap_summary >/dev/null
