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

# ptflow on a BTS capture against a PT capture of the same run (issue 37,
# "Targets"): bts_pt_pair feeds trace_flow_prog's single-stepped
# instructions to the PT generator and to the BTS model.
BENCHES += bench_ptflow_bts
bench_ptflow_bts_SRCS := tools/ptflow/bench/bench_ptflow_bts.c tests/bench/bench_child.c
BENCH_HELPERS += bts_pt_pair
bts_pt_pair_SRCS := tools/ptflow/bench/bts_pt_pair.c tests/model/step_trace.c \
	$(sort $(PT_TRACE_SRCS) $(BTS_MODEL_SRCS) $(BTS_STEP_SRCS))
bench: $(O)/tests/trace_flow_prog
