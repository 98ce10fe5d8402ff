/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * AMD Lightweight Profiling (LWP): architectural definitions.
 *
 * Source: AMD "Lightweight Profiling Specification", publication 43724,
 * revision 3.04 (August 2009). Every value here is cited to its section,
 * table or figure. This is the one home of every LWP field: code elsewhere
 * uses these masks and shifts, never literals.
 *
 * Shared by the kernel module and user space. No name here collides with the
 * kernel's (X86_FEATURE_LWP, MSR_AMD64_LWP_*) nor with liblwp's public API
 * (LWP_FLAG_*, LWP_EVENT_*, struct lwp_event, ...).
 */
#ifndef LWPT_LWP_ARCH_H
#define LWPT_LWP_ARCH_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

/* ---------------------------------------------------------------------- */
/* CPUID (43724 §3)                                                        */
/* ---------------------------------------------------------------------- */

/* §3.1: Fn8000_0001_ECX[LWP] (bit 15) reports LWP support. */
#define LWP_CPUID_FN8000_0001			0x80000001u
#define LWP_CPUID_FN8000_0001_ECX_LWP		(1u << 15)

/* §3.1: LWP requires XSAVE, Fn0000_0001_ECX[XSAVE] (bit 26). */
#define LWP_CPUID_FN0000_0001			0x00000001u
#define LWP_CPUID_FN0000_0001_ECX_XSAVE		(1u << 26)

/*
 * §3.1, §3.2: XSAVE enumeration leaf. Fn0000_000D_x0 EDX bit 30 is bit 62 of
 * XFeatureSupportedMask; sub-leaf 0x3E (62) gives the LWP save area's size
 * (EAX, 128 bytes) and offset (EBX, 832 bytes).
 */
#define LWP_CPUID_FN0000_000D			0x0000000Du
#define LWP_CPUID_FN0000_000D_X0_EDX_LWP	(1u << 30)
#define LWP_CPUID_FN0000_000D_SUBLEAF_LWP	0x3Eu
#define LWP_XSAVE_AREA_SIZE			128u	/* §3.2, §7.1 */
#define LWP_XSAVE_AREA_OFFSET			832u	/* §3.2, §7.1 */

/* §3.3, Table 3-1: the LWP capability leaf. */
#define LWP_CPUID_FN8000_001C			0x8000001Cu

/*
 * Table 3-1, EAX (available) and EDX (supported) share one layout; it is also
 * the layout of LWP_CFG[31:0] (Figure 4-1) and of LWPCB.Flags (Figure 6-2),
 * except that bit 0 is LwpAvail in CPUID and reserved in the other two.
 * Bit n (1..6) stands for EventId n.
 */
#define LWP_CPUID_LWPAVAIL			(1u << 0)	/* EAX: XCR0[62]; EDX: supported */
#define LWP_CPUID_LWPVAL			(1u << 1)	/* EventId 1 */
#define LWP_CPUID_LWPIRE			(1u << 2)	/* EventId 2 */
#define LWP_CPUID_LWPBRE			(1u << 3)	/* EventId 3 */
#define LWP_CPUID_LWPDME			(1u << 4)	/* EventId 4 */
#define LWP_CPUID_LWPCNH			(1u << 5)	/* EventId 5 */
#define LWP_CPUID_LWPRNH			(1u << 6)	/* EventId 6 */
#define LWP_CPUID_RESERVED_EVENTS		0x7FFFFF80u	/* bits 30:7 */
#define LWP_CPUID_LWPINT			(1u << 31)
/* The bit of EventId n (1..30) in EAX/EDX, LWP_CFG and LWPCB.Flags. */
#define LWP_EVENTID_BIT(n)			(1u << (n))

/* Table 3-1, EBX. */
#define LWP_CPUID_EBX_LWPCBSIZE_SHIFT		0	/* LWPCB size, quadwords */
#define LWP_CPUID_EBX_LWPCBSIZE_MASK		(0xFFu << 0)
#define LWP_CPUID_EBX_LWPEVENTSIZE_SHIFT	8	/* event record size, bytes */
#define LWP_CPUID_EBX_LWPEVENTSIZE_MASK		(0xFFu << 8)
#define LWP_CPUID_EBX_LWPMAXEVENTS_SHIFT	16	/* highest EventId (not 255) */
#define LWP_CPUID_EBX_LWPMAXEVENTS_MASK		(0xFFu << 16)
#define LWP_CPUID_EBX_LWPEVENTOFFSET_SHIFT	24	/* offset of EventInterval1 */
#define LWP_CPUID_EBX_LWPEVENTOFFSET_MASK	(0xFFu << 24)

