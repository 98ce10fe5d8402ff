#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench, ptafl (issue 26): afl-fuzz executions per second on one
# program, tests/tools/ptafl/ptafl_magic, in one run, so the ratios compare
# like with like on the same loaded machine:
#   -n        afl-fuzz -n: no coverage at all (the floor: fork, exec, wait)
#   ptafl-pt  afl-fuzz with ptafl's Intel PT coverage, only where /dev/pt
#             exists (on lwpt_sim.ko that measures the model, said so)
#   ptafl-ptrace  ptafl's test trace source (ptrace single-stepping): the
#             fork server's path with a stand-in tracer, not PT's speed
#   -Q        afl-fuzz -Q (QEMU mode), only where afl-qemu-trace exists:
#             Debian 12's afl++ 4.04c does not ship it
# Each: afl-fuzz -s 1 from the seed "AAAA" for EXECS executions (-E); the
# figure is EXECS over the wall-clock time of that afl-fuzz, its start-up
# included (afl-fuzz -n writes no fuzzer_stats on so short a run). What
# could not run says why.
#
# Usage: ptafl.sh [EXECS]   (binaries from $O, default build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/${O:-build}
ptafl=$bin/bin/ptafl
magic=$bin/tests/ptafl_magic
EXECS=${1:-10000}

echo "ptafl bench: afl-fuzz executions per second on ptafl_magic, $EXECS executions each"
if ! command -v afl-fuzz >/dev/null 2>&1; then
	echo "skipped: afl-fuzz not installed (Debian package afl++)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptafl-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/in"
printf 'AAAA' >"$tmp/in/seed"

now() { date +%s.%N; }

# speed NAME ARGS...: afl-fuzz ARGS; prints executions per second or nothing.
speed() {
	name=$1
	shift
	t0=$(now)
	AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		AFL_NO_AFFINITY=1 afl-fuzz -s 1 -E "$EXECS" -t 5000 -i "$tmp/in" \
		-o "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1 || {
		echo "  $name: afl-fuzz failed: $(tail -n 3 "$tmp/$name.log")" >&2
		return 0
	}
	awk -v n="$EXECS" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", n / (b - a) }'
}

base=$(speed n -n -- "$magic" @@)
echo "  afl-fuzz -n (no coverage):            ${base:-?} exec/s"

# ratio X: X / base, two decimals.
ratio() {
	awk -v a="$1" -v b="$base" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "?" }'
}

if [ -e /dev/pt ]; then
	sim=
	"$bin/bin/lwpt-info" 2>/dev/null | grep -qi sim && sim=" (lwpt_sim.ko: the model, not hardware)"
	pt=$(speed pt -- "$ptafl" -- "$magic" @@)
	echo "  ptafl, Intel PT$sim: ${pt:-?} exec/s, $(ratio "${pt:-0}") x afl-fuzz -n"
else
	echo "  ptafl, Intel PT: skipped: no /dev/pt on this machine (no PT hardware or"
	echo "    lwpt not loaded); the VM case tests/vm/slow/92-ptafl-sim.sh measures the model"
fi

st=$(speed ptrace -- "$ptafl" --trace-source=ptrace -- "$magic" @@)
echo "  ptafl --trace-source=ptrace (stand-in, single-stepping, not PT): ${st:-?} exec/s," \
	"$(ratio "${st:-0}") x afl-fuzz -n"

if command -v afl-qemu-trace >/dev/null 2>&1; then
	q=$(speed qemu -Q -- "$magic" @@)
	echo "  afl-fuzz -Q (QEMU mode): ${q:-?} exec/s, $(ratio "${q:-0}") x afl-fuzz -n"
else
	echo "  afl-fuzz -Q: skipped: no afl-qemu-trace (Debian 12's afl++ 4.04c has no QEMU mode)"
fi
