// SPDX-License-Identifier: GPL-2.0
/*
 * The branch-recording model (model/bts/: IA32_DEBUGCTL, the DS save area
 * and BTS, the LBR stack, LER) and its retired-instruction adapter
 * (bts_step.c), compiled into lwpt_sim.ko: one source with user space.
 * x86_cofi.c, which bts_step.c uses, is in x86_model_glue.c.
 */
#include "model/bts/bts_model.c"
#include "model/bts/ds_model.c"
#include "model/bts/lbr_model.c"
#include "model/bts/bts_profiles.c"
#include "model/bts/bts_step.c"
