# SPDX-License-Identifier: GPL-2.0
# Tests of the PT packet generator (model/pt/trace*.c), included by
# model/pt/build.mk.

PT_TRACE_SRCS := $(sort $(wildcard model/pt/trace*.c)) model/x86/x86_cofi.c \
	model/pt/pt_model.c model/pt/pt_profiles.c

# Packet-level unit tests, table-driven from SDM 33.4 / 33.7.
UNIT_TESTS += test_pt_trace
test_pt_trace_SRCS := tests/model/pt/test_pt_trace.c $(PT_TRACE_SRCS)

# Host validation against libipt (issue 5, point 6): a real program is
# single-stepped under ptrace, traced by the generator, decoded by libipt.
UNIT_TESTS += test_pt_trace_flow
test_pt_trace_flow_SRCS := tests/model/pt/trace_flow_test.c tests/model/step_trace.c \
	$(PT_TRACE_SRCS)
test_pt_trace_flow_LDLIBS := -lipt

# The traced program: static, no PIE, no sanitizer (its addresses and flow
# must not depend on the build).
$(O)/tests/test_pt_trace_flow: $(O)/tests/trace_flow_prog
$(O)/tests/trace_flow_prog: tests/model/pt/progs/trace_flow_prog.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -static -no-pie -o $@ $<

# Figures, not assertions: generator steps/s and classifier decodes/s.
BENCHES += bench_pt_trace
bench_pt_trace_SRCS := tests/model/pt/bench_pt_trace.c $(PT_TRACE_SRCS)
