// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * LWP CPUID profiles (data) and the one extractor of Table 3-1 fields.
 * 43724 §3.3, Table 3-1.
 */
#include "model/model_env.h"
#include "model/lwp/lwp_model.h"

/*
 * AMD FX-8150 (issue 3): EBX = 80032013h: LwpCbSize 19 quadwords,
 * LwpEventSize 32, LwpMaxEvents 3, LwpEventOffset 128. ECX = 00010200h:
 * LwpVersion 1, LwpMinBufferSize 1 (32 records), no cache filtering, no IP
 * or branch-prediction filtering. EDX = 8000000Fh: LwpAvail, VAL, IRE, BRE,
 * LwpInt.
 */
const struct lwp_model_profile lwp_model_profile_fx8150 = {
	.name = "fx8150",
	.lwp_supported = true,
	.fn8000_001c_ebx = 0x80032013u,
	.fn8000_001c_ecx = 0x00010200u,
	.fn8000_001c_edx = 0x8000000Fu,
	.min_interval = 0,
	/*
	 * WRMSR LWP_CFG as the chip does it, read from a real FX-8150 by
	 * VirtualBox (src/VBox/VMM/VMMR3/cpus/AMD_FX_8150_Eight_Core.h,
	 * MSR C000_0105h "AMD_15H_LWP_CFG": ignore mask ffff0000_00000001h,
	 * #GP mask 7ffffff0h): bit 0 and bits 63:48 are dropped, not #GP.
	 */
	.cfg_ignore_mask = 0xFFFF000000000001ull,
	.cfg_gp_mask = 0x7FFFFFF0ull,
};

/*
 * Every feature of §3: events 1-6 and LwpInt (EDX 8000007Fh); LwpCbSize
 * 128/8 + 6 = 22, LwpEventSize 32, LwpMaxEvents 6, LwpEventOffset 128
 * (EBX 80062016h); LwpLatencyMax 16 bits, LwpDataAddress, LwpLatencyRnd 4,
 * LwpVersion 1, LwpMinBufferSize 2 (64 records), LwpBranchPrediction,
 * LwpIpFiltering, LwpCacheLevels, LwpCacheLatency (ECX F0020330h); an
 * implementation minimum interval of 256 for events 2-6 (§5.1 step 7).
 */
const struct lwp_model_profile lwp_model_profile_full = {
	.name = "full",
	.lwp_supported = true,
	.fn8000_001c_ebx = 0x80062016u,
	.fn8000_001c_ecx = 0xF0020330u,
	.fn8000_001c_edx = 0x8000007Fu,
	.min_interval = 256,
};

/* LWPVAL and LwpInt only; LwpCbSize 17, LwpMaxEvents 1, no minimum buffer. */
const struct lwp_model_profile lwp_model_profile_user = {
	.name = "user",
	.lwp_supported = true,
	.fn8000_001c_ebx = 0x80012011u,
	.fn8000_001c_ecx = 0x00000200u,
	.fn8000_001c_edx = 0x80000003u,
	.min_interval = 0,
};

/* As "user" plus instructions and branches retired (events 2 and 3). */
const struct lwp_model_profile lwp_model_profile_user_exec = {
	.name = "user-exec",
	.lwp_supported = true,
	.fn8000_001c_ebx = 0x80032013u,
	.fn8000_001c_ecx = 0x00000200u,
	.fn8000_001c_edx = 0x8000000Fu,
	.min_interval = 0,
};

const struct lwp_model_profile lwp_model_profile_none = {
	.name = "none",
	.lwp_supported = false,
};

static const struct lwp_model_profile *const lwp_model_profiles[] = {
	&lwp_model_profile_fx8150,
	&lwp_model_profile_full,
	&lwp_model_profile_user,
	&lwp_model_profile_user_exec,
	&lwp_model_profile_none,
	NULL
};

const struct lwp_model_profile *lwp_model_profile_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; lwp_model_profiles[i]; i++)
		if (strcmp(lwp_model_profiles[i]->name, name) == 0)
			return lwp_model_profiles[i];
	return NULL;
}

/* Table 3-1 as data: (name, register index, mask, shift). */
struct lwp_model_cap_desc {
	const char *name;
	uint8_t reg;		/* 0 EAX, 1 EBX, 2 ECX, 3 EDX */
	uint32_t mask;
	uint8_t shift;
};