/* Table 3-1, ECX. */
#define LWP_CPUID_ECX_LWPLATENCYMAX_SHIFT	0	/* bits of latency counter */
#define LWP_CPUID_ECX_LWPLATENCYMAX_MASK	(0x1Fu << 0)
#define LWP_CPUID_ECX_LWPDATAADDRESS_SHIFT	5
#define LWP_CPUID_ECX_LWPDATAADDRESS		(1u << 5)
#define LWP_CPUID_ECX_LWPLATENCYRND_SHIFT	6	/* low zero bits of latency */
#define LWP_CPUID_ECX_LWPLATENCYRND_MASK	(0x7u << 6)
#define LWP_CPUID_ECX_LWPVERSION_SHIFT		9
#define LWP_CPUID_ECX_LWPVERSION_MASK		(0x7Fu << 9)
#define LWP_CPUID_ECX_LWPMINBUFFERSIZE_SHIFT	16	/* units of 32 records */
#define LWP_CPUID_ECX_LWPMINBUFFERSIZE_MASK	(0xFFu << 16)
#define LWP_CPUID_ECX_RESERVED			(0xFu << 24)	/* bits 27:24 */
#define LWP_CPUID_ECX_LWPBRANCHPREDICTION_SHIFT	28
#define LWP_CPUID_ECX_LWPBRANCHPREDICTION	(1u << 28)
#define LWP_CPUID_ECX_LWPIPFILTERING_SHIFT	29
#define LWP_CPUID_ECX_LWPIPFILTERING		(1u << 29)
#define LWP_CPUID_ECX_LWPCACHELEVELS_SHIFT	30
#define LWP_CPUID_ECX_LWPCACHELEVELS		(1u << 30)
#define LWP_CPUID_ECX_LWPCACHELATENCY_SHIFT	31
#define LWP_CPUID_ECX_LWPCACHELATENCY		(1u << 31)

/* §3.3: LwpMinBufferSize is in units of this many event records. */
#define LWP_MIN_BUFFER_UNIT_RECORDS		32u
/* §2: version 1 event records are 32 bytes (Table 3-1 LwpEventSize). */
#define LWP_EVREC_SIZE_V1		32u

/* ---------------------------------------------------------------------- */
/* XCR0 and MSRs (43724 §4)                                                */
/* ---------------------------------------------------------------------- */

/* §4.1, §7.1: LWP state is XSAVE state component 62, XCR0[62]. */
#define LWP_XSTATE_COMPONENT			62
#define LWP_XCR0_MASK				(1ull << LWP_XSTATE_COMPONENT)

#define LWP_MSR_CFG				0xC0000105u	/* §4.2 */
#define LWP_MSR_CBADDR				0xC0000106u	/* §4.3 */

/* §4.2, Figure 4-1: LWP_CFG. Bits 31:1 use the LWP_CPUID_LWP* layout. */
#define LWP_CFG_RESERVED0			(1ull << 0)	/* MBZ */
#define LWP_CFG_VAL				(1ull << 1)
#define LWP_CFG_IRE				(1ull << 2)
#define LWP_CFG_BRE				(1ull << 3)
#define LWP_CFG_DME				(1ull << 4)
#define LWP_CFG_CNH				(1ull << 5)
#define LWP_CFG_RNH				(1ull << 6)
#define LWP_CFG_RESERVED_EVENTS			0x7FFFFF80ull	/* bits 30:7, MBZ */
#define LWP_CFG_INT				(1ull << 31)
#define LWP_CFG_FEATURES_MASK			0xFFFFFFFEull	/* bits 31:1 */
#define LWP_CFG_COREID_SHIFT			32
#define LWP_CFG_COREID_MASK			(0xFFull << 32)
#define LWP_CFG_VECTOR_SHIFT			40
#define LWP_CFG_VECTOR_MASK			(0xFFull << 40)
#define LWP_CFG_RESERVED_HIGH			(0xFFFFull << 48)	/* bits 63:48 */

