# SPDX-License-Identifier: GPL-2.0
# The PT hardware model (plain C, model/model_env.h only). Not a library of
# its own: lwpt_sim.ko and the user-space users compile these sources in; the
# unit tests link them directly. PT_MODEL_SRCS is the list to use; it picks
# up the packet generator (model/pt/trace*.c) as well.
PT_MODEL_SRCS := model/pt/pt_model.c model/pt/pt_profiles.c \
	$(sort $(wildcard model/pt/trace*.c))

# Tests live in tests/model/pt/ (a third-level build.mk is not auto-included).
UNIT_TESTS += test_pt_model
test_pt_model_SRCS := tests/model/pt/test_pt_model.c model/pt/pt_model.c model/pt/pt_profiles.c

# The packet generator's tests (owned with model/pt/trace*.c) declare
# themselves in tests/model/pt/*trace*.mk.
-include $(sort $(wildcard tests/model/pt/*trace*.mk))

BENCHES += bench_pt_model
bench_pt_model_SRCS := tests/model/pt/bench_pt_model.c model/pt/pt_model.c model/pt/pt_profiles.c
