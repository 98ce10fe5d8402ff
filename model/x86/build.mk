# SPDX-License-Identifier: GPL-2.0
# model/x86: the x86 COFI classifier shared by the PT and LWP models.
# Its tests live in tests/model/x86/ (a third-level build.mk is not
# auto-included, so they are declared here).

X86_COFI_SRCS := model/x86/x86_cofi.c

UNIT_TESTS += test_x86_cofi
test_x86_cofi_SRCS := tests/model/x86/test_x86_cofi.c $(X86_COFI_SRCS)

# Differential test against GNU objdump on whole binaries (skips without it).
UNIT_TESTS += test_x86_cofi_objdump
test_x86_cofi_objdump_SRCS := tests/model/x86/test_x86_cofi_objdump.c $(X86_COFI_SRCS)

# PTWRITE's operand, for lwpt_sim.ko's PTWRITE emulation.
X86_PTWRITE_SRCS := model/x86/x86_ptwrite.c
UNIT_TESTS += test_x86_ptwrite
test_x86_ptwrite_SRCS := tests/model/x86/test_x86_ptwrite.c $(X86_PTWRITE_SRCS)
