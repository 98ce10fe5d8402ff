/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The LBR stack, LBR filtering, the last exception record and the freeze
 * on PMI: architectural (and the common model-specific) definitions.
 *
 * Source: Intel SDM Vol. 3B 17.4.7 (freezing LBRs and counters on PMI),
 * 17.4.8 (LBR stack, Table 17-4 stack sizes), 17.4.8.1 (LBR formats of
 * IA32_PERF_CAPABILITIES[5:0]; formats 4 to 7 as perf's
 * arch/x86/events/intel/lbr.c reads them), 17.4.8.3 (LER), 17.7.1-17.7.2
 * (Nehalem LBR MSRs, Tables 17-8/17-9, MSR_LBR_SELECT Table 17-11), 17.9
 * (EN_CALLSTACK), 17.10.2 (streamlined freeze); 18.2.4
 * (IA32_PERF_GLOBAL_STATUS bits 58/59 of architectural performance
 * monitoring version 4). Addresses of the
 * model-specific MSRs are those of Vol. 4 for the families named.
 * Shared by kernel and user space.
 */
#ifndef LWPT_LBR_ARCH_H
#define LWPT_LBR_ARCH_H

#include <lwpt/bts_arch.h>

/* ---- IA32_PERF_CAPABILITIES, MSR 345H (exists if CPUID.1:ECX.PDCM) ----- */

#define IA32_PERF_CAPABILITIES		0x345u
#define PERF_CAP_LBR_FMT_MASK		0x3full		/* [5:0], 17.4.8.1 */
#define PERF_CAP_FREEZE_WHILE_SMM	(1ull << 12)	/* DEBUGCTL bit 14 valid */

/* LBR record formats, IA32_PERF_CAPABILITIES[5:0] (SDM 17.4.8.1). */
#define LBR_FMT_32			0x0	/* 32-bit offset in current CS */
#define LBR_FMT_LIP			0x1	/* 64-bit linear address */
#define LBR_FMT_EIP			0x2	/* 64-bit offset (effective address) */
#define LBR_FMT_EIP_FLAGS		0x3	/* EIP, MISPRED in FROM bit 63 */
/* EIP, MISPRED/IN_TX/TSX_ABORT in FROM bits 63:61 (Haswell with TSX). */
#define LBR_FMT_EIP_FLAGS2		0x4
/* EIP in FROM/TO, flags and cycles in MSR_LBR_INFO_n (Skylake). */
#define LBR_FMT_INFO			0x5
/* EIP, MISPRED in FROM bit 63, cycles in TO bits 63:48 (Goldmont). */
#define LBR_FMT_TIME			0x6
/* As 5 without the TSX flags in MSR_LBR_INFO_n (Goldmont Plus). */
#define LBR_FMT_INFO2			0x7

/* ---- LBR stack MSRs (SDM 17.4.8, Table 17-4; Vol. 4) ------------------- */

/* MSR_LASTBRANCH_TOS: M-bit index of the most recent record (17.4.8). */
#define MSR_LASTBRANCH_TOS		0x1c9u
/* Core 2 / Atom: MSR_LASTBRANCH_0_FROM_IP 40H.., _TO_IP 60H.. */
#define MSR_LASTBRANCH_0_FROM_IP_CORE	0x40u
#define MSR_LASTBRANCH_0_TO_IP_CORE	0x60u
/* Nehalem and later: MSR_LASTBRANCH_0_FROM_IP 680H.., _TO_IP 6C0H.. */
#define MSR_LASTBRANCH_0_FROM_IP_NHM	0x680u
#define MSR_LASTBRANCH_0_TO_IP_NHM	0x6c0u
/* Format 3 (Tables 17-8, 17-9): FROM bit 63 is MISPRED. */
#define LBR_FROM_MISPRED		(1ull << 63)
/*
 * Format 4: FROM bit 62 IN_TX, bit 61 TSX_ABORT, the address in 60:0
 * sign-extended from bit 60 (perf's arch/x86/events/intel/lbr.c,
 * LBR_FROM_FLAG_IN_TX/LBR_FROM_FLAG_ABORT and intel_pmu_lbr_read_64()).
 */
