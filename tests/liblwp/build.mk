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
SCRIPT_TESTS += tests/liblwp/switches.sh
