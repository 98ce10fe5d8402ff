/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Intel Processor Trace: CPUID leaf 14H enumeration.
 *
 * Source: Intel SDM Vol. 3C chapter 33 ("Intel Processor Trace"), section
 * 33.3.1, Table 33-11 (sub-leaf 0) and Table 33-12 (sub-leaf 1). Every field
 * is a mask with its shift; the capability table at the end describes each
 * capability once as (name, sub-leaf, register, mask) and pt_cpuid_cap()
 * extracts it (lwpt STYLE 3). Decode CPUID once, with this table.
 *
 * Shared by the kernel module, the hardware model and user space. No name
 * here collides with the kernel's (X86_FEATURE_INTEL_PT, PT_CAP_*,
 * enum pt_capabilities) nor with libipt's intel-pt.h.
 */
#ifndef LWPT_PT_CPUID_H
#define LWPT_PT_CPUID_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* SDM 33.3.1: CPUID.(EAX=07H,ECX=0):EBX[25] reports Intel PT. */
#define PT_CPUID_07H				0x07u
#define PT_CPUID_07H_EBX_INTEL_PT		(1u << 25)

/* SDM 33.3.1: CPUID leaf 14H enumerates PT; sub-leaves 0 and 1 are defined. */
#define PT_CPUID_LEAF				0x14u
/*
 * CPUID leaf 15H (SDM Vol. 2 CPUID, "Time Stamp Counter and Nominal Core
 * Crystal Clock Information Leaf"; SDM 33.8.3): EAX the denominator, EBX
 * the numerator of the TSC/"core crystal clock" (ART) ratio.
 */
#define PT_CPUID_15H				0x15u
/*
 * CPUID leaf 16H (SDM Vol. 2 CPUID, "Processor Frequency Information
 * Leaf"): EAX[15:0] the processor base frequency in MHz.
 */
#define PT_CPUID_16H				0x16u
#define PT_CPUID_16H_EAX_BASE_MHZ_MASK		0xffffu
#define PT_CPUID_SUBLEAVES			2

/* CPUID.80000008H:EAX[7:0] = MAXPHYADDR (SDM 33.2.7.2, Figure 33-2). */
#define PT_CPUID_80000008H			0x80000008u
#define PT_CPUID_80000008H_EAX_MAXPHYADDR_MASK	0xffu

/* --- Sub-leaf 0, Table 33-11 ------------------------------------------ */

/* EAX[31:0]: maximum valid sub-leaf index. */
#define PT_CPUID_0_EAX_MAX_SUBLEAF_MASK		0xffffffffu
#define PT_CPUID_0_EAX_MAX_SUBLEAF_SHIFT	0

/* EBX[0]: CR3 filtering (IA32_RTIT_CTL.CR3Filter, IA32_RTIT_CR3_MATCH). */
#define PT_CPUID_0_EBX_CR3_FILTER		(1u << 0)
/* EBX[1]: configurable PSB (PSBFreq, PacketByteCnt) and cycle-accurate mode. */
#define PT_CPUID_0_EBX_PSB_CYC			(1u << 1)
/* EBX[2]: IP filtering and TraceStop (ADDRn), MSRs preserved on warm reset. */
#define PT_CPUID_0_EBX_IP_FILTER		(1u << 2)
/* EBX[3]: MTC packets (MTCEn, MTCFreq). */
#define PT_CPUID_0_EBX_MTC			(1u << 3)
/* EBX[4]: PTWRITE (PTWEn, FUPonPTW). */
#define PT_CPUID_0_EBX_PTWRITE			(1u << 4)
/* EBX[5]: power event trace (PwrEvtEn). */
#define PT_CPUID_0_EBX_POWER_EVENT		(1u << 5)
/* EBX[6]: PSB and PMI preservation (InjectPsbPmiOnEnable, PendPSB, PendTopaPMI). */
#define PT_CPUID_0_EBX_PSB_PMI_PRESERVE		(1u << 6)
/* EBX[7]: event trace (EventEn). */
#define PT_CPUID_0_EBX_EVENT_TRACE		(1u << 7)
/* EBX[8]: TNT disable (DisTNT). */
#define PT_CPUID_0_EBX_TNT_DISABLE		(1u << 8)
/* EBX[31:9]: reserved. */
#define PT_CPUID_0_EBX_RESERVED			0xfffffe00u

/* ECX[0] TOPAOUT: ToPA output (IA32_RTIT_CTL.ToPA, output MSRs). */
#define PT_CPUID_0_ECX_TOPA			(1u << 0)
/* ECX[1] MENTRY: ToPA tables allow multiple output entries. */
#define PT_CPUID_0_ECX_MENTRY			(1u << 1)
/* ECX[2] SNGLRGNOUT: single-range output. */
#define PT_CPUID_0_ECX_SNGLRGNOUT		(1u << 2)
/* ECX[3]: output to the trace transport subsystem (FabricEn). */
#define PT_CPUID_0_ECX_TRACE_TRANSPORT		(1u << 3)
/* ECX[30:4]: reserved. */
#define PT_CPUID_0_ECX_RESERVED			0x7ffffff0u
/* ECX[31] LIP: IP payloads (and IP filter comparisons) are linear addresses. */
#define PT_CPUID_0_ECX_LIP			(1u << 31)

