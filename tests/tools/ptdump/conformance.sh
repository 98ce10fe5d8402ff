#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptdump conformance with libipt's ptdump (issue 8, points 3 and 6).
#
#  1. The 479 libipt conformance cases of $SHARED/testdata/pt/libipt-ptt:
#     MANIFEST lines are `trace|cpu|options|expected`, cpu `-` meaning no
#     --cpu. A case passes when `ptdump [--cpu CPU] OPTIONS TRACE` prints the
#     expected file, compared with `diff -b` as libipt's own test script does.
#  2. The real hardware traces of $SHARED/testdata/pt/real/ against what
#     libipt's ptdump printed for them (ref-ptdump/, default and --raw),
#     and --no-pad against the default reference without its PAD lines
#     (ptdump's PAD fast paths differ by option).
#
# Failures are listed with the first differing lines. Ends with
# "N passed, N failed"; exits non-zero on any failure. Without the shared
# data (../shared or $LWPT_SHARED) it prints a skip message and exits 0.
#
# Usage: conformance.sh [PTDUMP]   (default: $O/bin/ptdump, O=build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ptdump=${1:-${PTDUMP:-$top/${O:-build}/bin/ptdump}}

shared=${LWPT_SHARED:-}
if [ -z "$shared" ]; then
	for d in "$top/../shared"; do
		if [ -d "$d/testdata/pt" ]; then
			shared=$d
			break
		fi
	done
fi
data=$shared/testdata/pt

if [ -z "$shared" ] || [ ! -f "$data/libipt-ptt/MANIFEST" ]; then
	echo "SKIP: no shared test data (set LWPT_SHARED or provide ../shared)"
	echo "0 passed, 0 failed"
	exit 0
fi
if [ ! -x "$ptdump" ]; then
	echo "ERROR: $ptdump not built"
	echo "0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptdump-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
show=${SHOW:-4}

# check NAME EXPECTED-FILE ACTUAL-FILE
check() {
	if diff -b "$2" "$3" > "$tmp/diff" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1"
		head -n "$show" "$tmp/diff" | sed 's/^/    /'
	fi
}

ptt=$data/libipt-ptt
while IFS='|' read -r trace cpu opts expected; do
	[ -n "$trace" ] || continue
	cpuopt=
	[ "$cpu" = "-" ] || cpuopt="--cpu $cpu"
	# shellcheck disable=SC2086 # options are split on purpose
	"$ptdump" $cpuopt $opts "$ptt/$trace" > "$tmp/out" 2>&1
	check "$trace [${cpuopt:+$cpuopt }$opts]" "$ptt/$expected" "$tmp/out"
done < "$ptt/MANIFEST"

for ref in "$data"/ref-ptdump/*.ptdump.txt.xz; do
	[ -f "$ref" ] || continue
	name=$(basename "$ref" .ptdump.txt.xz)
	trace=$(find "$data/real" -name "$name.pt" | head -n 1)
	if [ -z "$trace" ]; then
		failed=$((failed + 1))
		echo "FAIL: $name: trace not found"
		continue
	fi
	for mode in default raw no-pad; do
		case $mode in
		raw)
			exp=$data/ref-ptdump/$name.ptdump-raw.txt.xz
			opt=--raw
			;;
		no-pad)
			exp=$ref
			opt=--no-pad
			;;
		*)
			exp=$ref
			opt=
			;;
		esac
		xz -dc "$exp" > "$tmp/exp" || { failed=$((failed + 1)); continue; }
		if [ $mode = no-pad ]; then
			grep -v -E '^[0-9a-f]{16}  pad$' "$tmp/exp" > "$tmp/exp.np"
			mv "$tmp/exp.np" "$tmp/exp"
		fi
		# shellcheck disable=SC2086
		"$ptdump" $opt "$trace" > "$tmp/out" 2>&1
		check "real/$name.pt [$mode]" "$tmp/exp" "$tmp/out"
	done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
