# SPDX-License-Identifier: GPL-2.0
# ptdump: print Intel PT packets like libipt's ptdump (issue 8, point 3).

# Needs libpt (libpt/build.mk, included before this fragment, declares it).
ifneq ($(filter pt,$(LIBS)),)

# Time tracking (SDM 33.8.3), libpt/time.c, is part of libpt through
# libpt/build.mk's wildcard; add it only if that ever changes.
pt_SRCS += $(filter-out $(pt_SRCS),libpt/time.c)

TOOLS += ptdump
ptdump_SRCS := tools/ptdump/ptdump.c tools/ptdump/options.c \
	tools/ptdump/out.c tools/ptdump/errata.c
ptdump_LIBS := pt
ptdump_LDLIBS := -lelf -lzstd -lpthread
MANPAGES += tools/ptdump/ptdump.1
SCRIPT_TESTS += tests/tools/ptdump/ptdump.sh tests/tools/ptdump/conformance.sh \
	tests/tools/ptdump/ptdump_capsrc.sh

# Unit tests of libpt/time.c (SDM 33.8.3), the numbers ptdump --time prints.
UNIT_TESTS += test_pt_time
test_pt_time_SRCS := tests/tools/ptdump/test_pt_time.c
test_pt_time_LIBS := pt

# ptdump's number formatting (tools/ptdump/out.h) against printf.
UNIT_TESTS += test_ptdump_out
test_ptdump_out_SRCS := tests/tools/ptdump/test_ptdump_out.c \
	tools/ptdump/out.c

# Text output speed on the real traces against libipt's own ptdump
# (make bench; scripts/build-libipt-ptdump builds the reference).
BENCHES += bench_ptdump
bench_ptdump_SRCS := tests/tools/ptdump/bench_ptdump.c tests/bench/bench_child.c
bench_ptdump_LDLIBS := -lm
# bench_ptdump's reference for `ptdump --stats` (issue 17.1): a whole
# process looping libipt's pt_pkt_next() over a file.
BENCH_HELPERS += ipt_pkt_loop
ipt_pkt_loop_SRCS := tests/tools/ptdump/ipt_pkt_loop.c tests/bench/bench_child.c
ipt_pkt_loop_LDLIBS := -lipt
# bench_ptdump's fallback reference when libipt's ptdump cannot be built: a
# printf-per-field model of it on libipt's decoder (not libipt's ptdump).
BENCH_HELPERS += bench_printf_model
bench_printf_model_SRCS := tests/tools/ptdump/bench_printf_model.c
bench_printf_model_LDLIBS := -lipt

endif