static const struct lwp_model_cap_desc lwp_model_caps[LWP_MODEL_CAP_NR] = {
	[LWP_MODEL_CAP_EDX_FEATURES] = { "LwpFeatures", 3, 0xFFFFFFFFu, 0 },
	[LWP_MODEL_CAP_LWPCBSIZE] = { "LwpCbSize", 1, LWP_CPUID_EBX_LWPCBSIZE_MASK,
				      LWP_CPUID_EBX_LWPCBSIZE_SHIFT },
	[LWP_MODEL_CAP_LWPEVENTSIZE] = { "LwpEventSize", 1, LWP_CPUID_EBX_LWPEVENTSIZE_MASK,
					 LWP_CPUID_EBX_LWPEVENTSIZE_SHIFT },
	[LWP_MODEL_CAP_LWPMAXEVENTS] = { "LwpMaxEvents", 1, LWP_CPUID_EBX_LWPMAXEVENTS_MASK,
					 LWP_CPUID_EBX_LWPMAXEVENTS_SHIFT },
	[LWP_MODEL_CAP_LWPEVENTOFFSET] = { "LwpEventOffset", 1, LWP_CPUID_EBX_LWPEVENTOFFSET_MASK,
					   LWP_CPUID_EBX_LWPEVENTOFFSET_SHIFT },
	[LWP_MODEL_CAP_LWPLATENCYMAX] = { "LwpLatencyMax", 2, LWP_CPUID_ECX_LWPLATENCYMAX_MASK,
					  LWP_CPUID_ECX_LWPLATENCYMAX_SHIFT },
	[LWP_MODEL_CAP_LWPDATAADDRESS] = { "LwpDataAddress", 2, LWP_CPUID_ECX_LWPDATAADDRESS,
					   LWP_CPUID_ECX_LWPDATAADDRESS_SHIFT },
	[LWP_MODEL_CAP_LWPLATENCYRND] = { "LwpLatencyRnd", 2, LWP_CPUID_ECX_LWPLATENCYRND_MASK,
					  LWP_CPUID_ECX_LWPLATENCYRND_SHIFT },
	[LWP_MODEL_CAP_LWPVERSION] = { "LwpVersion", 2, LWP_CPUID_ECX_LWPVERSION_MASK,
				       LWP_CPUID_ECX_LWPVERSION_SHIFT },
	[LWP_MODEL_CAP_LWPMINBUFFERSIZE] = { "LwpMinBufferSize", 2,
					     LWP_CPUID_ECX_LWPMINBUFFERSIZE_MASK,
					     LWP_CPUID_ECX_LWPMINBUFFERSIZE_SHIFT },
	[LWP_MODEL_CAP_LWPBRANCHPREDICTION] = { "LwpBranchPrediction", 2,
						LWP_CPUID_ECX_LWPBRANCHPREDICTION,
						LWP_CPUID_ECX_LWPBRANCHPREDICTION_SHIFT },
	[LWP_MODEL_CAP_LWPIPFILTERING] = { "LwpIpFiltering", 2, LWP_CPUID_ECX_LWPIPFILTERING,
					   LWP_CPUID_ECX_LWPIPFILTERING_SHIFT },
	[LWP_MODEL_CAP_LWPCACHELEVELS] = { "LwpCacheLevels", 2, LWP_CPUID_ECX_LWPCACHELEVELS,
					   LWP_CPUID_ECX_LWPCACHELEVELS_SHIFT },
	[LWP_MODEL_CAP_LWPCACHELATENCY] = { "LwpCacheLatency", 2, LWP_CPUID_ECX_LWPCACHELATENCY,
					    LWP_CPUID_ECX_LWPCACHELATENCY_SHIFT },
};

const char *lwp_model_cap_name(enum lwp_model_cap cap)
{
	if ((unsigned int)cap >= LWP_MODEL_CAP_NR)
		return NULL;
	return lwp_model_caps[cap].name;
}

uint32_t lwp_model_cap_get(const uint32_t regs[4], enum lwp_model_cap cap)
{
	const struct lwp_model_cap_desc *d;

	if ((unsigned int)cap >= LWP_MODEL_CAP_NR || !regs)
		return 0;
	d = &lwp_model_caps[cap];
	return (regs[d->reg] & d->mask) >> d->shift;
}
