/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Intel Processor Trace: the IA32_RTIT_* configuration MSRs.
 *
 * Source: Intel SDM Vol. 3C section 33.2.8 (Tables 33-6 to 33-9); MSR
 * addresses from SDM Vol. 4, Table 2-2 (IA32_RTIT_CTL at 570H is also given
 * in 33.2.8.2); the XSAVE layout of PT state from SDM Vol. 1 section 13.5.6.
 *
 * One home for every field: a mask and, for multi-bit fields, its shift.
 * Names follow the SDM (IA32_RTIT_CTL_TRACEEN for IA32_RTIT_CTL.TraceEn) and
 * never reuse the kernel's MSR_IA32_RTIT_*, RTIT_CTL_* or RTIT_STATUS_*.
 */
#ifndef LWPT_PT_RTIT_H
#define LWPT_PT_RTIT_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

#include <lwpt/pt_cpuid.h>

/* --- MSR addresses (SDM Vol. 4 Table 2-2) ----------------------------- */
#define IA32_RTIT_OUTPUT_BASE			0x560u
#define IA32_RTIT_OUTPUT_MASK_PTRS		0x561u
#define IA32_RTIT_CTL				0x570u
#define IA32_RTIT_STATUS			0x571u
#define IA32_RTIT_CR3_MATCH			0x572u
#define IA32_RTIT_ADDR0_A			0x580u
#define IA32_RTIT_ADDR0_B			0x581u
#define IA32_RTIT_ADDR1_A			0x582u
#define IA32_RTIT_ADDR1_B			0x583u
#define IA32_RTIT_ADDR2_A			0x584u
#define IA32_RTIT_ADDR2_B			0x585u
#define IA32_RTIT_ADDR3_A			0x586u
#define IA32_RTIT_ADDR3_B			0x587u
/* IA32_RTIT_ADDRn_A / _B for range n (0..3), SDM 33.2.8.5. */
#define IA32_RTIT_ADDRn_A(n)			(IA32_RTIT_ADDR0_A + 2u * (unsigned int)(n))
#define IA32_RTIT_ADDRn_B(n)			(IA32_RTIT_ADDR0_B + 2u * (unsigned int)(n))

