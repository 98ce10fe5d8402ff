// SPDX-License-Identifier: GPL-2.0
/*
 * CPUID of the simulated processor, chosen by two module parameters:
 *   lwp_profile=fx8150|full|user|user-exec|none   (default fx8150)
 *   pt_profile=bdw|full|tgl|none   (default full)
 *   pt_xsaves=-1|0|1               (default -1: 1 for full and tgl, 0 for bdw)
 *   bts_profile=core2|nhm|pmv4|nocpl|btsoff|nods|hsw|skl|glm|glp|none   (default none)
 *   bts_tsx=-1|0|1                 (default -1: the profile's; hsw, skl 1)
 *
 * The model is one processor that may have both LWP and PT. With LWP its
 * vendor is "AuthenticAMD" because LWP requires it (43724 §8.7.1), an AMD
 * family 15h; PT detection does not look at the vendor (SDM 33.3.1). With
 * lwp_profile=none and a PT profile it is the Intel processor the PT
 * profile describes ("GenuineIntel", the profile's CPUID.1:EAX signature),
 * so that model-specific rules keyed on DisplayFamily_DisplayModel (SDM
 * 33.3.1.2 PT/LBR exclusivity on bdw, erratum TGL052 on tgl) apply.
 *
 * The branch-recording profile (model/bts/bts_profiles.c) adds its DS,
 * DTES64, DS-CPL and PDCM bits to CPUID.1 and its perfmon version to
 * CPUID.0AH:EAX[7:0] on the Intel processor (lwp_profile=none); with
 * pt_profile=none it is that processor alone, a Nehalem 06_1AH.
 *
 * The LWP profiles come from the LWP model (model/lwp/lwp_profile.c); the
 * PT profiles live here until the PT model exports them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include <asm/tsc.h>

#include <lwpt/lwp_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>

#include "model/bts/bts_model.h"
#include "model/lwp/lwp_model.h"

#include "../x86_cpuid.h"
#include "sim.h"

static char *lwp_profile = "fx8150";
module_param(lwp_profile, charp, 0444);
MODULE_PARM_DESC(lwp_profile, "LWP CPUID profile: fx8150 (default), full, user, user-exec, none");

static char *pt_profile = "full";
module_param(pt_profile, charp, 0444);
MODULE_PARM_DESC(pt_profile, "Intel PT CPUID profile: full (default), bdw, tgl, none");

/*
 * The branch-recording facilities (model/bts/, Documentation/bts.rst
 * "Profiles"): "none" keeps CPUID.1 and 0AH without them, as before.
 */
static char *bts_profile = "none";
module_param(bts_profile, charp, 0444);
MODULE_PARM_DESC(bts_profile,
		 "Branch-recording (DS, BTS, LBR) profile of the Intel processor: none (default), core2, nhm, pmv4, nocpl, btsoff, nods, hsw (LBR format 4), skl (5), glm (6), glp (7)");

/*
 * TSX (CPUID.(07H,0):EBX[4] HLE, [11] RTM) of the branch-recording
 * profile's processor. 0 on hsw (LBR format 4) is a part whose TSX is off:
 * FROM bits 62:61 are sign bits, not flags (perf's lbr_from_signext_quirk;
 * Documentation/bts.rst, "LBR formats 4 to 7").
 */
static int bts_tsx = -1;
module_param(bts_tsx, int, 0444);
MODULE_PARM_DESC(bts_tsx, "TSX of the bts_profile processor: -1 per profile (default; hsw and skl 1), 0, 1");

/*
 * XSAVES/XRSTORS of PT state (SDM Vol. 1 13.5.6): CPUID.(0DH,1):EAX[3] and
 * ECX[8], component 8 of 72 bytes in CPUID.(0DH,8). -1 follows the
 * profile: full has it (as every PT processor since Skylake), bdw not.
 */
static int pt_xsaves = -1;
module_param(pt_xsaves, int, 0444);
MODULE_PARM_DESC(pt_xsaves, "XSAVES/XRSTORS of PT state: -1 per profile (default; full and tgl 1, bdw 0), 0, 1");

/*
 * CPUID.1:EAX of the simulated Intel processor (with lwp_profile=none) in
 * place of the profile's: the model-specific rules keyed on
 * DisplayFamily_DisplayModel (PT/LBR, errata) for another model with the
 * same PT capabilities. 0: the profile's.
 */
