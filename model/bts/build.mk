# SPDX-License-Identifier: GPL-2.0
# The branch-recording model (issue 37 point 1): IA32_DEBUGCTL, BTS into the
# DS save area, the LBR stack, LBR_SELECT, LER, freeze on PMI (SDM Vol. 3B
# 17.4). Plain C on model/model_env.h; not a library: lwpt_sim.ko and the
# tests compile the sources in. BTS_MODEL_SRCS is the list to use; with
# BTS_STEP_SRCS for the retired-instruction adapter (needs x86_cofi).
BTS_MODEL_SRCS := model/bts/bts_model.c model/bts/ds_model.c model/bts/lbr_model.c \
	model/bts/bts_profiles.c
BTS_STEP_SRCS := model/bts/bts_step.c model/x86/x86_cofi.c
# Each profile is the base with what it changes: later designated
# initializers replace the base's (bts_profiles.c).
$(O)/obj/model/bts/bts_profiles.o: CFLAGS += -Wno-override-init

# Tests live in tests/model/bts/ (a third-level build.mk is not auto-included).
UNIT_TESTS += test_bts_model
test_bts_model_SRCS := tests/model/bts/test_bts_model.c $(BTS_MODEL_SRCS) $(BTS_STEP_SRCS)
# Every field of every profile against tests/model/bts/bts_profiles.exp.
UNIT_TESTS += test_bts_profiles
test_bts_profiles_SRCS := tests/model/bts/test_bts_profiles.c model/bts/bts_profiles.c
# A BTS trace of a real program against ptrace single-stepping (the PT flow
# test's program, tests/model/pt/progs/trace_flow_prog.c).
UNIT_TESTS += test_bts_flow
test_bts_flow_SRCS := tests/model/bts/test_bts_flow.c tests/model/step_trace.c \
	$(BTS_MODEL_SRCS) $(BTS_STEP_SRCS)
# ... and through libpt's BTS decoder (lwpt/bts_decode.h), as ptflow reads it.
test_bts_flow_LIBS := pt
$(O)/tests/test_bts_flow: $(O)/tests/trace_flow_prog

# Figures, not assertions: what a branch costs in the model.
BENCHES += bench_bts_model
bench_bts_model_SRCS := tests/model/bts/bench_bts_model.c $(BTS_MODEL_SRCS)
# The LBR stack as /dev/bts's LBR snapshots switch and unfreeze it, and the
# profiles' CPUID.1 signatures (kmod/bts/lbr_msr.c).
UNIT_TESTS += test_lbr_switch
test_lbr_switch_SRCS := tests/model/bts/test_lbr_switch.c $(BTS_MODEL_SRCS)
