#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The shared libraries export their documented API and nothing else: every
# name `nm -D --defined-only` lists for build/lib/lib{lwp,pt}.so.0 is
# declared in an include/lwpt/*.h header and named in the library's man
# page (functions in its NAME list, which `make install` turns into man
# links; a variable like liblwp's lwp_tls_emulated, read by the header's
# inline wrappers, in its text); every function of the NAME list that the
# static archive defines is exported; and every name the version script
# (liblwp/liblwp.map, libpt/libpt.map) exports is defined. Source: the
# brief of issue 25 (libpt.so exported model/x86's x86_cofi_*).
#
# Usage: exports.sh   (from the top of the tree, O=build, after `make libs`)

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
cd "$top" || exit 1
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

for lib in lwp pt; do
	so=$O/lib/lib$lib.so.0
	page=lib$lib/man/lib$lib.3
	map=lib$lib/lib$lib.map
	if [ ! -f "$so" ]; then
		bad "$so missing (run make libs)"
		continue
	fi
	# the NAME list, as the Makefile's MAN_LINKS reads it
	names=$(sed -n '/^\.SH NAME/,/\\-/p' "$page" | sed '1d; s/\\-.*//' | tr -s ', ' '\n')
	syms=$(nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $2, $3 }')
	if [ -n "$syms" ]; then ok; else bad "$so exports nothing"; fi
	n=0
	while read -r type sym; do
		[ -n "$sym" ] || continue
		n=$((n + 1))
		grep -qE "\\b$sym\\b" include/lwpt/*.h ||
			bad "$so exports $sym, declared in no include/lwpt header"
		case $type in
		T|W|i)	printf '%s\n' "$names" | grep -qx "$sym" ||
				bad "$so exports $sym, not in $page's NAME list" ;;
		*)	grep -qw "$sym" "$page" ||
				bad "$so exports $sym, not named in $page" ;;
		esac
	done <<EOS
$syms
EOS
	ok
	# every function of the NAME list the archive defines is exported
	# (a new one documented but left out of the version script)
	for sym in $(nm --defined-only "$O/lib/lib$lib.a" 2>/dev/null | awk '$2 == "T" { print $3 }'); do
		printf '%s\n' "$names" | grep -qx "$sym" || continue
		printf '%s\n' "$syms" | grep -q " $sym\$" ||
			bad "$page documents $sym, which $so does not export (add it to $map)"
	done
	ok
	# the version script's names all exist (no stale or misspelt entry)
	for sym in $(sed -n '/global:/,/local:/p' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p'); do
		printf '%s\n' "$syms" | grep -q " $sym\$" ||
			bad "$map exports $sym, which $so does not define"
	done
	ok
	echo "lib$lib.so: $n exported names checked"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