static uint pt_sig;
module_param(pt_sig, uint, 0444);
MODULE_PARM_DESC(pt_sig, "CPUID.1:EAX signature of the simulated Intel processor instead of the PT profile's (0: the profile's)");

/**
 * struct sim_pt_profile - CPUID leaf 14H of one PT implementation
 * @name: value of pt_profile
 * @leaf: sub-leaves 0 and 1 (SDM Tables 33-11 and 33-12)
 * @present: CPUID.07H:EBX[25] is set
 * @sig: CPUID.1:EAX of the Intel processor it is (with lwp_profile=none):
 *	stepping [3:0], model [7:4], family [11:8], extended model [19:16]
 *	(SDM Vol. 2A CPUID, Figure 3-6)
 */
struct sim_pt_profile {
	const char *name;
	struct lwpt_cpuid_regs leaf[2];
	bool present;
	u32 sig;
};

static const struct sim_pt_profile sim_pt_profiles[] = {
	/*
	 * Full: every capability of Table 33-11 except the trace transport
	 * subsystem; 4 address ranges, MTC periods 0,3,6,9, every CycThresh
	 * and PSBFreq encoding the SDM lists.
	 */
	{ "full", {
		{ .eax = 1, .ebx = 0x000001FF, .ecx = PT_CPUID_0_ECX_TOPA |
		  PT_CPUID_0_ECX_MENTRY | PT_CPUID_0_ECX_SNGLRGNOUT },
		{ .eax = 0x02490004, .ebx = 0x003F3FFF } }, true,
	  /* Sapphire Rapids 06_8FH: not PT/LBR exclusive, no TGL052. */
	  0x000806F8 },
	/*
	 * First generation (Broadwell): ToPA with one output region
	 * (MENTRY=0), single-range output, CR3 filtering; no configurable
	 * PSB/CYC, MTC or IP filtering; no sub-leaf 1.
	 */
	{ "bdw", {
		{ .eax = 0, .ebx = PT_CPUID_0_EBX_CR3_FILTER,
		  .ecx = PT_CPUID_0_ECX_TOPA | PT_CPUID_0_ECX_SNGLRGNOUT },
		{ } }, true,
	  /* Broadwell 06_3DH: PT and LBRs exclusive (SDM 33.3.1.2). */
	  0x000306D4 },
	/*
	 * Tiger Lake (model/pt/pt_profiles.c pt_model_profile_tgl): MENTRY
	 * ToPA, single-range output, 2 address ranges, no event trace or TNT
	 * disable. 06_8CH: erratum TGL052 (single range above 4 KiB).
	 */
	{ "tgl", {
		{ .eax = 1, .ebx = 0x0000007F, .ecx = PT_CPUID_0_ECX_TOPA |
		  PT_CPUID_0_ECX_MENTRY | PT_CPUID_0_ECX_SNGLRGNOUT },
		{ .eax = 0x02490002, .ebx = 0x003F3FFF } }, true, 0x000806C1 },
	{ "none", { { }, { } }, false },
};

/* LWP profiles are the model's (model/lwp/lwp_profile.c). */
static const struct lwp_model_profile *sim_lwp;
static const struct sim_pt_profile *sim_pt;
static const struct bts_model_profile *sim_bts;
static struct bts_model_profile sim_bts_tsx;	/* *sim_bts, bts_tsx applied */

/* CPUID.1:EAX of the Intel processor without PT: Nehalem 06_1AH. */
#define SIM_CPUID_1_EAX_NHM	0x000106A5u

/* With LWP the simulated CPU is an AMD family 15h model 01h, stepping 2. */
#define SIM_CPUID_1_EAX		0x00600F12u
/* CPUID.80000008H: 48-bit physical and linear addresses. */
#define SIM_CPUID_80000008_EAX	0x00003030u
/* Largest extended leaf: Fn8000_001C (43724 §3.3). */
#define SIM_MAX_EXT_LEAF	LWP_CPUID_FN8000_001C
/* XSAVE legacy region + header: the size with only x87/SSE enabled. */
#define SIM_XSAVE_BASE_SIZE	(X86_XSAVE_HDR_OFFSET + X86_XSAVE_HDR_SIZE)
/* x87 and SSE state components, always supported (SDM Vol. 1 13.1). */
#define SIM_XCR0_X87_SSE	0x3ull

