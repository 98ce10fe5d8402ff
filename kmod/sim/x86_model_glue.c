// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 control-flow classifier (model/x86/x86_cofi.c), compiled into
 * lwpt_sim.ko for the PT packet generator and the execution follower
 * (sim_step.c), and PTWRITE's operand decoder (model/x86/x86_ptwrite.c)
 * for the PTWRITE emulation (sim_ptwrite.c): one source with user space.
 */
#include "model/x86/x86_cofi.c"
#include "model/x86/x86_ptwrite.c"