/* --- IA32_RTIT_CTL, SDM 33.2.8.2 Table 33-6 ---------------------------- */
#define IA32_RTIT_CTL_TRACEEN			(1ull << 0)
#define IA32_RTIT_CTL_CYCEN			(1ull << 1)	/* needs CPUID EBX[1] */
#define IA32_RTIT_CTL_OS			(1ull << 2)
#define IA32_RTIT_CTL_USER			(1ull << 3)
#define IA32_RTIT_CTL_PWREVTEN			(1ull << 4)	/* needs CPUID EBX[5] */
#define IA32_RTIT_CTL_FUPONPTW			(1ull << 5)	/* needs CPUID EBX[4] */
#define IA32_RTIT_CTL_FABRICEN			(1ull << 6)	/* needs CPUID ECX[3] */
#define IA32_RTIT_CTL_CR3FILTER			(1ull << 7)	/* needs CPUID EBX[0] */
#define IA32_RTIT_CTL_TOPA			(1ull << 8)	/* needs CPUID ECX[0] */
#define IA32_RTIT_CTL_MTCEN			(1ull << 9)	/* needs CPUID EBX[3] */
#define IA32_RTIT_CTL_TSCEN			(1ull << 10)
#define IA32_RTIT_CTL_DISRETC			(1ull << 11)
#define IA32_RTIT_CTL_PTWEN			(1ull << 12)	/* needs CPUID EBX[4] */
#define IA32_RTIT_CTL_BRANCHEN			(1ull << 13)
/* MTCFreq[17:14]: MTC when ART bit (encoding) toggles; CPUID.(14H,1):EAX[31:16]. */
#define IA32_RTIT_CTL_MTCFREQ_SHIFT		14
#define IA32_RTIT_CTL_MTCFREQ_MASK		(0xfull << IA32_RTIT_CTL_MTCFREQ_SHIFT)
/* CycThresh[22:19]: N = 0 if 0 else 2^(CycThresh-1) cycles; CPUID.(14H,1):EBX[15:0]. */
#define IA32_RTIT_CTL_CYCTHRESH_SHIFT		19
#define IA32_RTIT_CTL_CYCTHRESH_MASK		(0xfull << IA32_RTIT_CTL_CYCTHRESH_SHIFT)
/* PSBFreq[27:24]: PSB every 2K << PSBFreq packet bytes; CPUID.(14H,1):EBX[31:16]. */
#define IA32_RTIT_CTL_PSBFREQ_SHIFT		24
#define IA32_RTIT_CTL_PSBFREQ_MASK		(0xfull << IA32_RTIT_CTL_PSBFREQ_SHIFT)
#define IA32_RTIT_CTL_EVENTEN			(1ull << 31)	/* needs CPUID EBX[7] */
/* ADDRn_CFG: 4 bits per range n at 32 + 4n; reserved unless n < RANGECNT. */
#define IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n)	(32 + 4 * (n))
#define IA32_RTIT_CTL_ADDRn_CFG_MASK(n)		(0xfull << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n))
#define IA32_RTIT_CTL_ADDR0_CFG_SHIFT		32
#define IA32_RTIT_CTL_ADDR0_CFG_MASK		(0xfull << 32)
#define IA32_RTIT_CTL_ADDR1_CFG_SHIFT		36
#define IA32_RTIT_CTL_ADDR1_CFG_MASK		(0xfull << 36)
#define IA32_RTIT_CTL_ADDR2_CFG_SHIFT		40
#define IA32_RTIT_CTL_ADDR2_CFG_MASK		(0xfull << 40)
#define IA32_RTIT_CTL_ADDR3_CFG_SHIFT		44
#define IA32_RTIT_CTL_ADDR3_CFG_MASK		(0xfull << 44)
#define IA32_RTIT_CTL_DISTNT			(1ull << 55)	/* needs CPUID EBX[8] */
#define IA32_RTIT_CTL_INJECTPSBPMIONENABLE	(1ull << 56)	/* needs CPUID EBX[6] */
/* Bits reserved on every processor: 18, 23, 30:28, 54:48, 63:57. */
#define IA32_RTIT_CTL_RESERVED			(0xfe7f000070840000ull)

/* ADDRn_CFG encodings (Table 33-6); 3..15 are reserved (#GP). */
#define IA32_RTIT_ADDR_CFG_UNUSED		0u
#define IA32_RTIT_ADDR_CFG_FILTER		1u	/* FilterEn range */
#define IA32_RTIT_ADDR_CFG_STOP			2u	/* TraceStop range */

/* PSBFreq encoding -> period in packet bytes (2K << enc), Table 33-6. */
#define IA32_RTIT_PSBFREQ_BYTES(enc)		(2048ull << (enc))
/* CycThresh encoding -> minimum cycles between CYC packets, Table 33-6. */
#define IA32_RTIT_CYCTHRESH_CYCLES(enc)		((enc) ? (1ull << ((enc) - 1)) : 0ull)

/*
 * pt_rtit_ctl_writable() - the IA32_RTIT_CTL bits a processor lets software
 * set: Table 33-6 restricted by the capabilities of Table 33-11/33-12 (the
 * whitelist of STYLE 4). Any other bit set in a WRMSR raises #GP.
 * @leaf: CPUID leaf 14H.
 */