/* --- Sub-leaf 1, Table 33-12 ------------------------------------------ */

/* EAX[2:0] RANGECNT: number of ADDRn_CFG fields and ADDRn_A/B pairs. */
#define PT_CPUID_1_EAX_NUM_RANGES_MASK		0x00000007u
#define PT_CPUID_1_EAX_NUM_RANGES_SHIFT		0
/* EAX[31:16]: bitmap of supported MTCFreq encodings (bit n = encoding n). */
#define PT_CPUID_1_EAX_MTC_PERIODS_MASK		0xffff0000u
#define PT_CPUID_1_EAX_MTC_PERIODS_SHIFT	16
/* EAX[15:3]: reserved. */
#define PT_CPUID_1_EAX_RESERVED			0x0000fff8u
/* EBX[15:0]: bitmap of supported CycThresh encodings. */
#define PT_CPUID_1_EBX_CYC_THRESHOLDS_MASK	0x0000ffffu
#define PT_CPUID_1_EBX_CYC_THRESHOLDS_SHIFT	0
/* EBX[31:16]: bitmap of supported PSBFreq encodings. */
#define PT_CPUID_1_EBX_PSB_PERIODS_MASK		0xffff0000u
#define PT_CPUID_1_EBX_PSB_PERIODS_SHIFT	16

/* SDM 33.3.1, Table 33-12 note: no processor supports more than 4 ranges. */
#define PT_ADDR_RANGES_MAX			4

/* --- The capability table (STYLE 3) ----------------------------------- */

/* Register index into one sub-leaf's {EAX, EBX, ECX, EDX}. */
enum pt_cpuid_reg {
	PT_CPUID_EAX = 0,
	PT_CPUID_EBX = 1,
	PT_CPUID_ECX = 2,
	PT_CPUID_EDX = 3,
};

/*
 * Raw CPUID leaf 14H as the processor returned it: regs[subleaf][reg].
 * Sub-leaf 1 is all zero when sub-leaf 0 EAX (max sub-leaf) is 0.
 */
struct pt_cpuid_leaf {
	uint32_t regs[PT_CPUID_SUBLEAVES][4];
};

/* Every capability of Tables 33-11 and 33-12. */
enum pt_cpuid_cap {
	PT_CPUID_CAP_MAX_SUBLEAF,
	PT_CPUID_CAP_CR3_FILTER,
	PT_CPUID_CAP_PSB_CYC,
	PT_CPUID_CAP_IP_FILTER,
	PT_CPUID_CAP_MTC,
	PT_CPUID_CAP_PTWRITE,
	PT_CPUID_CAP_POWER_EVENT,
	PT_CPUID_CAP_PSB_PMI_PRESERVE,
	PT_CPUID_CAP_EVENT_TRACE,
	PT_CPUID_CAP_TNT_DISABLE,
	PT_CPUID_CAP_TOPA,
	PT_CPUID_CAP_MENTRY,
	PT_CPUID_CAP_SNGLRGNOUT,
	PT_CPUID_CAP_TRACE_TRANSPORT,
	PT_CPUID_CAP_LIP,
	PT_CPUID_CAP_NUM_RANGES,
	PT_CPUID_CAP_MTC_PERIODS,
	PT_CPUID_CAP_CYC_THRESHOLDS,
	PT_CPUID_CAP_PSB_PERIODS,
	PT_CPUID_CAP_NR
};

/* One capability: where it lives in leaf 14H. */
struct pt_cpuid_cap_desc {
	const char *name;	/* stable, lower case, usable as a sysfs name */
	uint8_t subleaf;	/* 0 or 1 */
	uint8_t reg;		/* enum pt_cpuid_reg */
	uint32_t mask;		/* contiguous field mask within the register */
};

#define PT_CPUID_CAP_DESC(n, s, r, m) { .name = (n), .subleaf = (s), .reg = (r), .mask = (m) }

