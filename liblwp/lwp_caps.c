// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp: CPUID Fn8000_001C decoded into struct lwp_caps (43724 §3, Table
 * 3-1), shared by both backends (they obtain the registers differently: the
 * model's CPUID for the emulation, LWP_IOC_GET_CAPS for /dev/lwp).
 */
#include <cpuid.h>

#include "model/lwp/lwp_model.h"
#include "liblwp/lwp_internal.h"

/* 43724 §3.1: CPUID Fn8000_0001_ECX[LWP] of the CPU we run on. */
int lwp_cpu_supported(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(LWP_CPUID_FN8000_0001, &a, &b, &c, &d))
		return 0;
	return !!(c & LWP_CPUID_FN8000_0001_ECX_LWP);
}

/* 43724 Table 3-1, with the model's single extractor (lwp_model_cap_get). */
void lwp_caps_decode(struct lwp_caps *caps, const uint32_t regs[4])
{
	caps->cpuid_eax = regs[0];
	caps->cpuid_ebx = regs[1];
	caps->cpuid_ecx = regs[2];
	caps->cpuid_edx = regs[3];
	caps->available = !!(regs[0] & LWP_CPUID_LWPAVAIL);
	caps->available_flags = caps->available ?
		regs[0] & LWP_CFG_FEATURES_MASK & ~LWP_CPUID_RESERVED_EVENTS : 0;
	caps->supported_flags = regs[3] & LWP_CFG_FEATURES_MASK &
				~LWP_CPUID_RESERVED_EVENTS;
	caps->lwpcb_size = 8 * lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPCBSIZE);
	caps->event_size = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPEVENTSIZE);
	caps->max_event_id = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPMAXEVENTS);
	caps->event_offset = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPEVENTOFFSET);
	caps->min_buffer_records = LWP_MIN_BUFFER_UNIT_RECORDS *
		lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPMINBUFFERSIZE);
	caps->version = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPVERSION);
	caps->latency_max = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPLATENCYMAX);
	caps->latency_rnd = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPLATENCYRND);
	caps->data_address = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPDATAADDRESS);
	caps->branch_prediction =
		lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPBRANCHPREDICTION);
	caps->ip_filtering = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPIPFILTERING);
	caps->cache_levels = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPCACHELEVELS);
	caps->cache_latency = lwp_model_cap_get(regs, LWP_MODEL_CAP_LWPCACHELATENCY);
}

/*
 * Whether the calling thread holds LWP of the hardware backend: the kernel
 * set its XCR0[62] (43724 §8.7.1; lwpt.ko sets it per thread, XGETBV with
 * ECX = 0 needs CPUID.1:ECX.OSXSAVE), or it runs the UD2 marker of
 * lwpt_sim.ko (lwp_tls_emulated == LWP__TLS_UD2, set by the hw backend).
 */
int lwp_thread_hw_lwp(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (lwp_tls_emulated == LWP__TLS_UD2)
		return 1;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return !!((((uint64_t)hi << 32) | lo) & LWP_XCR0_MASK);
}
