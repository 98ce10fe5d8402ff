#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every public function of a library's headers is in its man page: in the
# NAME section and with its prototype in the SYNOPSIS. Functions are the
# declarations, static inline functions and function-like macros of the
# header whose name starts with the library's prefix (internal helpers use
# a double underscore: lwp__ins). Run from the top of the tree.
pass=0
fail=0

# $1 page, $2 prefix, $3... headers
check_page() {
	page=$1
	prefix=$2
	shift 2
	names=$(grep -ohE "^(static inline )?[a-z0-9_ ]+[ *]+${prefix}_[a-z0-9_]+\(|^#define ${prefix}_[a-z0-9_]+\(" "$@" |
		grep -oE "${prefix}_[a-z0-9_]+\(" | tr -d '(' | grep -v "^${prefix}__" | sort -u)
	[ -n "$names" ] || { echo "FAIL: no functions found in $*"; fail=$((fail + 1)); return; }
	name_sec=$(sed -n '/^\.SH NAME/,/^\.SH SYNOPSIS/p' "$page")
	synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page")
	for n in $names; do
		if echo "$name_sec" | grep -qw "$n" &&
		   echo "$synopsis" | grep -q "[ *]$n("; then
			pass=$((pass + 1))
		else
			echo "FAIL: $n ($*) not in NAME and SYNOPSIS of $page"
			fail=$((fail + 1))
		fi
	done
}

check_page liblwp/man/liblwp.3 lwp include/lwpt/lwp.h
check_page libpt/man/libpt.3 lpt include/lwpt/pt.h include/lwpt/pt_pkt.h include/lwpt/pt_time.h include/lwpt/pt_cov.h
check_page libpt/man/libpt.3 ptcap include/lwpt/ptcap_dir.h

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
