#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# Script test of tools/ptcov (ptcov(1), Documentation/ptcov.rst): the
# command line, exit codes, a missing page named by address, and the
# --xdc map's hash against libxdc's published value for kAFL's Unzip trace
# (../shared/testdata/pt/README.md). The edge multisets themselves are
# checked against libipt by test_pt_cov.
set -u

# here, root, O, shared, pass, fail, finish
. "$(dirname "$0")/../lib.sh"
PTCOV=${PTCOV:-$O/bin/ptcov}
data=$shared/testdata/pt/real/libxdc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$PTCOV" ] || { fail "$PTCOV not built (run make)"; finish; }

"$PTCOV" --help | grep -q -- '--pagecache' && pass || fail "--help"
"$PTCOV" --version | grep -q '^ptcov (lwpt) ' && pass || fail "--version"
"$PTCOV" >/dev/null 2>&1; [ $? -eq 2 ] && pass || fail "no arguments: exit 2"
"$PTCOV" --bogus >/dev/null 2>&1; [ $? -eq 2 ] && pass || fail "unknown option: exit 2"
"$PTCOV" --pt /nonexistent --raw /nonexistent:0x1000 >/dev/null 2>&1
[ $? -eq 1 ] && pass || fail "missing file: exit 1"
"$PTCOV" --map-size 1000 --pt x --raw y:0 >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "--map-size not a power of two: exit 2"
"$PTCOV" --filter 5-3 --pt x --raw y:0 >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "--filter reversed: exit 2"

# A synthetic trace over a jmp to 0x9000, whose page is missing: exit 1,
# the address named. Code: e9 fb 7f 00 00 at 0x1000 (jmp 0x9000).
printf '\351\373\177\000\000' > "$tmp/code"
{
	i=0; while [ $i -lt 8 ]; do printf '\002\202'; i=$((i + 1)); done
	printf '\002\043'				# PSBEND
	printf '\321\000\020\000\000\000\000\000\000'	# TIP.PGE 0x1000
	printf '\006'					# TNT.8: one bit
} > "$tmp/t.pt"
"$PTCOV" --pt "$tmp/t.pt" --raw "$tmp/code:0x1000" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q '0x9000' "$tmp/err" && pass ||
	fail "missing page: exit $rc, $(cat "$tmp/err")"

# A ptcap directory (Documentation/ptcap-format.rst): config, maps, cpu0.pt.
# Code at 0x1000: jne 0x1004; nop; nop; ret. Trace: TIP.PGE 0x1000, one
# TNT bit (taken), TIP.PGD 0x5000 (the ret leaves the traced range).
mkdir "$tmp/cap"
printf 'lwpt-ptcap-config 1\ncpu 6/94/3\n' > "$tmp/cap/config"
printf '\165\002\220\220\303' > "$tmp/cap/code"
printf 'lwpt-ptcap-maps 1\n0x1000 0x2000 0x0 code\n' > "$tmp/cap/maps"
{
	i=0; while [ $i -lt 8 ]; do printf '\002\202'; i=$((i + 1)); done
	printf '\002\043'
	printf '\321\000\020\000\000\000\000\000\000'	# TIP.PGE 0x1000
	printf '\006'					# TNT.8: taken
	printf '\301\000\120\000\000\000\000\000\000'	# TIP.PGD 0x5000
} > "$tmp/cap/cpu0.pt"
out=$("$PTCOV" "$tmp/cap" 2>&1)
[ "$out" = "$(printf '1000 1004 1\n1004 5000 1')" ] && pass ||
	fail "ptcap directory: got '$out'"
# With "addr0 filter 0x1000-0x1003" in its config the range ends before
# the ret: the taken jne leaves it (its edge counts, TIP.PGD gives no more).
printf 'addr0 filter 0x1000-0x1003\n' >> "$tmp/cap/config"
out=$("$PTCOV" "$tmp/cap" 2>&1)
[ "$out" = "1000 1004 1" ] && pass || fail "ptcap directory, addr0 filter: got '$out'"
out=$("$PTCOV" --filter 1000-2000 "$tmp/cap" 2>&1)
[ "$out" = "$(printf '1000 1004 1\n1004 5000 1')" ] && pass ||
	fail "ptcap directory, --filter over addr0: got '$out'"

if [ -f "$data/Unzip__trace.pt" ]; then
	"$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 --xdc --stat --bitmap "$tmp/map" 2> "$tmp/stat"
	rc=$?
	[ $rc -eq 0 ] && grep -q 'map hash 0x15b89190dfa291b2' "$tmp/stat" && pass ||
		fail "Unzip --xdc hash: exit $rc, $(cat "$tmp/stat")"
	[ "$(stat -c %s "$tmp/map")" = 65536 ] && pass || fail "--bitmap size"
	n=$("$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 --edges | awk '{ s += $3 } END { print NR, s }')
	[ "$n" = "706 46761" ] && pass || fail "Unzip edges: $n (want 706 distinct, 46761)"
	"$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 --repeat 5 2> "$tmp/rep"
	grep -q 'per decode' "$tmp/rep" && pass || fail "--repeat"
	# truncated trace: no crash, exit 0 or 1
	head -c 5000 "$data/Unzip__trace.pt" > "$tmp/cut.pt"
	"$PTCOV" --pt "$tmp/cut.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 > /dev/null 2>&1
	rc=$?
	[ $rc -le 1 ] && pass || fail "truncated trace: exit $rc"
else
	echo "ptcov.sh: $data missing: real-trace checks skipped"
fi
finish