int sim_cpuid_init(void)
{
	size_t i;

	sim_lwp = NULL;
	sim_pt = NULL;
	sim_lwp = lwp_model_profile_find(lwp_profile);
	for (i = 0; i < ARRAY_SIZE(sim_pt_profiles); i++)
		if (!strcmp(pt_profile, sim_pt_profiles[i].name))
			sim_pt = &sim_pt_profiles[i];
	if (pt_xsaves < -1 || pt_xsaves > 1) {
		pr_err("pt_xsaves=%d: -1, 0 or 1\n", pt_xsaves);
		return -EINVAL;
	}
	if (!sim_lwp || !sim_pt) {
		pr_err("unknown profile lwp_profile=%s pt_profile=%s (lwp: fx8150|full|user|user-exec|none, pt: bdw|full|tgl|none)\n",
		       lwp_profile, pt_profile);
		return -EINVAL;
	}
	sim_bts = NULL;
	if (strcmp(bts_profile, "none")) {
		sim_bts = bts_model_profile_find(bts_profile);
		if (!sim_bts) {
			pr_err("unknown profile bts_profile=%s (core2|nhm|pmv4|nocpl|btsoff|nods|hsw|skl|glm|glp|none)\n",
			       bts_profile);
			return -EINVAL;
		}
		if (sim_has_lwp()) {
			/* DS, BTS and LBR are Intel's; the AMD model has none. */
			pr_err("bts_profile=%s needs the Intel processor (lwp_profile=none)\n",
			       bts_profile);
			return -EINVAL;
		}
		if (bts_tsx < -1 || bts_tsx > 1) {
			pr_err("bts_tsx=%d: -1, 0 or 1\n", bts_tsx);
			return -EINVAL;
		}
		sim_bts_tsx = *sim_bts;
		if (bts_tsx >= 0)
			sim_bts_tsx.tsx = bts_tsx;
		sim_bts = &sim_bts_tsx;
	} else if (bts_tsx >= 0) {
		pr_err("bts_tsx=%d without a bts_profile\n", bts_tsx);
		return -EINVAL;
	}
	return 0;
}

const struct bts_model_profile *sim_bts_profile(void)
{
	return sim_bts;
}

bool sim_has_lwp(void)
{
	return sim_lwp->lwp_supported;
}

bool sim_has_pt(void)
{
	return sim_pt->present;
}

bool sim_has_pt_xsaves(void)
{
	if (!sim_has_pt())
		return false;
	if (pt_xsaves >= 0)
		return pt_xsaves;
	return strcmp(sim_pt->name, "bdw") != 0;
}

bool sim_is_intel(void)
{
	return !sim_has_lwp() && (sim_has_pt() || sim_bts);
}

const char *sim_pt_profile_name(void)
{
	return sim_pt->name;
}

u64 sim_xss_supported(void)
{
	return sim_has_pt_xsaves() ? IA32_XSS_PT : 0;
}

u64 sim_xcr0_supported(void)
{
	return SIM_XCR0_X87_SSE | (sim_has_lwp() ? LWP_XCR0_MASK : 0);
}

int sim_rtit_slot(u32 msr)
{
	const struct lwpt_cpuid_regs *l0 = &sim_pt->leaf[0];
	u32 ranges = (sim_pt->leaf[1].eax & PT_CPUID_1_EAX_NUM_RANGES_MASK) >>
		     PT_CPUID_1_EAX_NUM_RANGES_SHIFT;

	if (!sim_has_pt())
		return -1;
	switch (msr) {
	case IA32_RTIT_CTL:
		return 0;
	case IA32_RTIT_STATUS:
		return 1;
	case IA32_RTIT_OUTPUT_BASE:
	case IA32_RTIT_OUTPUT_MASK_PTRS:
		if (!(l0->ecx & (PT_CPUID_0_ECX_TOPA | PT_CPUID_0_ECX_SNGLRGNOUT)))
			return -1;
		return msr == IA32_RTIT_OUTPUT_BASE ? 2 : 3;
	case IA32_RTIT_CR3_MATCH:
		return (l0->ebx & PT_CPUID_0_EBX_CR3_FILTER) ? 4 : -1;
	default:
		break;
	}
	/* ADDRn_A/B are consecutive pairs from IA32_RTIT_ADDR0_A. */
	if (!(l0->ebx & PT_CPUID_0_EBX_IP_FILTER) || msr < IA32_RTIT_ADDR0_A ||
	    msr >= IA32_RTIT_ADDR0_A + 2 * ranges ||
	    msr >= IA32_RTIT_ADDR0_A + 2 * PT_ADDR_RANGES_MAX)
		return -1;
	return 5 + (msr - IA32_RTIT_ADDR0_A);
}