static inline uint64_t pt_rtit_ctl_writable(const struct pt_cpuid_leaf *leaf)
{
	uint64_t w = IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_OS | IA32_RTIT_CTL_USER |
		     IA32_RTIT_CTL_TSCEN | IA32_RTIT_CTL_DISRETC | IA32_RTIT_CTL_BRANCHEN;
	uint32_t n, ranges = 0;

	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_TOPA))
		w |= IA32_RTIT_CTL_TOPA;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_PSB_CYC))
		w |= IA32_RTIT_CTL_CYCEN | IA32_RTIT_CTL_CYCTHRESH_MASK |
		     IA32_RTIT_CTL_PSBFREQ_MASK;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_POWER_EVENT))
		w |= IA32_RTIT_CTL_PWREVTEN;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_PTWRITE))
		w |= IA32_RTIT_CTL_PTWEN | IA32_RTIT_CTL_FUPONPTW;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_TRACE_TRANSPORT))
		w |= IA32_RTIT_CTL_FABRICEN;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_CR3_FILTER))
		w |= IA32_RTIT_CTL_CR3FILTER;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_MTC))
		w |= IA32_RTIT_CTL_MTCEN | IA32_RTIT_CTL_MTCFREQ_MASK;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_EVENT_TRACE))
		w |= IA32_RTIT_CTL_EVENTEN;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_TNT_DISABLE))
		w |= IA32_RTIT_CTL_DISTNT;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_PSB_PMI_PRESERVE))
		w |= IA32_RTIT_CTL_INJECTPSBPMIONENABLE;
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_IP_FILTER))
		ranges = pt_cpuid_cap(leaf, PT_CPUID_CAP_NUM_RANGES);
	for (n = 0; n < ranges && n < PT_ADDR_RANGES_MAX; n++)
		w |= IA32_RTIT_CTL_ADDRn_CFG_MASK(n);
	return w & ~IA32_RTIT_CTL_RESERVED;
}

/* Why an IA32_RTIT_CTL value would #GP (pt_rtit_ctl_check()). */
enum pt_rtit_ctl_fault {
	PT_RTIT_CTL_VALID = 0,
	PT_RTIT_CTL_FAULT_RESERVED,	/* bits outside pt_rtit_ctl_writable() */
	PT_RTIT_CTL_FAULT_MTCFREQ,	/* not in CPUID.(14H,1):EAX[31:16] */
	PT_RTIT_CTL_FAULT_CYCTHRESH,	/* not in CPUID.(14H,1):EBX[15:0] */
	PT_RTIT_CTL_FAULT_PSBFREQ,	/* not in CPUID.(14H,1):EBX[31:16] */
	PT_RTIT_CTL_FAULT_ADDR_CFG,	/* ADDRn_CFG encoding 3..15 */
	PT_RTIT_CTL_FAULT_NO_OUTPUT,	/* TraceEn, ToPA=0, FabricEn=0, no SNGLRGNOUT */
};

/**
 * pt_rtit_ctl_check() - would WRMSR IA32_RTIT_CTL <- @val raise #GP?
 * @leaf: CPUID leaf 14H of the processor.
 * @val:  the value (the TraceEn=1 -> 1 modification rule of 33.2.8.3 is the
 *        caller's: it depends on the current value).
 * @bad:  out (may be NULL): the offending bits (the whole field for an
 *        encoding), so that a caller can name the field.
 *
 * Implements SDM 33.2.8.2 (Table 33-6) with Tables 33-11/33-12.
 * Return: PT_RTIT_CTL_VALID or the first enum pt_rtit_ctl_fault found.
 */
