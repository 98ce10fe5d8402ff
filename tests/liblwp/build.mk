# SPDX-License-Identifier: GPL-2.0
# Tests of liblwp (issue 7).
UNIT_TESTS += test_lwp_encode
test_lwp_encode_SRCS := tests/liblwp/test_lwp_encode.c
test_lwp_encode_LIBS := lwp
UNIT_TESTS += test_lwp_forms
test_lwp_forms_SRCS := tests/liblwp/test_lwp_forms.c
test_lwp_forms_LIBS := lwp
test_lwp_forms_LDLIBS := -lpthread
UNIT_TESTS += test_lwp_emu
test_lwp_emu_SRCS := tests/liblwp/test_lwp_emu.c
test_lwp_emu_LIBS := lwp
test_lwp_emu_LDLIBS := -lpthread
# Figures for Documentation/performance.rst, section liblwp (make bench).
BENCHES += bench_liblwp
bench_liblwp_SRCS := tests/liblwp/bench_liblwp.c
bench_liblwp_LIBS := lwp
bench_liblwp_LDLIBS := -lpthread
SCRIPT_TESTS += tests/liblwp/tools.sh
# The fast path against the model (issue 18).
UNIT_TESTS += test_lwp_fast
test_lwp_fast_SRCS := tests/liblwp/test_lwp_fast.c
test_lwp_fast_LIBS := lwp
test_lwp_fast_LDLIBS := -lpthread
# JIT call sequences against trapped raw instructions (issue 18).
UNIT_TESTS += test_lwp_jit
test_lwp_jit_SRCS := tests/liblwp/test_lwp_jit.c
test_lwp_jit_LIBS := lwp
test_lwp_jit_LDLIBS := -lpthread
# A real JIT as the client: libgccjit (Debian libgccjit-12-dev, issue 18.3).
UNIT_TESTS += test_lwp_gccjit
test_lwp_gccjit_SRCS := tests/liblwp/test_lwp_gccjit.c
test_lwp_gccjit_LIBS := lwp
test_lwp_gccjit_LDLIBS := -lgccjit -lpthread
SCRIPT_TESTS += tests/liblwp/fast_regs.sh
SCRIPT_TESTS += tests/liblwp/switches.sh
# Signal handlers and thread-exit destructors executing LWP instructions
# (issue 28, findings 2 and 5).
UNIT_TESTS += test_lwp_reentry
test_lwp_reentry_SRCS := tests/liblwp/test_lwp_reentry.c
test_lwp_reentry_LIBS := lwp
test_lwp_reentry_LDLIBS := -lpthread
# Signal handlers that siglongjmp() out of an emulated instruction (issue 38).
UNIT_TESTS += test_lwp_longjmp
test_lwp_longjmp_SRCS := tests/liblwp/test_lwp_longjmp.c
test_lwp_longjmp_LIBS := lwp
test_lwp_longjmp_LDLIBS := -lpthread