/* ---------------------------------------------------------------------- */
/* Instructions (43724 §5): XOP encodings                                  */
/* ---------------------------------------------------------------------- */

/*
 * §5.1-§5.4: all four are XOP-encoded: escape 8Fh, then RXB.mmmmm (R, X, B
 * stored inverted), then W.vvvv.L.pp (vvvv stored inverted), opcode 12h,
 * ModRM whose reg field selects the instruction. LWPINS/LWPVAL carry an
 * immediate (imm32 as emitted by GNU as; only its low 16 bits are used).
 */
#define LWP_XOP_ESCAPE				0x8F
#define LWP_XOP_BYTE1_R				0x80	/* inverted ModRM.reg ext */
#define LWP_XOP_BYTE1_X				0x40	/* inverted SIB.index ext */
#define LWP_XOP_BYTE1_B				0x20	/* inverted ModRM.rm/base ext */
#define LWP_XOP_BYTE1_MAP_MASK			0x1F
#define LWP_XOP_BYTE2_W				0x80
#define LWP_XOP_BYTE2_VVVV_SHIFT		3	/* inverted register */
#define LWP_XOP_BYTE2_VVVV_MASK			0x78
#define LWP_XOP_BYTE2_L				0x04
#define LWP_XOP_BYTE2_PP_MASK			0x03
/* XOP map values are >= 8, which tells XOP from POP r/m (8F /0). */
#define LWP_XOP_MAP_MIN				0x08
#define LWP_XOP_MAP_LLWPCB			0x09	/* LLWPCB, SLWPCB */
#define LWP_XOP_MAP_LWPINS			0x0A	/* LWPINS, LWPVAL */
#define LWP_XOP_OPCODE				0x12	/* all four */
#define LWP_XOP_MODRM_REG_LLWPCB		0	/* map 9, 12 /0 */
#define LWP_XOP_MODRM_REG_SLWPCB		1	/* map 9, 12 /1 */
#define LWP_XOP_MODRM_REG_LWPINS		0	/* map A, 12 /0 ib32 */
#define LWP_XOP_MODRM_REG_LWPVAL		1	/* map A, 12 /1 ib32 */
#define LWP_XOP_VVVV_NONE			0xF	/* LLWPCB/SLWPCB: must be 1111b */
#define LWP_XOP_PP_NONE				0
#define LWP_MODRM_MOD_SHIFT			6
#define LWP_MODRM_MOD_MASK			0xC0
#define LWP_MODRM_MOD_REG			3	/* LLWPCB/SLWPCB: must be 11b */
#define LWP_MODRM_REG_SHIFT			3
#define LWP_MODRM_REG_MASK			0x38
#define LWP_MODRM_RM_MASK			0x07
#define LWP_INSN_MAX_LENGTH			15

/* ---------------------------------------------------------------------- */
/* Event records (43724 §2)                                                */
/* ---------------------------------------------------------------------- */

/* Table 2-1: EventId values. */
#define LWP_EVENTID_INVALID			0
#define LWP_EVENTID_PROGRAMMED_VALUE		1	/* §2.1, LWPVAL */
#define LWP_EVENTID_INSTRUCTIONS_RETIRED	2	/* §2.2 */
#define LWP_EVENTID_BRANCHES_RETIRED		3	/* §2.3 */
#define LWP_EVENTID_DCACHE_MISSES		4	/* §2.4 */
#define LWP_EVENTID_CPU_CLOCKS_NOT_HALTED	5	/* §2.5 */
#define LWP_EVENTID_CPU_REF_CLOCKS_NOT_HALTED	6	/* §2.6 */
#define LWP_EVENTID_PROGRAMMED_EVENT		255	/* §2.7, LWPINS */
#define LWP_EVENTID_MAX_V1			6	/* highest counted EventId */