static inline enum pt_rtit_ctl_fault
pt_rtit_ctl_check(const struct pt_cpuid_leaf *leaf, uint64_t val, uint64_t *bad)
{
	uint64_t rsvd = val & ~pt_rtit_ctl_writable(leaf), dummy;
	uint32_t n, enc;

	if (!bad)
		bad = &dummy;
	*bad = 0;
	if (rsvd) {
		*bad = rsvd;
		return PT_RTIT_CTL_FAULT_RESERVED;
	}
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_MTC)) {
		enc = (uint32_t)((val & IA32_RTIT_CTL_MTCFREQ_MASK) >> IA32_RTIT_CTL_MTCFREQ_SHIFT);
		if (!(pt_cpuid_cap(leaf, PT_CPUID_CAP_MTC_PERIODS) & (1u << enc))) {
			*bad = IA32_RTIT_CTL_MTCFREQ_MASK;
			return PT_RTIT_CTL_FAULT_MTCFREQ;
		}
	}
	if (pt_cpuid_cap(leaf, PT_CPUID_CAP_PSB_CYC)) {
		enc = (uint32_t)((val & IA32_RTIT_CTL_CYCTHRESH_MASK) >>
				 IA32_RTIT_CTL_CYCTHRESH_SHIFT);
		if (!(pt_cpuid_cap(leaf, PT_CPUID_CAP_CYC_THRESHOLDS) & (1u << enc))) {
			*bad = IA32_RTIT_CTL_CYCTHRESH_MASK;
			return PT_RTIT_CTL_FAULT_CYCTHRESH;
		}
		enc = (uint32_t)((val & IA32_RTIT_CTL_PSBFREQ_MASK) >> IA32_RTIT_CTL_PSBFREQ_SHIFT);
		if (!(pt_cpuid_cap(leaf, PT_CPUID_CAP_PSB_PERIODS) & (1u << enc))) {
			*bad = IA32_RTIT_CTL_PSBFREQ_MASK;
			return PT_RTIT_CTL_FAULT_PSBFREQ;
		}
	}
	for (n = 0; n < PT_ADDR_RANGES_MAX; n++) {
		enc = (uint32_t)((val & IA32_RTIT_CTL_ADDRn_CFG_MASK(n)) >>
				 IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n));
		if (enc > IA32_RTIT_ADDR_CFG_STOP) {
			*bad = IA32_RTIT_CTL_ADDRn_CFG_MASK(n);
			return PT_RTIT_CTL_FAULT_ADDR_CFG;
		}
	}
	if ((val & IA32_RTIT_CTL_TRACEEN) &&
	    !(val & (IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_FABRICEN)) &&
	    !pt_cpuid_cap(leaf, PT_CPUID_CAP_SNGLRGNOUT)) {
		*bad = IA32_RTIT_CTL_TOPA;
		return PT_RTIT_CTL_FAULT_NO_OUTPUT;
	}
	return PT_RTIT_CTL_VALID;
}

/* --- IA32_RTIT_STATUS, SDM 33.2.8.4 Table 33-7 ------------------------- */
#define IA32_RTIT_STATUS_FILTEREN		(1ull << 0)	/* processor-owned, writes ignored */
#define IA32_RTIT_STATUS_CONTEXTEN		(1ull << 1)	/* processor-owned, writes ignored */
#define IA32_RTIT_STATUS_TRIGGEREN		(1ull << 2)	/* processor-owned, writes ignored */
#define IA32_RTIT_STATUS_ERROR			(1ull << 4)
#define IA32_RTIT_STATUS_STOPPED		(1ull << 5)
#define IA32_RTIT_STATUS_PENDPSB		(1ull << 6)	/* needs CPUID EBX[6] */
#define IA32_RTIT_STATUS_PENDTOPAPMI		(1ull << 7)	/* needs CPUID EBX[6] */
/* PacketByteCnt[48:32]: needs CPUID EBX[1] to be written non-zero. */
#define IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT	32
#define IA32_RTIT_STATUS_PACKETBYTECNT_MASK	(0x1ffffull << IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT)
/* Bits WRMSR ignores (Table 33-7 "Writes are ignored"). */
#define IA32_RTIT_STATUS_READ_ONLY		(IA32_RTIT_STATUS_FILTEREN | \
						 IA32_RTIT_STATUS_CONTEXTEN | \
						 IA32_RTIT_STATUS_TRIGGEREN)
/* Bits reserved on every processor: 3, 31:8, 63:49. */
#define IA32_RTIT_STATUS_RESERVED		(0xfffe0000ffffff08ull)

/* --- IA32_RTIT_CR3_MATCH, SDM 33.2.8.6 --------------------------------- */
#define IA32_RTIT_CR3_MATCH_RESERVED		(0x1full)	/* bits 4:0, #GP */
/* SDM 33.2.5.2: compared with CR3 bits 63:12 (63:5 in PAE paging). */
#define IA32_RTIT_CR3_MATCH_CMP_MASK		(~0xfffull)
#define IA32_RTIT_CR3_MATCH_CMP_MASK_PAE	(~0x1full)