#define LBR_FROM_IN_TX			(1ull << 62)
#define LBR_FROM_TSX_ABORT		(1ull << 61)
/*
 * Format 6: TO bits 63:48 are the core cycles since the previous record,
 * the address in 47:0 (perf's lbr_to_cycles: cycles = (to >> 48) &
 * 0xffff, the address sign-extended from bit 47).
 */
#define LBR_TO_CYCLES_SHIFT		48
#define LBR_TO_CYCLES_MASK		0xffffull

/*
 * Format 5: MSR_LBR_INFO_0 (DC0H) .. _31 (DDFH), one per LBR entry
 * (Linux 6.1 arch/x86/include/asm/msr-index.h, MSR_LBR_INFO_0 and the
 * LBR_INFO_* bits; KVM's arch/x86/kvm/vmx/pmu_intel.c treats n below the
 * stack depth as an LBR MSR only with format 5).
 */
/* <asm/msr-index.h> has the first four too, same values. */
#ifndef MSR_LBR_INFO_0
#define MSR_LBR_INFO_0			0xdc0u
#endif
#ifndef LBR_INFO_MISPRED
#define LBR_INFO_MISPRED		(1ull << 63)
#endif
#ifndef LBR_INFO_IN_TX
#define LBR_INFO_IN_TX			(1ull << 62)
#endif
#ifndef LBR_INFO_CYC_CNT_VALID
#define LBR_INFO_CYC_CNT_VALID		(1ull << 60)
#endif
#define MSR_LBR_INFO_NR			32u		/* DC0H..DDFH */
#define LBR_INFO_TSX_ABORT		(1ull << 61)
#define LBR_INFO_CYC_CNT		0xffffull	/* [15:0], saturating */

/* Last exception record (SDM 17.4.8.3; model-specific addresses). */
#define MSR_LER_FROM_LIP		0x1ddu
#define MSR_LER_TO_LIP			0x1deu

/* ---- MSR_LBR_SELECT, 1C8H (SDM 17.7.2, Tables 17-11/17-12; 17.9) ------- */

/* Each bit set means "do not capture" that kind of branch. */
#ifndef MSR_LBR_SELECT		/* <asm/msr-index.h> has it too, same value */
#define MSR_LBR_SELECT			0x1c8u
#endif
#define LBR_SELECT_CPL_EQ_0		(1ull << 0)	/* occurring in ring 0 */
#define LBR_SELECT_CPL_NEQ_0		(1ull << 1)	/* occurring in ring > 0 */
#define LBR_SELECT_JCC			(1ull << 2)	/* conditional branches */
#define LBR_SELECT_NEAR_REL_CALL	(1ull << 3)
#define LBR_SELECT_NEAR_IND_CALL	(1ull << 4)
#define LBR_SELECT_NEAR_RET		(1ull << 5)
#define LBR_SELECT_NEAR_IND_JMP		(1ull << 6)
#define LBR_SELECT_NEAR_REL_JMP		(1ull << 7)
#define LBR_SELECT_FAR_BRANCH		(1ull << 8)
#define LBR_SELECT_EN_CALLSTACK		(1ull << 9)	/* Haswell and later, 17.9 */
#define LBR_SELECT_MASK_NHM		0x1ffull	/* 63:9 reserved, Table 17-11 */

/* ---- Freeze on PMI (SDM 17.4.7, 17.10.2, 18.2.4) ----------------------- */

/* IA32_PERF_GLOBAL_CTRL (38FH): counter enables, cleared by legacy freeze. */
#define IA32_PERF_GLOBAL_CTRL		0x38fu
/* Also in <lwpt/pt_arch.h> (with the ToPA PMI bit): same values. */
#ifndef IA32_PERF_GLOBAL_STATUS
#define IA32_PERF_GLOBAL_STATUS		0x38eu
#endif
#ifndef IA32_PERF_GLOBAL_STATUS_RESET
#define IA32_PERF_GLOBAL_STATUS_RESET	0x390u
#endif
/* IA32_PERF_GLOBAL_STATUS (38EH) bits of perfmon version 4 (streamlined). */
#define PERF_GLOBAL_STATUS_LBR_FRZ	(1ull << 58)
#define PERF_GLOBAL_STATUS_CTR_FRZ	(1ull << 59)

#endif /* LWPT_LBR_ARCH_H */