/*
 * Figure 2-1: the generic event record (32 bytes in version 1). Reserved
 * fields and fields not defined for an event are zero (§2).
 *   LWPVAL (Figure 2-2) / LWPINS (Figure 2-8): flags = imm16, data1 = reg/mem32,
 *     data2 = vvvv register (zero-extended).
 *   Branches retired (Figure 2-4): flags = FUS/PRV/PRD/TKN, data2 = TargetAddress.
 *   DCache miss (Figure 2-5): flags = DAV/SRC, data1 = Latency, data2 = DataAddress.
 *   Instructions retired, clocks (Figures 2-3, 2-6, 2-7): generic.
 */
struct lwp_event_record {
	uint8_t event_id;	/* byte 0: EventId */
	uint8_t core_id;	/* byte 1: CoreId (LWP_CFG.COREID) */
	uint16_t flags;		/* bytes 3-2: Flags */
	uint32_t data1;		/* bytes 7-4: Data1 / Latency */
	uint64_t ip;		/* bytes 15-8: InstructionAddress */
	uint64_t data2;		/* bytes 23-16: Data2 / TargetAddress / DataAddress */
	uint64_t reserved;	/* bytes 31-24 */
};
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, event_id) == 0, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, core_id) == 1, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, flags) == 2, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, data1) == 4, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, ip) == 8, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, data2) == 16, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event_record, reserved) == 24, "Figure 2-1");
LWPT_STATIC_ASSERT(sizeof(struct lwp_event_record) == LWP_EVREC_SIZE_V1, "§2: 32 bytes");

/*
 * The figures number the flag bits within the record's first doubleword
 * (bits 31:16 = Flags). These are the same bits within the 16-bit flags
 * field: record bit b is flags bit (b - LWP_EVREC_FLAGS_BIT0).
 */
#define LWP_EVREC_FLAGS_BIT0			16
/* Figure 2-4: branch retired, record bits 28..31. */
#define LWP_EVREC_BR_FUS			(1u << (28 - LWP_EVREC_FLAGS_BIT0))
#define LWP_EVREC_BR_PRV			(1u << (29 - LWP_EVREC_FLAGS_BIT0))
#define LWP_EVREC_BR_PRD			(1u << (30 - LWP_EVREC_FLAGS_BIT0))
#define LWP_EVREC_BR_TKN			(1u << (31 - LWP_EVREC_FLAGS_BIT0))
#define LWP_EVREC_BR_RESERVED			0x0FFFu	/* record bits 27:16 */
/* Figure 2-5: DCache miss, DAV record bit 28, SRC record bits 31:29. */
#define LWP_EVREC_DC_DAV			(1u << (28 - LWP_EVREC_FLAGS_BIT0))
#define LWP_EVREC_DC_SRC_SHIFT			(29 - LWP_EVREC_FLAGS_BIT0)
#define LWP_EVREC_DC_SRC_MASK			(0x7u << LWP_EVREC_DC_SRC_SHIFT)
#define LWP_EVREC_DC_RESERVED			0x0FFFu
/* Figure 2-5: SRC values. */
#define LWP_DC_SRC_NONE				0	/* no valid status */
#define LWP_DC_SRC_LOCAL_L3			1
#define LWP_DC_SRC_REMOTE			2	/* remote CPU or L3 */
#define LWP_DC_SRC_DRAM				3
#define LWP_DC_SRC_OTHER			7	/* MMIO/Config/PCI/APIC */
/* Figures 2-2, 2-8: the immediate is truncated to 16 bits (§5.3, §5.4). */
#define LWP_EVREC_IMM_MASK			0xFFFFu
/* §2.4.1: latency rounding j is 1..4 (Table 3-1 allows 0..4), cap 2^n - 2^j. */
#define LWP_LATENCY_MAX_MIN			10
#define LWP_LATENCY_MAX_MAX			31
#define LWP_LATENCY_RND_MAX			4

/* ---------------------------------------------------------------------- */
/* LWPCB (43724 §6)                                                        */
/* ---------------------------------------------------------------------- */

/* Table 6-1: one event's configuration, at LwpEventOffset + 8 * (n - 1). */
struct lwp_lwpcb_event {
	uint32_t interval;	/* EventIntervaln, bits 25:0 (signed), 31:26 rsvd */
	uint32_t counter;	/* EventCountern, bits 25:0 (signed), 31:26 rsvd */
};
LWPT_STATIC_ASSERT(sizeof(struct lwp_lwpcb_event) == 8, "Table 6-1");

