/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * PEBS record fields as Intel PT carries them in packet blocks (PEBS via
 * PT, IA32_PEBS_ENABLE.OUTPUT = 1): a BBP names the block type, each BIP's
 * ID names the field (SDM Vol. 3C 33.4.2.26-27, Tables 33-45 and 33-47),
 * and the legacy in-memory PEBS record those fields come from
 * (SDM Vol. 3B 18.x, Table 18-23 "PEBS Record Format for Intel Core i7
 * Processor Family").
 *
 * Note the two orders differ: the BIP GPR block (Table 33-47, the adaptive
 * PEBS GPR group order) is FLAGS, IP, AX, CX, DX, BX, SP, BP, SI, DI,
 * R8-R15; the legacy record (Table 18-23) is FLAGS, IP, AX, BX, CX, DX, SI,
 * DI, BP, SP, R8-R15. Use pebs_bip_gpr_to_record_off() to map.
 *
 * Only fixed-width types; no libc.
 */
#ifndef _LWPT_PEBS_H
#define _LWPT_PEBS_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#include <lwpt/pt_packets.h>

/* ---- BIP IDs, SDM Table 33-47 ---------------------------------------- */

/* BBP.Type 0x01 (PT_BBP_TYPE_GPR): General-Purpose Registers. */
#define PT_BIP_GPR_RFLAGS	0x00	/* R/EFLAGS */
#define PT_BIP_GPR_RIP		0x01	/* R/EIP */
#define PT_BIP_GPR_RAX		0x02
#define PT_BIP_GPR_RCX		0x03
#define PT_BIP_GPR_RDX		0x04
#define PT_BIP_GPR_RBX		0x05
#define PT_BIP_GPR_RSP		0x06
#define PT_BIP_GPR_RBP		0x07
#define PT_BIP_GPR_RSI		0x08
#define PT_BIP_GPR_RDI		0x09
#define PT_BIP_GPR_R8		0x0a
#define PT_BIP_GPR_R9		0x0b
#define PT_BIP_GPR_R10		0x0c
#define PT_BIP_GPR_R11		0x0d
#define PT_BIP_GPR_R12		0x0e
#define PT_BIP_GPR_R13		0x0f
#define PT_BIP_GPR_R14		0x10
#define PT_BIP_GPR_R15		0x11
#define PT_BIP_GPR_NR		0x12

/* BBP.Type 0x04 (PT_BBP_TYPE_PEBS_BASIC): PEBS Basic Info. */
#define PT_BIP_BASIC_IP			0x00	/* Instruction Pointer */
#define PT_BIP_BASIC_APPLICABLE_COUNTERS 0x01
#define PT_BIP_BASIC_TSC		0x02	/* Timestamp */
#define PT_BIP_BASIC_NR			0x03

/* BBP.Type 0x05 (PT_BBP_TYPE_PEBS_MEM): PEBS Memory Info. */
#define PT_BIP_MEM_ACCESS_ADDRESS	0x00	/* MemAccessAddress */
#define PT_BIP_MEM_AUX_INFO		0x01	/* MemAuxInfo */
#define PT_BIP_MEM_ACCESS_LATENCY	0x02	/* MemAccessLatency */
#define PT_BIP_MEM_TSX_AUX_INFO		0x03	/* TSXAuxInfo */
#define PT_BIP_MEM_NR			0x04

/*
 * BBP.Type 0x08-0x0a (PT_BBP_TYPE_LBR_0..2): LBR entries. The three blocks
 * hold one sequence of 96 items: item g = (Type - 0x08) * 32 + ID is
 * LBR[TOS - g / 3] FROM_IP, TO_IP or INFO for g % 3 = 0, 1, 2.
 */
#define PT_BIP_LBR_FROM_IP	0
#define PT_BIP_LBR_TO_IP	1
#define PT_BIP_LBR_INFO		2
#define PT_BIP_LBR_ITEM(type, id) \
	(((unsigned int)(type) - PT_BBP_TYPE_LBR_0) * 32u + (unsigned int)(id))
#define PT_BIP_LBR_ENTRY(type, id)	(PT_BIP_LBR_ITEM(type, id) / 3u)
#define PT_BIP_LBR_FIELD(type, id)	(PT_BIP_LBR_ITEM(type, id) % 3u)

/* BBP.Type 0x10 (PT_BBP_TYPE_XMM): XMMn_Q0 (bits 63:0), XMMn_Q1 (127:64). */
#define PT_BIP_XMM_REG(id)	((unsigned int)(id) >> 1)
#define PT_BIP_XMM_QWORD(id)	((unsigned int)(id) & 1u)

/* A 4-byte BIP (BBP.SZ = 1) carries the low 4 bytes of the value. */

/* ---- Legacy PEBS record, SDM Table 18-23 ------------------------------ */

/* Byte offsets. 0x00-0x8f: basic format; 0x90-0xaf: enhanced format
 * (IA32_PERF_CAPABILITIES[11:8] = 0001b).
 */
#define PEBS_REC_RFLAGS			0x00
#define PEBS_REC_RIP			0x08
#define PEBS_REC_RAX			0x10
#define PEBS_REC_RBX			0x18
#define PEBS_REC_RCX			0x20
#define PEBS_REC_RDX			0x28
#define PEBS_REC_RSI			0x30
#define PEBS_REC_RDI			0x38
#define PEBS_REC_RBP			0x40
#define PEBS_REC_RSP			0x48
#define PEBS_REC_R8			0x50
#define PEBS_REC_R9			0x58
#define PEBS_REC_R10			0x60
#define PEBS_REC_R11			0x68
#define PEBS_REC_R12			0x70
#define PEBS_REC_R13			0x78
#define PEBS_REC_R14			0x80
#define PEBS_REC_R15			0x88
#define PEBS_REC_GLOBAL_STATUS		0x90	/* IA32_PERF_GLOBAL_STATUS */
#define PEBS_REC_DATA_LINEAR_ADDRESS	0x98
#define PEBS_REC_DATA_SOURCE		0xa0	/* Data Source Encoding */
#define PEBS_REC_LATENCY		0xa8	/* core cycles */
#define PEBS_REC_SIZE			0xb0

struct lwpt_pebs_record_nhm {
	uint64_t rflags, rip;
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t global_status;
	uint64_t data_linear_address;
	uint64_t data_source;
	uint64_t latency;
};

LWPT_STATIC_ASSERT(sizeof(struct lwpt_pebs_record_nhm) == PEBS_REC_SIZE,
		   "PEBS record size (SDM Table 18-23)");
LWPT_STATIC_ASSERT(__builtin_offsetof(struct lwpt_pebs_record_nhm, rsp) ==
		   PEBS_REC_RSP, "PEBS R/ESP offset");
LWPT_STATIC_ASSERT(__builtin_offsetof(struct lwpt_pebs_record_nhm, r8) ==
		   PEBS_REC_R8, "PEBS R8 offset");
LWPT_STATIC_ASSERT(__builtin_offsetof(struct lwpt_pebs_record_nhm,
				      global_status) == PEBS_REC_GLOBAL_STATUS,
		   "PEBS IA32_PERF_GLOBAL_STATUS offset");
LWPT_STATIC_ASSERT(__builtin_offsetof(struct lwpt_pebs_record_nhm, latency) ==
		   PEBS_REC_LATENCY, "PEBS latency offset");

/*
 * Offset in the legacy record of the register a GPR-block BIP carries, or
 * -1 for an ID outside the block. The memory-info items map as:
 * MemAccessAddress -> PEBS_REC_DATA_LINEAR_ADDRESS, MemAuxInfo ->
 * PEBS_REC_DATA_SOURCE, MemAccessLatency -> PEBS_REC_LATENCY.
 */
static inline int pebs_bip_gpr_to_record_off(unsigned int id)
{
	static const uint8_t off[PT_BIP_GPR_NR] = {
		PEBS_REC_RFLAGS, PEBS_REC_RIP, PEBS_REC_RAX, PEBS_REC_RCX,
		PEBS_REC_RDX, PEBS_REC_RBX, PEBS_REC_RSP, PEBS_REC_RBP,
		PEBS_REC_RSI, PEBS_REC_RDI, PEBS_REC_R8, PEBS_REC_R9,
		PEBS_REC_R10, PEBS_REC_R11, PEBS_REC_R12, PEBS_REC_R13,
		PEBS_REC_R14, PEBS_REC_R15,
	};

	return id < PT_BIP_GPR_NR ? off[id] : -1;
}

#endif /* _LWPT_PEBS_H */
