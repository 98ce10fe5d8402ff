#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A short run of the packet decoder's libFuzzer target (issue 8 point 8)
# and of the perf.data reader's (issue 24, fuzz_perf, half the time):
# `make fuzz-pkt` with ASan and UBSan for FUZZ_SMOKE_TIME seconds (default
# 20), seeded with the real traces and libipt's conformance cases where
# ../shared exists. Any crash, leak, sanitizer report or hang fails it.
# Longer campaigns: `make fuzz-pkt FUZZ_TIME=3600`. Skips without clang.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "SKIP: no ${FUZZ_CC:-clang} (scripts/install-deps installs clang)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
mkdir -p "${O:-build}/fuzz"
passed=0
failed=0
# fuzz_pkt (the packet decoder) for FUZZ_SMOKE_TIME, fuzz_perf (the
# perf.data reader, issue 24) for half of it.
for t in pkt perf; do
	out=${O:-build}/fuzz/smoke-$t.log
	secs=${FUZZ_SMOKE_TIME:-20}
	[ $t = perf ] && secs=$(( (secs + 1) / 2 ))
	if make -s fuzz-$t O="${O:-build}" FUZZ_TIME="$secs" >"$out" 2>&1; then
		grep -E '^#[0-9]+.*(DONE|pulse)' "$out" | tail -n 1
		echo "fuzz_$t: no crash in $secs s"
		passed=$((passed + 1))
	else
		tail -n 30 "$out"
		echo "fuzz_$t: FAILED (log: $out; reproduce with ${O:-build}/fuzz/fuzz_$t FILE)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
