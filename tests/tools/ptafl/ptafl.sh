#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptafl on the host (issue 26, "Tests"): its command line (help, version,
# option errors, the message when it is not run by afl-fuzz, /dev/pt
# missing), then afl-fuzz itself driving ptafl with the test trace source
# (--trace-source=ptrace: edges by single-stepping, the same edge
# definition; the host has no PT). The target, ptafl_magic, crashes only
# on inputs that start with "LWPT", compared byte by byte. From the seed
# "AAAA", afl-fuzz -D (deterministic stages, fixed -s seed) with ptafl's
# coverage must find the crash within BUDGET executions: each right byte
# is a new edge, so afl-fuzz keeps that input and its arith8 stage (+-35)
# finds the next byte. afl-fuzz -n (no coverage) on the same program,
# flags, seed and budget must not: it needs all four bytes at once. The
# budget is counted in executions (afl-fuzz -E), never in time. Skipped
# when afl-fuzz (Debian package afl++) is not installed.
#
# Usage: ptafl.sh   (binaries from $O, default build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
bin=$top/${O:-build}
ptafl=$bin/bin/ptafl
magic=$bin/tests/ptafl_magic
BUDGET=20000

for f in "$ptafl" "$magic"; do
	if [ ! -x "$f" ]; then
		echo "ERROR: $f not built"
		echo "0 passed, 1 failed"
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptafl-sh.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0
pass() { echo "ok: $*"; passed=$((passed + 1)); }
flunk() { echo "FAIL: $*"; failed=$((failed + 1)); }

# expect NAME STATUS REGEX -- ARGS...: ptafl ARGS exits STATUS, output matches REGEX
expect() {
	name=$1 want=$2 re=$3
	shift 4
	out=$("$ptafl" "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && printf '%s\n' "$out" | grep -Eq "$re"; then
		pass "$name"
	else
		flunk "$name: status $rc (want $want), output: $out"
	fi
}

expect help 0 '^usage: afl-fuzz .* -- ptafl \[options\] -- PROGRAM' -- --help
expect version 0 '^ptafl [0-9.]+ \(lwpt\)$' -- --version
expect no-program 2 '^ptafl: no PROGRAM' --
expect bad-size 2 '^ptafl: --size=3K: a power of two from 4K to 64M$' -- --size=3K -- "$magic"
expect bad-map 2 '^ptafl: --map-size=1000: a power of two' -- --map-size=1000 -- "$magic"
expect bad-cpu 2 '^ptafl: --cpu=x: expected FAMILY/MODEL' -- --cpu=x -- "$magic"
expect bad-source 2 '^ptafl: --trace-source=foo: pt or ptrace$' -- --trace-source=foo -- "$magic"
expect not-afl 1 'ptafl is a fork server for afl-fuzz' -- -- "$magic"

if ! command -v afl-fuzz >/dev/null 2>&1; then
	echo "SKIP: afl-fuzz not installed (Debian package afl++)"
	echo "$passed passed, $failed failed, 1 skipped"
	[ "$failed" -eq 0 ]
	exit
fi

# run_afl DIR ARGS...: afl-fuzz with the test's flags; prints the crash count.
run_afl() {
	out=$1
	shift
	mkdir -p "$tmp/in"
	printf 'AAAA' >"$tmp/in/seed"
	AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		AFL_NO_AFFINITY=1 AFL_BENCH_UNTIL_CRASH=1 \
		env -u AFL_SKIP_BIN_CHECK afl-fuzz -D -s 1 -E "$BUDGET" -t 1000 -i "$tmp/in" -o "$out" "$@" \
		>"$out.log" 2>&1 || { echo "afl-fuzz failed: $(tail -n 5 "$out.log")" >&2; return 1; }
	ls "$out"/default/crashes/id:* "$out"/crashes/id:* 2>/dev/null | wc -l
}

# The stand-in trace source's edges, the same input twice: the same map
# (afl-showmap through the fork server, as afl-fuzz drives it).
mkdir -p "$tmp/sm"
printf 'LWAA' >"$tmp/sm/a"
if afl-showmap -q -i "$tmp/sm" -o "$tmp/smo" -t 5000 -- "$ptafl" --trace-source=ptrace -- \
	"$magic" @@ >"$tmp/sm.log" 2>&1 && [ "$(wc -l <"$tmp/smo/a")" -ge 3 ]; then
	pass "afl-showmap: $(wc -l <"$tmp/smo/a") edges of 'LWAA'"
else
	flunk "afl-showmap: $(cat "$tmp/sm.log")"
fi

n=$(run_afl "$tmp/cov" -- "$ptafl" --trace-source=ptrace --stats "$tmp/stats" -- "$magic" @@)
crash=$(cat "$tmp"/cov/default/crashes/id:* 2>/dev/null | head -c 4)
execs=$(sed -n 's/^execs_done *: //p' "$tmp/cov/default/fuzzer_stats" 2>/dev/null)
if [ "${n:-0}" -ge 1 ] && [ "$crash" = LWPT ]; then
	pass "afl-fuzz with ptafl: crash 'LWPT' found after $execs executions (budget $BUDGET)"
else
	flunk "afl-fuzz with ptafl: no crash in $BUDGET executions ($execs done): $(tail -n 3 "$tmp/cov.log")"
fi
grep -q '^runs [1-9]' "$tmp/stats" && pass "--stats: $(head -n 1 "$tmp/stats")" ||
	flunk "--stats: $(cat "$tmp/stats")"

n=$(run_afl "$tmp/non" -n -- "$magic" @@)
if [ "${n:-1}" -eq 0 ] && grep -q 'Execution limit was reached' "$tmp/non.log"; then
	pass "afl-fuzz -n: no crash in $BUDGET executions"
else
	flunk "afl-fuzz -n found the crash within $BUDGET executions ($n)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
