// SPDX-License-Identifier: GPL-2.0
/* The PT policy parameters of lwpt_sim.ko: the same as lwpt.ko's. */
#include "pt_params.c"
