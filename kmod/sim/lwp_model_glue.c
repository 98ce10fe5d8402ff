// SPDX-License-Identifier: GPL-2.0
/*
 * The LWP model (model/lwp/lwp_model.c) and its XOP decoder/executor
 * (model/lwp/lwp_xop.c), compiled into lwpt_sim.ko for the #UD emulation
 * of the LWP instructions (sim/lwp_emu.c): one source with user space.
 */
#include "model/lwp/lwp_model.c"
#include "model/lwp/lwp_xop.c"