#define LWP_LWPCB_EVENT_FIELD_BITS		26
#define LWP_LWPCB_EVENT_FIELD_MASK		0x03FFFFFFu	/* bits 25:0 */
#define LWP_LWPCB_EVENT_FIELD_SIGN		(1u << 25)
#define LWP_LWPCB_EVENT_RESERVED		0xFC000000u	/* bits 31:26 */
#define LWP_LWPCB_INTERVAL_MAX			0x01FFFFFF	/* 2^25 - 1 */

/*
 * Table 6-1: the fixed part of the LWPCB (offsets 0..67) followed by the
 * reserved area up to LwpEventOffset and the event array. The layout below
 * uses LwpEventOffset = 128, the value of every implementation known and of
 * both model profiles; software must use CPUID's LwpEventOffset to locate the
 * event array in general.
 */
struct lwp_lwpcb {
	uint32_t flags;			/* 0: Flags (Figure 6-2) */
	uint32_t buffer_size;		/* 4: BufferSize 27:0, Random 31:28 */
	uint64_t buffer_base;		/* 8: BufferBase (effective address) */
	uint32_t buffer_head_offset;	/* 16: BufferHeadOffset */
	uint32_t reserved1;		/* 20 */
	uint64_t missed_events;		/* 24: MissedEvents */
	uint32_t threshold;		/* 32: Threshold (bytes) */
	uint32_t filters;		/* 36: Filters (Figure 6-3) */
	uint64_t base_ip;		/* 40: BaseIP */
	uint64_t limit_ip;		/* 48: LimitIP */
	uint64_t reserved2;		/* 56 */
	uint32_t buffer_tail_offset;	/* 64: BufferTailOffset */
	uint32_t reserved3[15];		/* 68..127 */
	struct lwp_lwpcb_event events[LWP_EVENTID_MAX_V1];	/* 128: E */
};
#define LWP_LWPCB_EVENT_OFFSET_DEFAULT		128u
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, flags) == 0, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, buffer_size) == 4, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, buffer_base) == 8, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, buffer_head_offset) == 16, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, missed_events) == 24, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, threshold) == 32, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, filters) == 36, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, base_ip) == 40, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, limit_ip) == 48, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, buffer_tail_offset) == 64, "Table 6-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_lwpcb, events) == LWP_LWPCB_EVENT_OFFSET_DEFAULT,
	       "§6: EventInterval1 at offset 128");
LWPT_STATIC_ASSERT(sizeof(struct lwp_lwpcb) == 128 + 8 * LWP_EVENTID_MAX_V1, "Table 6-1");

/* Byte offsets of the LWPCB fields (Table 6-1), for accessors. */
#define LWP_LWPCB_OFF_FLAGS			0u
#define LWP_LWPCB_OFF_BUFFER_SIZE		4u
#define LWP_LWPCB_OFF_BUFFER_BASE		8u
#define LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET	16u
#define LWP_LWPCB_OFF_MISSED_EVENTS		24u
#define LWP_LWPCB_OFF_THRESHOLD			32u
#define LWP_LWPCB_OFF_FILTERS			36u
#define LWP_LWPCB_OFF_BASE_IP			40u
#define LWP_LWPCB_OFF_LIMIT_IP			48u
#define LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET	64u
/* Figure 6-1 Reserved, must be zero: bytes 23-20, 63-56 (and 68 to E-1). */
#define LWP_LWPCB_OFF_RESERVED_20		20u
#define LWP_LWPCB_OFF_RESERVED_56		56u
#define LWP_LWPCB_FIXED_SIZE			68u
/* Offset of EventIntervaln / EventCountern for EventId n, given E. */
#define LWP_LWPCB_OFF_EVENT_INTERVAL(e, n)	((e) + 8u * ((n) - 1u))
#define LWP_LWPCB_OFF_EVENT_COUNTER(e, n)	((e) + 8u * ((n) - 1u) + 4u)

