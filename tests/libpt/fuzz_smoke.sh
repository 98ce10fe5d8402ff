#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A short run of the packet decoder's libFuzzer target (issue 8 point 8):
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
out=${O:-build}/fuzz/smoke.log
mkdir -p "${O:-build}/fuzz"
if make -s fuzz-pkt O="${O:-build}" FUZZ_TIME="${FUZZ_SMOKE_TIME:-20}" >"$out" 2>&1; then
	grep -E '^#[0-9]+.*(DONE|pulse)' "$out" | tail -n 1
	echo "fuzz_pkt: no crash in ${FUZZ_SMOKE_TIME:-20} s"
	echo "1 passed, 0 failed"
	exit 0
fi
tail -n 30 "$out"
echo "fuzz_pkt: FAILED (log: $out; reproduce with ${O:-build}/fuzz/fuzz_pkt FILE)"
echo "0 passed, 1 failed"
exit 1
