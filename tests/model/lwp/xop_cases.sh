#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate the GNU as table of LWP instructions and compare it with the
# checked-in tests/model/lwp/lwp_xop_cases.h (43724 §5 encodings as emitted
# by the installed GNU as). Skips (counts as passed) without as/python3.
dir=$(dirname "$0")
passed=0
failed=0
if ! command -v as >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1 ||
   ! command -v objdump >/dev/null 2>&1; then
	echo "SKIP: as, objdump or python3 missing"
	echo "1 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if python3 "$dir/gen_xop_cases.py" "$tmp" && cmp -s "$tmp" "$dir/lwp_xop_cases.h"; then
	passed=$((passed + 1))
else
	echo "FAIL: lwp_xop_cases.h differs from what GNU as produces now"
	diff "$dir/lwp_xop_cases.h" "$tmp" | head -20
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