/* Table 6-1: the BufferSize word (bytes 7-4). */
#define LWP_LWPCB_BUFFER_SIZE_MASK		0x0FFFFFFFu	/* bits 59:32 -> 27:0 */
#define LWP_LWPCB_RANDOM_SHIFT			28		/* bits 63:60 -> 31:28 */
#define LWP_LWPCB_RANDOM_MASK			(0xFu << 28)

/* Figure 6-2: LWPCB.Flags (same layout as LWP_CFG[31:0]). */
#define LWP_LWPCB_FLAGS_RESERVED0		(1u << 0)
#define LWP_LWPCB_FLAGS_VAL			(1u << 1)
#define LWP_LWPCB_FLAGS_IRE			(1u << 2)
#define LWP_LWPCB_FLAGS_BRE			(1u << 3)
#define LWP_LWPCB_FLAGS_DME			(1u << 4)
#define LWP_LWPCB_FLAGS_CNH			(1u << 5)
#define LWP_LWPCB_FLAGS_RNH			(1u << 6)
#define LWP_LWPCB_FLAGS_RESERVED		0x7FFFFF80u	/* bits 30:7 */
#define LWP_LWPCB_FLAGS_INT			(1u << 31)

/* Figure 6-3, Table 6-2: LWPCB.Filters. */
#define LWP_LWPCB_FILTERS_MINLATENCY_SHIFT	0
#define LWP_LWPCB_FILTERS_MINLATENCY_MASK	0xFFu
#define LWP_LWPCB_FILTERS_MINLATENCY_UNIT	16u	/* cycles per unit */
#define LWP_LWPCB_FILTERS_CLF			(1u << 8)
#define LWP_LWPCB_FILTERS_NBC			(1u << 9)
#define LWP_LWPCB_FILTERS_RDC			(1u << 10)
#define LWP_LWPCB_FILTERS_RAM			(1u << 11)
#define LWP_LWPCB_FILTERS_OTH			(1u << 12)
#define LWP_LWPCB_FILTERS_RESERVED		0x01FFE000u	/* bits 24:13 */
#define LWP_LWPCB_FILTERS_NMB			(1u << 25)
#define LWP_LWPCB_FILTERS_NPB			(1u << 26)
#define LWP_LWPCB_FILTERS_NAB			(1u << 27)
#define LWP_LWPCB_FILTERS_NCB			(1u << 28)
#define LWP_LWPCB_FILTERS_NRB			(1u << 29)
#define LWP_LWPCB_FILTERS_IPI			(1u << 30)
#define LWP_LWPCB_FILTERS_IPF			(1u << 31)

/* ---------------------------------------------------------------------- */
/* XSAVE area, component 62 (43724 §7, Figure 7-1, Table 7-1)             */
/* ---------------------------------------------------------------------- */

#define LWP_XSAVE_MAX_COUNTERS			16

struct lwp_xsave_area {
	uint64_t lwpcb_address;		/* 0: linear address; 0 = disabled */
	uint32_t flags;			/* 8: bit n = Countern active */
	uint32_t buffer_head_offset;	/* 12 */
	uint64_t buffer_base;		/* 16: linear address */
	uint32_t buffer_size;		/* 24 */
	uint32_t filters;		/* 28: as LWPCB.Filters */
	struct lwp_event_record saved_event_record;	/* 32: pending record */
	uint32_t event_counter[LWP_XSAVE_MAX_COUNTERS];	/* 64: EventCounter1.. */
};
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, lwpcb_address) == 0, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, flags) == 8, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, buffer_head_offset) == 12, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, buffer_base) == 16, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, buffer_size) == 24, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, filters) == 28, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, saved_event_record) == 32, "Table 7-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_xsave_area, event_counter) == 64, "Table 7-1");
LWPT_STATIC_ASSERT(sizeof(struct lwp_xsave_area) == LWP_XSAVE_AREA_SIZE, "§7.1: 128 bytes");

/* Table 7-1: XSAVE Flags; bit 0 reserved, bits 6:1 = Countern active. */
#define LWP_XSAVE_FLAGS_RESERVED0		(1u << 0)
#define LWP_XSAVE_FLAGS_COUNTER(n)		(1u << (n))

#endif /* LWPT_LWP_ARCH_H */
