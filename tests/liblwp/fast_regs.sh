#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulation's fast path (liblwp/lwp_emu_fast.c) runs from the JIT call
# sequences' trampoline without saving vector registers (liblwp/lwp_jit.c):
# its object code must not name an XMM/YMM/ZMM/MMX register or x87 state.
O=${O:-build}
obj=$O/obj/liblwp/lwp_emu_fast.o
if ! command -v objdump >/dev/null; then
	echo "fast_regs: objdump not installed: skipped"
	exit 0
fi
if [ ! -f "$obj" ]; then
	echo "FAIL: $obj not built"
	echo "0 passed, 1 failed"
	exit 1
fi
bad=$(objdump -d --no-show-raw-insn "$obj" | grep -E '%(x|y|z)mm[0-9]|%mm[0-7]|%st|\bf(ld|st|x)' || true)
if [ -n "$bad" ]; then
	echo "$bad" | head -5
	echo "FAIL: vector or x87 instructions in $obj"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "1 passed, 0 failed"