static void sim_cpuid_xsave(const struct sim_cpu *cpu, u32 subleaf,
			    struct lwpt_cpuid_regs *r)
{
	u64 sup = sim_xcr0_supported();
	u32 lwp_end = SIM_LWP_XSAVE_OFFSET + SIM_LWP_XSAVE_SIZE;

	switch (subleaf) {
	case 0:
		/* EDX:EAX = supported XCR0 bits; EDX[30] is XCR0[62]. */
		r->eax = lower_32_bits(sup);
		r->edx = upper_32_bits(sup);
		r->ebx = (cpu->xcr0 & LWP_XCR0_MASK) ? lwp_end : SIM_XSAVE_BASE_SIZE;
		r->ecx = sim_has_lwp() ? lwp_end : SIM_XSAVE_BASE_SIZE;
		break;
	case LWP_XSTATE_COMPONENT:
		/* 43724 §3.2: size and offset of the LWP XSAVE area. */
		if (sim_has_lwp()) {
			r->eax = SIM_LWP_XSAVE_SIZE;
			r->ebx = SIM_LWP_XSAVE_OFFSET;
		}
		break;
	case 1:
		/*
		 * SDM Vol. 1 13.2: EAX[3] XSAVES/XRSTORS and IA32_XSS, EBX the
		 * size of the compacted area for XCR0 | IA32_XSS, ECX the
		 * IA32_XSS bits supported (PT only). No XSAVEOPT/XSAVEC/XGETBV1.
		 */
		if (!sim_has_pt_xsaves())
			break;
		r->eax = PT_CPUID_0DH_1_EAX_XSAVES;
		r->ebx = SIM_XSAVE_BASE_SIZE +
			 ((cpu->xss & IA32_XSS_PT) ? PT_XSAVE_STATE_SIZE : 0) +
			 ((cpu->xcr0 & LWP_XCR0_MASK) ? SIM_LWP_XSAVE_SIZE : 0);
		r->ecx = lower_32_bits(sim_xss_supported());
		r->edx = upper_32_bits(sim_xss_supported());
		break;
	case PT_XSTATE_COMPONENT:
		/* A supervisor component (ECX[0]); no offset (EBX = 0). */
		if (sim_has_pt_xsaves()) {
			r->eax = PT_XSAVE_STATE_SIZE;
			r->ecx = PT_CPUID_0DH_N_ECX_XSS;
		}
		break;
	default:
		break;
	}
}

/*
 * CPUID.15H:ECX of the model: the crystal (ART) frequency in Hz with which
 * ECX * SIM_CPUID_15H_EBX / SIM_CPUID_15H_EAX is the host's TSC frequency
 * (tsc_khz, arch/x86/kernel/tsc.c), rounded to the nearest Hz: at most
 * EBX / (2 * EAX) = 84 Hz off. 0 (not enumerated, as the SDM allows) when
 * the kernel does not know its TSC frequency.
 */
static u32 sim_cpuid_15h_ecx(void)
{
	u64 hz = (u64)tsc_khz * 1000 * SIM_CPUID_15H_EAX;

	return (u32)min_t(u64, DIV_ROUND_CLOSEST_ULL(hz, SIM_CPUID_15H_EBX), U32_MAX);
}

/* CPUID.1 bits of the branch-recording profile (bts_model_cpuid()'s). */
static void sim_cpuid_bts_1(struct lwpt_cpuid_regs *r)
{
	if (sim_bts->ds)
		r->edx |= BTS_CPUID1_EDX_DS;
	if (sim_bts->dtes64)
		r->ecx |= BTS_CPUID1_ECX_DTES64;
	if (sim_bts->ds_cpl)
		r->ecx |= BTS_CPUID1_ECX_DS_CPL;
	if (sim_bts->pdcm)
		r->ecx |= BTS_CPUID1_ECX_PDCM;
}

