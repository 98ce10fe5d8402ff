// SPDX-License-Identifier: GPL-2.0
/*
 * The PT model (model/pt/pt_model.c, its profiles), compiled into
 * lwpt_sim.ko: one source with user space.
 */
#include "model/pt/pt_model.c"
#include "model/pt/pt_profiles.c"

