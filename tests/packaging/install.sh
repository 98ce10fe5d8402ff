#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Packaging (issue 16 point 7): `make install` into a DESTDIR, then what a
# user of the installed tree sees. An outside program built with pkg-config
# only, dynamically and statically, against liblwp and libpt; every
# installed header compiles on its own; the .pc files name no build-tree
# path; `man -l` renders every page and the per-function links resolve
# (man lwp_read, man lpt_pkt_next); every tool prints the package version
# with --version (status 0) and exits 2 on an unknown option; `make
# uninstall` removes everything; `make install-dkms` copies sources only;
# the versions of the Makefile, dkms.conf and the module agree.
#
# Usage: install.sh   (from the top of the tree, O=build)

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lwpt-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

d=$tmp/dest
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
if ! make -s -C "$top" O="$O" install DESTDIR="$d" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "0 passed, 1 failed"
	exit 1
fi
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
libdir=/usr/lib${multiarch:+/$multiarch}
[ -f "$d$libdir/liblwp.so.0" ] && [ -f "$d$libdir/libpt.a" ] && ok ||
	bad "libraries not in $libdir: $(cd "$d" && find . -name 'lib*')"

# pkg-config only, through the DESTDIR as a sysroot.
export PKG_CONFIG_SYSROOT_DIR="$d" PKG_CONFIG_LIBDIR="$d$libdir/pkgconfig" PKG_CONFIG_PATH=
for pc in liblwp libpt; do
	grep -q "$top" "$d$libdir/pkgconfig/$pc.pc" && bad "$pc.pc names the build tree" || ok
	desc=$(pkg-config --print-variables "$pc" >/dev/null && sed -n 's/^Description: //p' "$d$libdir/pkgconfig/$pc.pc")
	case $desc in
	"lwpt $pc"|"") bad "$pc.pc: no real description ($desc)" ;;
	*) ok ;;
	esac
	[ "$(pkg-config --modversion "$pc")" = "$version" ] && ok || bad "$pc.pc version"
done
cat >"$tmp/outside.c" <<'EOC'
#include <stdio.h>
#include <lwpt/lwp.h>
#include <lwpt/pt.h>
#include <lwpt/pt_pkt.h>
#include <lwpt/uapi/pt.h>

int main(void)
{
	static const unsigned char pad[1] = { 0 };
	struct lpt_packet pkt;
	struct lpt_pkt_block blk = { 0 };
	struct lwp_caps caps;

	lwp_query(&caps);
	if (lpt_pkt_decode(pad, 1, &blk, &pkt, 0) != 1 || pkt.type != LPT_PKT_PAD)
		return 1;
	printf("outside: %s %s %d\n", lpt_pkt_type_name(pkt.type),
	       lwp_backend_name(LWP_BACKEND_EMU), LWPT_PT_MODE_WRAP);
	return 0;
}
EOC
flags=$(pkg-config --cflags --libs liblwp libpt)
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$tmp/dyn" "$tmp/outside.c" $flags 2>"$tmp/cc.err"; then
	LD_LIBRARY_PATH="$d$libdir" "$tmp/dyn" >"$tmp/dyn.out" && grep -q '^outside: pad emu' "$tmp/dyn.out" &&
		ldd "$tmp/dyn" | grep -q liblwp.so.0 && ok || bad "dynamic program: $(cat "$tmp/dyn.out")"
else
	bad "dynamic build ($flags): $(cat "$tmp/cc.err")"
fi
flags=$(pkg-config --static --cflags --libs liblwp libpt)
if ${CC:-cc} -static -std=c11 -Wall -Wextra -Werror -o "$tmp/sta" "$tmp/outside.c" $flags 2>"$tmp/cc.err"; then
	"$tmp/sta" | grep -q '^outside: pad emu' && ! ldd "$tmp/sta" >/dev/null 2>&1 && ok ||
		bad "static program"
else
	bad "static build ($flags): $(cat "$tmp/cc.err")"
fi

# Every installed header on its own, and nothing but the public API.
for h in "$d/usr/include/lwpt/"*.h "$d/usr/include/lwpt/uapi/"*.h; do
	rel=${h#"$d/usr/include/"}
	printf '#include <%s>\n' "$rel" >"$tmp/h.c"
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -c -o "$tmp/h.o" -I"$d/usr/include" "$tmp/h.c" \
		2>"$tmp/cc.err" && ok || bad "<$rel> alone: $(head -n 3 "$tmp/cc.err")"
done
[ ! -e "$d/usr/include/uapi" ] && [ ! -e "$d/usr/include/lwpt/pt_rtit.h" ] && ok ||
	bad "headers outside lwpt/ or internal ones installed"

# Man pages: each renders; per-function links lead to the library page.
for m in "$d/usr/share/man/man"*/*; do
	[ -L "$m" ] && continue
	MANWIDTH=80 man -l "$m" >/dev/null 2>"$tmp/man.err" && ok || bad "man -l $m: $(cat "$tmp/man.err")"
done
for f in lwp_read lpt_pkt_next lpt_dev_open; do
	MANWIDTH=80 man -M "$d/usr/share/man" 3 "$f" 2>/dev/null | grep -q "$f" && ok ||
		bad "man $f: no page"
done

# Every tool: --version prints the package version; a bad option exits 2.
for t in "$d/usr/bin/"*; do
	n=${t##*/}
	out=$(LD_LIBRARY_PATH="$d$libdir" "$t" --version 2>&1)
	rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q "$version" && ok || bad "$n --version: $rc: $out"
	LD_LIBRARY_PATH="$d$libdir" "$t" --no-such-option >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] && ok ||
		bad "$n --no-such-option: status $rc, want 2 (usage error)"
	man -l "$d/usr/share/man/man1/$n.1" 2>/dev/null | grep -q 'EXIT STATUS' && ok ||
		bad "$n.1: no EXIT STATUS"
done

# The module and DKMS: one version; the DKMS tree holds sources only.
grep -q "^PACKAGE_VERSION=\"$version\"" "$top/dkms.conf" &&
	grep -q "LWPT_PACKAGE_VERSION	\"$version\"" "$top/kmod/hw.h" && ok ||
	bad "versions differ: Makefile $version, dkms.conf, kmod/hw.h"
grep -q '^BUILD_EXCLUSIVE_ARCH="x86_64"' "$top/dkms.conf" &&
	grep -q '^BUILD_EXCLUSIVE_KERNEL=' "$top/dkms.conf" && ok || bad "dkms.conf: not x86_64-only"
make -s -C "$top" O="$O" install-dkms DESTDIR="$d" >/dev/null 2>&1 || bad "make install-dkms"
dk=$d/usr/src/lwpt-$version
[ -f "$dk/dkms.conf" ] && [ -f "$dk/kmod/Kbuild" ] && [ -f "$dk/include/uapi/lwpt/pt.h" ] &&
	[ -x "$dk/$(sed -n 's/^POST_INSTALL="\(.*\)"$/\1/p' "$top/dkms.conf")" ] &&
	[ -z "$(cd "$dk" && find . -name '*.o' -o -name '*.ko' -o -name '*.mod.c' -o -path '*tests*')" ] &&
	[ ! -e "$dk/tools" ] && [ ! -e "$dk/build" ] && ok ||
	bad "install-dkms: $(cd "$dk" 2>/dev/null && find . -maxdepth 1)"

make -s -C "$top" O="$O" uninstall DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1
left=$(cd "$d" && find . -path ./usr/src -prune -o ! -type d -print)
[ -z "$left" ] && ok || bad "uninstall left: $left"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
