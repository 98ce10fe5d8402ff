// SPDX-License-Identifier: GPL-2.0
/*
 * The lwpt.ko part of the LWP subsystem: the processor executes the LWP
 * instructions itself, so there is nothing to emulate; only the feature
 * policy parameter lives here (shared objects may not use module_param).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "lwp.h"

static uint lwp_features = ~0u;
module_param(lwp_features, uint, 0444);
MODULE_PARM_DESC(lwp_features,
		 "Mask of LWP_CFG[31:1] features (43724 Figure 4-1) the module may enable; default all that CPUID Fn8000_001C_EDX reports");

u32 lwp_variant_feature_policy(void)
{
	return lwp_features;
}

bool lwp_variant_kernel_unsafe(void)
{
	return false;
}

int lwp_variant_init(void)
{
	return 0;
}

void lwp_variant_exit(void)
{
}
