/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * PTWRITE's operand (SDM Vol. 2 "PTWRITE - Write Data to a Processor Trace
 * Packet", F3 [REX.W] 0F AE /4; SDM 33.2.2): which bytes an instruction is,
 * and where its 32- or 64-bit source lives, for lwpt_sim.ko, which
 * emulates PTWRITE where the CPU raises #UD on it (QEMU TCG) and hands its
 * operand to the PT model's PTW packet. 64-bit mode only. Plain C on
 * model/model_env.h, as x86_cofi.h.
 */
#ifndef LWPT_MODEL_X86_PTWRITE_H
#define LWPT_MODEL_X86_PTWRITE_H

#include "model/model_env.h"
#include "model/x86/x86_cofi.h"

/* x86_ptwrite.base for a RIP-relative operand (ModRM mod=00 r/m=101). */
#define X86_PTWRITE_RIP		16
/* x86_ptwrite.base / .index: no register. */
#define X86_PTWRITE_NONE	(-1)

/* A decoded PTWRITE. Registers are numbered as encoded: 0 RAX .. 15 R15. */
struct x86_ptwrite {
	uint8_t len;		/* instruction length in bytes */
	uint8_t size;		/* operand size in bytes: 4, or 8 with REX.W */
	bool mem;		/* memory operand; else register @reg */
	uint8_t reg;		/* register operand */
	int8_t base;		/* memory: base register, X86_PTWRITE_RIP or _NONE */
	int8_t index;		/* memory: index register or X86_PTWRITE_NONE */
	uint8_t scale;		/* memory: 1, 2, 4 or 8 */
	bool addr32;		/* memory: 67h, 32-bit address size */
	int32_t disp;		/* memory: displacement */
};

/**
 * x86_ptwrite_decode() - is this a PTWRITE, and with which operand?
 * @buf:  the instruction bytes.
 * @size: bytes valid at @buf.
 * @mode: code segment mode; only X86_MODE_64 is handled.
 * @out:  receives the instruction; untouched on error.
 *
 * Accepts F3, optional 2E/26/36/3E (ignored in 64-bit mode) and 67
 * prefixes, an optional REX right before 0F AE, and ModRM.reg = 4.
 *
 * Return: 0; -EINVAL if @buf or @out is NULL; -EAGAIN if the bytes end
 *         before the instruction does; -ENOENT if it is no PTWRITE this
 *         decoder handles (other opcode, no F3, 66/F2/F0 prefix, FS/GS
 *         override, not 64-bit mode).
 */
int x86_ptwrite_decode(const uint8_t *buf, size_t size, enum x86_mode mode,
		       struct x86_ptwrite *out);

/**
 * x86_ptwrite_ea() - effective address of a memory operand.
 * @pw:      a PTWRITE with @pw->mem set.
 * @gpr:     the 16 general-purpose registers, in encoding order.
 * @next_ip: the address of the instruction after the PTWRITE (RIP-relative).
 *
 * Return: base + index * scale + disp, truncated to 32 bits with 67h
 *         (SDM Vol. 2, 2.2.1.3 and 2.2.1.6).
 */
uint64_t x86_ptwrite_ea(const struct x86_ptwrite *pw, const uint64_t gpr[16],
			uint64_t next_ip);

#endif /* LWPT_MODEL_X86_PTWRITE_H */
