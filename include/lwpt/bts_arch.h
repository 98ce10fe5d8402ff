/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Branch Trace Store and the DS save area: architectural definitions.
 *
 * Source: Intel SDM Vol. 3B 17.4 "Last Branch, Interrupt, and Exception
 * Recording Overview": 17.4.1 (IA32_DEBUGCTL), 17.4.5 (BTS), 17.4.6
 * (CPL-qualified BTS), 17.4.7 (freezing on PMI), 17.4.9 (BTS and DS save
 * area), 17.4.9.1 (64-bit format of the DS save area, Figures 17-8 and
 * 17-9); Vol. 4 Table 2-2 (IA32_DEBUGCTL, IA32_DS_AREA, IA32_MISC_ENABLE).
 * The excerpts kept in /work/shared/spec are 17.4.6-17.4.9 and 18.x; the
 * other values were checked against the SDM pages quoted in
 * Documentation/bts.rst ("Sources"). Shared by kernel and user space.
 */
#ifndef LWPT_BTS_ARCH_H
#define LWPT_BTS_ARCH_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* ---- CPUID.01H feature flags (SDM 17.4.6, 17.4.7, 17.4.9, 17.4.9.1) ---- */

#define BTS_CPUID1_EDX_DS		(1u << 21)	/* 17.4.9: debug store */
#define BTS_CPUID1_ECX_DTES64		(1u << 2)	/* 17.4.9.1: 64-bit DS layout */
#define BTS_CPUID1_ECX_DS_CPL		(1u << 4)	/* 17.4.6: CPL-qualified BTS */
#define BTS_CPUID1_ECX_PDCM		(1u << 15)	/* 17.4.8.1: PERF_CAPABILITIES */

/* ---- IA32_DEBUGCTL, MSR 1D9H (SDM 17.4.1; Vol. 4 Table 2-2) ------------ */

#define IA32_DEBUGCTL			0x1d9u
#define IA32_DEBUGCTL_LBR		(1ull << 0)	/* 17.4.1: LBR stack on */
#define IA32_DEBUGCTL_BTF		(1ull << 1)	/* 17.4.1: single-step on branches */
/* Bits 5:2 reserved (Table 2-2; bit 2 is bus-lock detection on later parts). */
#define IA32_DEBUGCTL_TR		(1ull << 6)	/* 17.4.1: branch trace messages */
#define IA32_DEBUGCTL_BTS		(1ull << 7)	/* 17.4.9: BTMs to the BTS buffer */
#define IA32_DEBUGCTL_BTINT		(1ull << 8)	/* 17.4.5: interrupt, not circular */
#define IA32_DEBUGCTL_BTS_OFF_OS	(1ull << 9)	/* 17.4.6: skip BTMs at CPL 0 */
#define IA32_DEBUGCTL_BTS_OFF_USR	(1ull << 10)	/* 17.4.6: skip BTMs at CPL > 0 */
#define IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI	(1ull << 11)	/* 17.4.7 */
#define IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI	(1ull << 12)	/* 17.4.7 */
#define IA32_DEBUGCTL_ENABLE_UNCORE_PMI	(1ull << 13)	/* Table 2-2, model-specific */
#define IA32_DEBUGCTL_FREEZE_WHILE_SMM	(1ull << 14)	/* if PERF_CAPABILITIES[12] */
#define IA32_DEBUGCTL_RTM_DEBUG		(1ull << 15)	/* if CPUID.(7,0):EBX[11] */
/* Bits 63:16 reserved (Table 2-2). */

/* ---- IA32_MISC_ENABLE, MSR 1A0H (SDM 17.4.9; Vol. 4 Table 2-2) --------- */

#define IA32_MISC_ENABLE		0x1a0u
/* Read-only; when set, IA32_DEBUGCTL.BTS and BTINT cannot be set (17.4.9). */
#define IA32_MISC_ENABLE_BTS_UNAVAILABLE	(1ull << 11)
#define IA32_MISC_ENABLE_PEBS_UNAVAILABLE	(1ull << 12)

/* ---- IA32_DS_AREA, MSR 600H (SDM 17.4.9, 17.4.9.1) --------------------- */

/* Linear address of the DS buffer management area; exists if CPUID.1:EDX[21]. */
#define IA32_DS_AREA			0x600u

/*
 * The DS buffer management area, 64-bit format (SDM 17.4.9.1, Figure 17-8
 * "IA-32e Mode DS Save Area"): used when CPUID.1:ECX.DTES64 = 1, and when
 * DTES64 = 0 while IA-32e mode is active. Byte offsets of each 8-byte field.
 */
#define DS_BTS_BUFFER_BASE		0x00	/* first byte of the BTS buffer */
#define DS_BTS_INDEX			0x08	/* first byte of the next record */
#define DS_BTS_ABSOLUTE_MAXIMUM		0x10	/* next byte past the buffer */
#define DS_BTS_INTERRUPT_THRESHOLD	0x18	/* record that raises the interrupt */
#define DS_PEBS_BUFFER_BASE		0x20
#define DS_PEBS_INDEX			0x28
#define DS_PEBS_ABSOLUTE_MAXIMUM	0x30
#define DS_PEBS_INTERRUPT_THRESHOLD	0x38
#define DS_PEBS_COUNTER_RESET		0x40	/* PEBS counter reset values */

/* The BTS part of the management area as it lies in memory. */
struct ds_bts_area {
	uint64_t bts_buffer_base;
	uint64_t bts_index;
	uint64_t bts_absolute_maximum;
	uint64_t bts_interrupt_threshold;
};

LWPT_STATIC_ASSERT(offsetof(struct ds_bts_area, bts_index) == DS_BTS_INDEX,
		   "SDM Figure 17-8: BTS index at 08H");
LWPT_STATIC_ASSERT(offsetof(struct ds_bts_area, bts_interrupt_threshold) ==
		   DS_BTS_INTERRUPT_THRESHOLD,
		   "SDM Figure 17-8: BTS interrupt threshold at 18H");

/*
 * A BTS record, 64-bit format (SDM 17.4.9.1, Figure 17-9 "64-bit Branch
 * Trace Record Format"): three 8-byte fields, 24 bytes.
 */
#define BTS_RECORD_SIZE			24u
#define BTS_REC_FROM			0x00	/* Last Branch From */
#define BTS_REC_TO			0x08	/* Last Branch To */
#define BTS_REC_FLAGS			0x10	/* Branch Predicted, bit 4 */
#define BTS_REC_FLAGS_PREDICTED		(1ull << 4)

struct bts_record {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};

LWPT_STATIC_ASSERT(sizeof(struct bts_record) == BTS_RECORD_SIZE,
		   "SDM Figure 17-9: BTS record is 24 bytes");
LWPT_STATIC_ASSERT(offsetof(struct bts_record, flags) == BTS_REC_FLAGS,
		   "SDM Figure 17-9: Branch Predicted at 10H");

#endif /* LWPT_BTS_ARCH_H */
