# SPDX-License-Identifier: GPL-2.0
# ptflow's instruction-flow speed against a bare libipt pt_insn_next() loop
# (issue 17.3); figures in Documentation/performance.rst. Its input comes
# from the flow test's generator (tests/model/pt/trace.mk).
BENCHES += bench_ptflow
bench_ptflow_SRCS := tools/ptflow/bench/bench_ptflow.c tests/bench/bench_child.c
BENCH_HELPERS += ipt_insn_loop
ipt_insn_loop_SRCS := tools/ptflow/bench/ipt_insn_loop.c \
	tools/ptflow/ptflow_image.c tests/bench/bench_child.c
ipt_insn_loop_LDLIBS := -lipt
bench: $(O)/tests/test_pt_trace_flow $(O)/bin/ptflow

# ptflow --engine=lwpt against --engine=libipt on kAFL's mruby perf.data:
# the listing and --calls, the outputs compared first (issue 34 point 1).
BENCHES += bench_ptflow_engine
bench_ptflow_engine_SRCS := tools/ptflow/bench/bench_ptflow_engine.c \
	tests/bench/bench_child.c