/* Tables 33-11 and 33-12, one row per capability, indexed by pt_cpuid_cap. */
static const struct pt_cpuid_cap_desc pt_cpuid_caps[PT_CPUID_CAP_NR] __attribute__((__unused__)) = {
	[PT_CPUID_CAP_MAX_SUBLEAF]	= PT_CPUID_CAP_DESC("max_subleaf", 0, PT_CPUID_EAX,
							    PT_CPUID_0_EAX_MAX_SUBLEAF_MASK),
	[PT_CPUID_CAP_CR3_FILTER]	= PT_CPUID_CAP_DESC("cr3_filtering", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_CR3_FILTER),
	[PT_CPUID_CAP_PSB_CYC]		= PT_CPUID_CAP_DESC("psb_cyc", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_PSB_CYC),
	[PT_CPUID_CAP_IP_FILTER]	= PT_CPUID_CAP_DESC("ip_filtering", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_IP_FILTER),
	[PT_CPUID_CAP_MTC]		= PT_CPUID_CAP_DESC("mtc", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_MTC),
	[PT_CPUID_CAP_PTWRITE]		= PT_CPUID_CAP_DESC("ptwrite", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_PTWRITE),
	[PT_CPUID_CAP_POWER_EVENT]	= PT_CPUID_CAP_DESC("power_event_trace", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_POWER_EVENT),
	[PT_CPUID_CAP_PSB_PMI_PRESERVE]	= PT_CPUID_CAP_DESC("psb_pmi_preservation", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_PSB_PMI_PRESERVE),
	[PT_CPUID_CAP_EVENT_TRACE]	= PT_CPUID_CAP_DESC("event_trace", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_EVENT_TRACE),
	[PT_CPUID_CAP_TNT_DISABLE]	= PT_CPUID_CAP_DESC("tnt_disable", 0, PT_CPUID_EBX,
							    PT_CPUID_0_EBX_TNT_DISABLE),
	[PT_CPUID_CAP_TOPA]		= PT_CPUID_CAP_DESC("topa_output", 0, PT_CPUID_ECX,
							    PT_CPUID_0_ECX_TOPA),
	[PT_CPUID_CAP_MENTRY]		= PT_CPUID_CAP_DESC("topa_multiple_entries", 0,
							    PT_CPUID_ECX, PT_CPUID_0_ECX_MENTRY),
	[PT_CPUID_CAP_SNGLRGNOUT]	= PT_CPUID_CAP_DESC("single_range_output", 0, PT_CPUID_ECX,
							    PT_CPUID_0_ECX_SNGLRGNOUT),
	[PT_CPUID_CAP_TRACE_TRANSPORT]	= PT_CPUID_CAP_DESC("output_subsys", 0, PT_CPUID_ECX,
							    PT_CPUID_0_ECX_TRACE_TRANSPORT),
	[PT_CPUID_CAP_LIP]		= PT_CPUID_CAP_DESC("payloads_lip", 0, PT_CPUID_ECX,
							    PT_CPUID_0_ECX_LIP),
	[PT_CPUID_CAP_NUM_RANGES]	= PT_CPUID_CAP_DESC("num_address_ranges", 1, PT_CPUID_EAX,
							    PT_CPUID_1_EAX_NUM_RANGES_MASK),
	[PT_CPUID_CAP_MTC_PERIODS]	= PT_CPUID_CAP_DESC("mtc_periods", 1, PT_CPUID_EAX,
							    PT_CPUID_1_EAX_MTC_PERIODS_MASK),
	[PT_CPUID_CAP_CYC_THRESHOLDS]	= PT_CPUID_CAP_DESC("cycle_thresholds", 1, PT_CPUID_EBX,
							    PT_CPUID_1_EBX_CYC_THRESHOLDS_MASK),
	[PT_CPUID_CAP_PSB_PERIODS]	= PT_CPUID_CAP_DESC("psb_periods", 1, PT_CPUID_EBX,
							    PT_CPUID_1_EBX_PSB_PERIODS_MASK),
};

/**
 * pt_cpuid_cap() - extract one capability from a raw leaf 14H.
 * @leaf: both sub-leaves as CPUID returned them.
 * @cap:  which capability (enum pt_cpuid_cap).
 *
 * Return: the field shifted down to bit 0 (a flag is 0 or 1, a bitmap is the
 * 16-bit map, RANGECNT the count); 0 for an out-of-range @cap. Sub-leaf 1
 * fields read as 0 when sub-leaf 0 EAX reports no sub-leaf 1 (SDM 33.3.1).
 */
static inline uint32_t pt_cpuid_cap(const struct pt_cpuid_leaf *leaf, enum pt_cpuid_cap cap)
{
	const struct pt_cpuid_cap_desc *d;

	if ((unsigned int)cap >= PT_CPUID_CAP_NR)
		return 0;
	d = &pt_cpuid_caps[cap];
	if (d->subleaf > (leaf->regs[0][PT_CPUID_EAX] & PT_CPUID_0_EAX_MAX_SUBLEAF_MASK))
		return 0;
	return (leaf->regs[d->subleaf][d->reg] & d->mask) >> __builtin_ctz(d->mask);
}

/**
 * pt_cpuid_cap_name() - the stable name of a capability ("cr3_filtering").
 * @cap: enum pt_cpuid_cap.
 *
 * Return: a static string, or NULL for an out-of-range @cap.
 */
static inline const char *pt_cpuid_cap_name(enum pt_cpuid_cap cap)
{
	if ((unsigned int)cap >= PT_CPUID_CAP_NR)
		return 0;
	return pt_cpuid_caps[cap].name;
}

#endif /* LWPT_PT_CPUID_H */
