#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow on kAFL's real Intel PT traces as perf.data
# (../shared/testdata/perf/kafl, its README; issue 34 point 4):
#
# - the instructions equal the README's count (libipt 2.0.5 = perf 6.1)
#   and, where perf is installed, perf script --itrace=i0ns address for
#   address (not mruby's 6.3 M: the count only); icelake_tip's code is
#   kernel code given as MMAP2 records of raw files (no kcore), read at
#   ip - start as perf does;
# - every near call, by callee in order, equals the README's count
#   (libipt 2.0.5 = perf 6.1) and, where Debian's perf is installed, perf
#   script --itrace=c's calls ("call" and "tr end call": a call whose
#   callee is outside the IP filter, named from its TIP.PGD);
# - a call out of the filter does not nest what follows it: the return
#   address where the trace is enabled again closes the callee's frame;
# - a page-cache image with an ELF header and a dynamic section but no
#   section headers (Unzip) never names an address by a sizeless symbol
#   it does not start (_init+0x..., _fini+0x...);
# - without DEBUGINFOD_URLS, libdebuginfod is never loaded (a module
#   without symbols makes libdwfl look for debug files), and the names
#   are the same as with it.
#
# Skips with a message without ../shared. Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
K=$shared/testdata/perf/kafl

[ -x "$PTFLOW" ] || { fail "$PTFLOW not built (run make all)"; finish; }
if [ ! -d "$K/symfs" ]; then
	echo "kafl_perf: $K not found, skipped"
	finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-kafl.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

have_perf=0
if command -v perf >/dev/null 2>&1 &&
   perf script --help >/dev/null 2>&1; then
	have_perf=1
else
	echo "kafl_perf: no perf (Debian's linux-perf): perf comparison skipped"
fi

# Name, instructions (the README's count).
for t in "Unzip 149576" "foo 117967" "mruby 6334131" "icelake_tip 15"; do
	# shellcheck disable=SC2086 # split "name count"
	set -- $t
	name=$1 want=$2
	data=$K/$name.perf.data
	"$PTFLOW" --no-inst --no-symbols --symfs "$K/symfs" "$data" \
		>"$tmp/$name.flow" 2>"$tmp/$name.err" ||
		fail "$name: ptflow exit $?: $(head -n 3 "$tmp/$name.err")"
	grep -v '^\[' "$tmp/$name.flow" | sed 's/^0*//' >"$tmp/$name.ips"
	n=$(wc -l <"$tmp/$name.ips")
	[ "$n" -eq "$want" ] && pass ||
		fail "$name: $n instructions, the README says $want"
	[ "$have_perf" = 1 ] && [ "$name" != mruby ] || continue
	perf script -i "$data" --symfs "$K/symfs" --itrace=i0ns -F ip \
		2>/dev/null | awk '{ print $1 }' >"$tmp/$name.perf"
	cmp -s "$tmp/$name.perf" "$tmp/$name.ips" && pass ||
		fail "$name: instructions differ from perf's"
done

# Name, near calls (the README's count).
for t in "Unzip 219" "foo 2840" "mruby 45446"; do
	# shellcheck disable=SC2086 # split "name count"
	set -- $t
	name=$1 want=$2
	data=$K/$name.perf.data
	"$PTFLOW" --calls --no-symbols --symfs "$K/symfs" "$data" \
		>"$tmp/$name.calls" 2>"$tmp/$name.err" ||
		fail "$name: ptflow --calls exit $?: $(head -n 3 "$tmp/$name.err")"
	sed -n 's/^.*  call 0x\([0-9a-f]*\)$/\1/p' "$tmp/$name.calls" \
		>"$tmp/$name.callees"
	n=$(wc -l <"$tmp/$name.callees")
	[ "$n" -eq "$want" ] && pass ||
		fail "$name: $n near calls, the README says $want"
	if [ "$have_perf" = 1 ]; then
		perf script -i "$data" --symfs "$K/symfs" --itrace=c -F +flags \
			2>/dev/null |
		awk '/branches:.*  (call|tr end  call) / {
			for (i = 1; i <= NF; i++) if ($i == "=>") print $(i + 1) }' \
			>"$tmp/$name.perf"
		cmp -s "$tmp/$name.perf" "$tmp/$name.callees" && pass ||
			fail "$name: callees differ from perf's" \
			     "($(wc -l <"$tmp/$name.perf") in perf)"
	fi
done

# foo: `callq *(%rax)` at 0x7ffff784b000 leaves the filter for
# 0x7ffff74d3130; the trace resumes at its return address 0x7ffff784b002
# (libipt: enabled, resumed), which closes the callee's frame.
awk '/call 0x7ffff74d3130$/ { c = NR } c && NR == c + 1 && /disabled/ { d = 1 }
     d && NR == c + 2 && /return 0x7ffff74d3130$/ { ok = 1; exit }
     END { exit !ok }' "$tmp/foo.calls" && pass ||
	fail "foo: the call out of the filter at 0x7ffff784b000 is not call, disabled, return"
grep -q 'call 0x7ffff784b002$' "$tmp/foo.calls" &&
	fail "foo: the return address 0x7ffff784b002 printed as a callee" || pass

# Unzip: with symbols, no address named after a sizeless symbol it is not at.
"$PTFLOW" --symfs "$K/symfs" "$K/Unzip.perf.data" >"$tmp/Unzip.flow" \
	2>/dev/null || fail "Unzip: ptflow exit $?"
n=$(grep -c '<_init+\|<_fini+' "$tmp/Unzip.flow")
[ "$n" -eq 0 ] && pass || fail "Unzip: $n instructions named _init+/_fini+"
grep -q '<_init>' "$tmp/Unzip.flow" && pass ||
	fail "Unzip: _init itself (0x4019c8, DT_INIT) not named"

# mruby's image has no symbol table, so libdwfl looks for a separate
# debug file: without DEBUGINFOD_URLS, libdebuginfod (and libcurl) is not
# loaded (ptflow_debuginfo.c); the same names either way.
env -u DEBUGINFOD_URLS LD_DEBUG=libs "$PTFLOW" --calls --symfs "$K/symfs" \
	"$K/mruby.perf.data" >"$tmp/mruby.calls" 2>"$tmp/mruby.ld" ||
	fail "mruby --calls: ptflow exit $?"
grep -q 'libdebuginfod' "$tmp/mruby.ld" &&
	fail "mruby --calls: libdebuginfod loaded without DEBUGINFOD_URLS" || pass
DEBUGINFOD_URLS=http://127.0.0.1:9/ DEBUGINFOD_TIMEOUT=1 "$PTFLOW" --calls \
	--symfs "$K/symfs" "$K/mruby.perf.data" 2>/dev/null | cmp -s - "$tmp/mruby.calls" &&
	pass || fail "mruby --calls: other names with DEBUGINFOD_URLS set"

finish
