#!/bin/bash
# Build the installed QEMU again from Debian's source, with symbols, for perf.
#
# usage: qemu-symbols.sh
# Debian's qemu-system-x86 is stripped and bookworm's debug archive is out of reach here,
# so perf cannot name QEMU's frames. This fetches the source package of the installed
# version (its own apt lists in build/, /etc/apt untouched), builds only
# qemu-system-x86_64 with -g and frame pointers, and writes
# build/qemu-symbols/bin/qemu-system-x86_64, which runs it with Debian's firmware:
#   PATH=$PWD/build/qemu-symbols/bin:$PATH python3 scripts/qemu_host_view.py --switches ...
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh" qemu-src
out=$BUILD/qemu-symbols
version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86) ||
	die "qemu-system-x86 is not installed; run 'make deps'"
src=$out/qemu-${version#*:}
binary=$src/b/qemu-system-x86_64
mkdir -p "$out/lists/partial"

if [ ! -d "$src" ]; then
	# deb-src entries of the archives apt already uses, in sources lists of our own.
	grep -h -E '^(Types|URIs|Suites|Components|Signed-By):|^$' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed 's/^Types: deb$/Types: deb-src/' >"$out/sources.sources" || true
	sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$out/sources.list" 2>/dev/null || true
	grep -q -E '^(Types: )?deb-src' "$out/sources.sources" "$out/sources.list" ||
		die "no apt sources in /etc/apt/sources.list{,.d/*.sources} to take deb-src entries from"
	apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$out"
		-o "Dir::State::Lists=$out/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
	log "fetching the source of qemu $version (log: $out/apt.log)"
	apt-get "${apt_opts[@]}" update >"$out/apt.log" 2>&1 ||
		die "apt-get update of the source lists failed; see $out/apt.log"
	(cd "$out" && apt-get "${apt_opts[@]}" source --download-only "qemu=$version") >>"$out/apt.log" 2>&1 ||
		die "apt-get source qemu=$version failed; see $out/apt.log"
	dsc=$(find "$out" -maxdepth 1 -name "qemu_${version#*:}.dsc" -print -quit)
	[ -n "$dsc" ] || die "no .dsc for qemu $version in $out; see $out/apt.log"
	dpkg-source --no-check -x "$dsc" "$src" >>"$out/apt.log" 2>&1 || {
		rm -rf "$src"
		die "dpkg-source -x $dsc failed; see $out/apt.log"
	}
fi

if [ ! -x "$binary" ]; then
	mkdir -p "$src/b"
	log "configuring qemu-system-x86_64 (log: $src/b/configure.log)"
	(cd "$src/b" && ../configure --target-list=x86_64-softmmu --enable-tcg --enable-plugins \
		--enable-virtfs --enable-attr --enable-cap-ng --disable-docs --disable-werror \
		--disable-modules --disable-gtk --disable-sdl --disable-vnc --disable-spice \
		--disable-opengl --disable-guest-agent --disable-tools \
		--extra-cflags="-g -fno-omit-frame-pointer") >"$src/b/configure.log" 2>&1 ||
		die "configure failed; see $src/b/configure.log"
	log "building qemu-system-x86_64, about 15 minutes on 2 cores (log: $src/b/build.log)"
	(cd "$src/b" && ninja -j"$(nproc)" qemu-system-x86_64) >"$src/b/build.log" 2>&1 &
	ninja_pid=$!
	while sleep 60 && kill -0 "$ninja_pid" 2>/dev/null; do
		log "qemu build: $(grep -o '^\[[0-9]*/[0-9]*\]' "$src/b/build.log" | tail -n 1)"
	done
	wait "$ninja_pid" || die "the QEMU build failed; see $src/b/build.log"
fi

mkdir -p "$out/bin"
cat >"$out/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
# QEMU $version rebuilt with symbols by scripts/qemu-symbols.sh; Debian's firmware.
exec -a qemu-system-x86_64 "$binary" -L /usr/share/qemu -L /usr/share/seabios "\$@"
EOF
chmod +x "$out/bin/qemu-system-x86_64"
"$out/bin/qemu-system-x86_64" --version >/dev/null || die "$out/bin/qemu-system-x86_64 does not run"
log "built $binary; use it with PATH=$out/bin:\$PATH"
