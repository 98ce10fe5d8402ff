#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A short run of every libFuzzer target (`make fuzz-list`: the packet
# decoder, the capture directory's files, the coverage decoder's code
# loaders, the coverage decoder, the perf.data reader, ptflow's decoder;
# issue 36 point 6) with ASan and UBSan, FUZZ_SMOKE_TIME seconds each
# (default 30), seeded from ../shared where it exists, with the per-input
# limits of `make fuzz` (FUZZ_TIMEOUT, FUZZ_RSS_MB, FUZZ_MALLOC_MB). Any
# crash, leak, sanitizer report, hang or memory blow-up fails it, naming
# the input libFuzzer saved. Longer campaigns: `make fuzz FUZZ_SECONDS=3600`
# (Documentation/testing.rst, "Fuzzing"). Skips without clang.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "SKIP: no ${FUZZ_CC:-clang} (scripts/install-deps installs clang)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
O=${O:-build}
mkdir -p "$O/fuzz"
passed=0
failed=0
secs=${FUZZ_SMOKE_TIME:-30}
for t in $(make -s --no-print-directory fuzz-list O="$O"); do
	out=$O/fuzz/smoke-$t.log
	if make -s fuzz-"$t" O="$O" FUZZ_SECONDS="$secs" >"$out" 2>&1; then
		grep -E '^#[0-9]+.*(DONE|pulse)' "$out" | tail -n 1
		echo "fuzz_$t: no finding in $secs s"
		passed=$((passed + 1))
	else
		tail -n 30 "$out"
		echo "fuzz_$t: FAILED (log: $out; reproduce with $O/fuzz/fuzz_$t FILE," \
		     "the file named above)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
