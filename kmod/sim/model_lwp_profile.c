// SPDX-License-Identifier: GPL-2.0
/*
 * The LWP model's CPUID profiles (model/lwp/lwp_profile.c), compiled into
 * lwpt_sim.ko: one home for the profile values, shared with user space.
 */
#include "model/lwp/lwp_profile.c"