/* --- IA32_RTIT_OUTPUT_BASE, SDM 33.2.8.7 Table 33-8 -------------------- */
#define IA32_RTIT_OUTPUT_BASE_RESERVED_LOW	(0x7full)	/* bits 6:0 */
/* Bits 63:MAXPHYADDR are reserved (MAXPHYADDR from CPUID.80000008H:EAX[7:0]). */
#define IA32_RTIT_PHYS_RESERVED(maxphyaddr)	(~0ull << (maxphyaddr))
#define IA32_RTIT_OUTPUT_BASE_RESERVED(maxphyaddr) \
	(IA32_RTIT_OUTPUT_BASE_RESERVED_LOW | IA32_RTIT_PHYS_RESERVED(maxphyaddr))
/* With ToPA=1 the table base must be 4K aligned: bits 11:7 set -> operational error. */
#define IA32_RTIT_OUTPUT_BASE_TOPA_MISALIGN	(0xf80ull)

/* --- IA32_RTIT_OUTPUT_MASK_PTRS, SDM 33.2.8.8 Table 33-9 --------------- */
/* LowerMask[6:0]: forced to 1, writes ignored. */
#define IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK	(0x7full)
/* MaskOrTableOffset[31:7]: mask bits 31:7 (single range) or table offset bits 27:3 (ToPA). */
#define IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT	7
#define IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK	(0x1ffffffull << 7)
/*
 * Single-range output (SDM 33.2.7.1): bits 31:0 are OutputMask, a
 * contiguous mask of the range's low bits (size - 1 for a naturally aligned
 * power-of-two range; bits 6:0 read as 1).
 */
#define IA32_RTIT_OUTPUT_MASK_PTRS_SINGLE_MASK			(0xffffffffull)
/* OutputOffset[63:32]: offset into the output region. */
#define IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT		32
#define IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_MASK		(0xffffffffull << 32)

/* --- PT state in the XSAVE area, SDM Vol. 1 13.5.6 ---------------------- */
#define IA32_XSS				0xda0u
/* CPUID.(EAX=0DH,ECX=1):EAX[3] XSAVES/XRSTORS, ECX[8] IA32_XSS[8] supported. */
#define PT_CPUID_0DH				0x0du
#define PT_CPUID_0DH_1_EAX_XSAVES		(1u << 3)
/* CPUID.(EAX=0DH,ECX=8): EAX size of PT state, ECX[0] supervisor (IA32_XSS) component. */
#define PT_CPUID_0DH_N_ECX_XSS			(1u << 0)
#define PT_XSTATE_COMPONENT			8
#define IA32_XSS_PT				(1ull << PT_XSTATE_COMPONENT)

/*
 * The PT state component (XSAVES/XRSTORS component 8): the nine MSRs, 8 bytes
 * each, in this order; bytes at or beyond offset 72 are reserved and XSAVES
 * writes them as 0. Only ranges 0 and 1 are part of the component.
 */
struct pt_xsave_state {
	uint64_t rtit_ctl;
	uint64_t rtit_output_base;
	uint64_t rtit_output_mask_ptrs;
	uint64_t rtit_status;
	uint64_t rtit_cr3_match;
	uint64_t rtit_addr0_a;
	uint64_t rtit_addr0_b;
	uint64_t rtit_addr1_a;
	uint64_t rtit_addr1_b;
};

#define PT_XSAVE_STATE_SIZE			72
LWPT_STATIC_ASSERT(sizeof(struct pt_xsave_state) == PT_XSAVE_STATE_SIZE, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_ctl) == 0, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_output_base) == 8, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_output_mask_ptrs) == 16, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_status) == 24, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_cr3_match) == 32, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_addr0_a) == 40, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_addr0_b) == 48, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_addr1_a) == 56, "SDM Vol.1 13.5.6");
LWPT_STATIC_ASSERT(offsetof(struct pt_xsave_state, rtit_addr1_b) == 64, "SDM Vol.1 13.5.6");

#endif /* LWPT_PT_RTIT_H */