void sim_cpuid(const struct sim_cpu *cpu, u32 leaf, u32 subleaf,
	       struct lwpt_cpuid_regs *r)
{
	memset(r, 0, sizeof(*r));
	switch (leaf) {
	case X86_CPUID_VENDOR: {
		const char *v = sim_is_intel() ? X86_VENDOR_INTEL_STR : X86_VENDOR_AMD_STR;

		r->eax = sim_has_pt() ? PT_CPUID_15H : LWP_CPUID_FN0000_000D;
		/* The vendor string as EBX, EDX, ECX. */
		memcpy(&r->ebx, v, 4);
		memcpy(&r->edx, v + 4, 4);
		memcpy(&r->ecx, v + 8, 4);
		break;
	}
	case X86_CPUID_FEATURES:
		r->eax = !sim_is_intel() ? SIM_CPUID_1_EAX : pt_sig ? pt_sig :
			 sim_has_pt() ? sim_pt->sig :
			 sim_bts ? sim_bts->sig : SIM_CPUID_1_EAX_NHM;
		r->ecx = X86_CPUID_1_ECX_XSAVE | X86_CPUID_1_ECX_OSXSAVE;
		if (sim_bts)
			sim_cpuid_bts_1(r);
		break;
	case X86_CPUID_PERFMON:
		/* SDM Vol. 2A CPUID leaf 0AH: only EAX[7:0] is modelled. */
		if (sim_bts)
			r->eax = sim_bts->perfmon_version & 0xff;
		break;
	case PT_CPUID_07H:
		if (subleaf == 0 && sim_has_pt())
			r->ebx = PT_CPUID_07H_EBX_INTEL_PT;
		/* SDM Vol. 2A CPUID leaf 07H: EBX[4] HLE, EBX[11] RTM. */
		if (subleaf == 0 && sim_bts && sim_bts->tsx)
			r->ebx |= X86_CPUID_7_EBX_HLE | X86_CPUID_7_EBX_RTM;
		break;
	case LWP_CPUID_FN0000_000D:
		sim_cpuid_xsave(cpu, subleaf, r);
		break;
	case PT_CPUID_LEAF:
		if (sim_has_pt() && subleaf < PT_CPUID_SUBLEAVES)
			*r = sim_pt->leaf[subleaf];
		break;
	case PT_CPUID_15H:
		/*
		 * TSC/ART ratio for TMA and MTC (SDM 33.8.3), and ECX the
		 * nominal frequency of the core crystal clock (ART) in Hz
		 * (SDM Vol. 2A CPUID leaf 15H): the TSC frequency is
		 * ECX * EBX / EAX, and the model's TSC is the host's (its
		 * packets are stamped with rdtsc(), hw_sim.c), so the crystal
		 * is what makes that product tsc_khz.
		 */
		if (sim_has_pt()) {
			r->eax = SIM_CPUID_15H_EAX;
			r->ebx = SIM_CPUID_15H_EBX;
			r->ecx = sim_cpuid_15h_ecx();
		}
		break;
	case X86_CPUID_EXT_MAX:
		r->eax = SIM_MAX_EXT_LEAF;
		break;
	case LWP_CPUID_FN8000_0001:
		if (sim_has_lwp())
			r->ecx = LWP_CPUID_FN8000_0001_ECX_LWP;
		break;
	case PT_CPUID_80000008H:
		r->eax = SIM_CPUID_80000008_EAX;
		break;
	case LWP_CPUID_FN8000_001C:
		if (!sim_has_lwp())
			break;
		/* 43724 §3.3: EAX[0] = XCR0[62], EAX[31:1] = LWP_CFG[31:1]. */
		r->eax = (lower_32_bits(cpu->lwp_cfg) & ~1u) |
			 ((cpu->xcr0 & LWP_XCR0_MASK) ? 1 : 0);
		r->ebx = sim_lwp->fn8000_001c_ebx;
		r->ecx = sim_lwp->fn8000_001c_ecx;
		r->edx = sim_lwp->fn8000_001c_edx;
		break;
	default:
		break;
	}
}

/* hw.h: CPUID of the executing CPU's register file (XCR0, LWP_CFG). */
void lwpt_hw_cpuid(u32 leaf, u32 subleaf, struct lwpt_cpuid_regs *r)
{
	sim_cpuid(sim_this_cpu(), leaf, subleaf, r);
}
