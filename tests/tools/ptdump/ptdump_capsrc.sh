#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptdump on captures read through libpt's capture source (issue 36,
# lwpt/capture_src.h): perf.data files of ../shared/testdata/perf read in
# place (file, pipe format, standard input), ptcap directories made here
# from ../shared/testdata/pt/real/libxdc, and bad perf.data files
# (truncated, flipped bytes): a clear error, exit 1, never a crash.
# Skips what ../shared (LWPT_SHARED) does not have.
#
# Usage: ptdump_capsrc.sh [PTDUMP]   (default: $O/bin/ptdump, O=build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ptdump=${1:-${PTDUMP:-$top/${O:-build}/bin/ptdump}}
shared=${LWPT_SHARED:-$top/../shared}
perf=$shared/testdata/perf
xdc=$shared/testdata/pt/real/libxdc

if [ ! -x "$ptdump" ]; then
	echo "ERROR: $ptdump not built"
	echo "0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptdump-capsrc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# ---- perf.data, in place ----
if [ -f "$perf/perf.data.intel_pt-4.14" ]; then
	for f in "$perf/perf.data.intel_pt-4.14" "$perf/perf.data.piped.intel_pt-4.14"; do
		"$ptdump" "$f" > "$tmp/out" 2> "$tmp/err"
		rc=$?
		[ "$rc" -le 1 ] && [ "$(grep '^==' "$tmp/out" | tr '\n' ' ')" = \
			"== $f:cpu0.pt == $f:cpu3.pt " ] && pass ||
			fail "ptdump $f: rc=$rc $(grep '^==' "$tmp/out" | head -3)"
		# packets only: the code of the mappings is not looked up
		grep -q 'code unavailable' "$tmp/err" &&
			fail "ptdump $f looked up code: $(head -2 "$tmp/err")" || pass
		"$ptdump" - < "$f" | sed 's/^== -:/== /' > "$tmp/stdin"
		sed "s#^== $f:#== #" "$tmp/out" | cmp -s - "$tmp/stdin" && pass ||
			fail "ptdump - < $f differs from ptdump $f"
	done
	for f in "$perf/perf.data.intel_pt-4.14" "$perf/kafl/mruby.perf.data"; do
		[ -f "$f" ] || continue
		"$ptdump" -j 1 "$f" > "$tmp/j1" 2>&1
		"$ptdump" -j 2 --chunk-size 4K "$f" > "$tmp/j2" 2>&1
		cmp -s "$tmp/j1" "$tmp/j2" && pass || fail "ptdump -j 2 $f differs from -j 1"
	done

	# bad perf.data: exit 1 with the reason, no crash, no hang
	size=$(wc -c < "$perf/perf.data.intel_pt-4.14")
	for cut in 0 8 100 104 744 1000 20000 $((size / 2)) $((size - 1)); do
		head -c "$cut" "$perf/perf.data.intel_pt-4.14" > "$tmp/cut.data"
		timeout 60 "$ptdump" "$tmp/cut.data" > /dev/null 2> "$tmp/err"
		rc=$?
		# a file too short to be a perf.data is a trace file to ptdump
		[ "$rc" -eq 1 ] && grep -q 'truncated\|no PSB\|is empty\|not a perf.data' "$tmp/err" &&
			pass || fail "truncated at $cut: rc=$rc $(head -2 "$tmp/err")"
	done
	psize=$(wc -c < "$perf/perf.data.piped.intel_pt-4.14")
	for cut in 50 1000 $((psize / 2)); do
		head -c "$cut" "$perf/perf.data.piped.intel_pt-4.14" |
			timeout 60 "$ptdump" - > /dev/null 2> "$tmp/err"
		rc=$?
		[ "$rc" -eq 1 ] && grep -q 'truncated\|no Intel PT' "$tmp/err" && pass ||
			fail "pipe cut at $cut: rc=$rc $(head -2 "$tmp/err")"
	done
	i=0
	while [ $i -lt 24 ]; do
		cp "$perf/perf.data.intel_pt-4.14" "$tmp/flip.data"
		chmod u+w "$tmp/flip.data"
		at=$(( (i * 7919 + 13) % (i % 2 ? 4096 : size) ))
		printf "\\$(printf '%03o' $(( (i * 37 + 1) % 256 )))" |
			dd of="$tmp/flip.data" bs=1 seek="$at" conv=notrunc 2> /dev/null
		timeout 60 "$ptdump" "$tmp/flip.data" > /dev/null 2> "$tmp/err"
		rc=$?
		[ "$rc" -le 2 ] && pass || fail "byte $at flipped: rc=$rc $(head -2 "$tmp/err")"
		i=$((i + 1))
	done
else
	echo "ptdump_capsrc: $perf missing: perf.data cases skipped"
fi

# Two queues of one thread: two traces, in version order of their names
# (as the ptcap directory of the same capture lists them).
f=$shared/repro/inputs/perf-dup-tid-queues.data
if [ -f "$f" ]; then
	"$ptdump" "$f" > "$tmp/out" 2>&1
	[ "$(grep '^==' "$tmp/out" | tr '\n' ' ')" = "== $f:tid1234.p1.pt == $f:tid1234.pt " ] &&
		pass || fail "two queues of one thread: $(grep '^==' "$tmp/out")"
fi

# ---- a ptcap directory: each trace as dumped alone, its gaps applied ----
if [ -f "$xdc/Unzip__trace.pt" ]; then
	cap=$tmp/cap
	mkdir "$cap"
	cp "$xdc/Unzip__trace.pt" "$cap/cpu0.pt"
	cp "$xdc/foo__trace.pt" "$cap/cpu10.pt"
	cp "$xdc/Unzip__trace.pt" "$cap/cpu2.pt"
	printf 'lwpt-ptcap-config 1\nmode per-cpu\ncpu 6/94/3\nmtc-freq 3\nnom-freq 24\ncpuid-0x15.eax 2\ncpuid-0x15.ebx 200\ngaps.cpu10.pt 4000 9000\n' \
		> "$cap/config"
	"$ptdump" --time "$cap" > "$tmp/dir" 2>&1
	rc=$?
	for t in cpu0.pt cpu2.pt cpu10.pt; do
		echo "== $cap/$t"
		"$ptdump" --time "$cap/$t" 2>&1
	done > "$tmp/each"
	[ "$rc" -eq 0 ] && cmp -s "$tmp/dir" "$tmp/each" && pass ||
		fail "ptdump DIR differs from its traces dumped alone (rc=$rc)"
	[ "$(grep -c '^\[[0-9a-f]*: gap: ' "$tmp/dir")" -eq 2 ] && pass ||
		fail "ptdump DIR: the two gaps of cpu10.pt not shown"
	"$ptdump" -j 2 --chunk-size 8K "$cap" > "$tmp/j2" 2>&1
	"$ptdump" -j 1 "$cap" > "$tmp/j1" 2>&1
	cmp -s "$tmp/j1" "$tmp/j2" && pass || fail "ptdump -j 2 DIR differs from -j 1"
	# a gap inside a range applies, relative to its start: 9000 is
	# 0x1328 after 0x1000; 4000 is before the range
	"$ptdump" "$cap/cpu10.pt:0x1000-0x3000" > "$tmp/r" 2>&1
	grep -q '^\[1328: gap: ' "$tmp/r" && [ "$(grep -c ': gap: ' "$tmp/r")" -eq 1 ] && pass ||
		fail "range of cpu10.pt: not one gap at 0x1328: $(grep gap "$tmp/r")"
else
	echo "ptdump_capsrc: $xdc missing: directory cases skipped"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
