/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A small x86 control-flow classifier for the hardware models.
 *
 * Given the bytes at an instruction pointer, x86_cofi_decode() tells whether
 * the instruction is a change of flow instruction (COFI) in the sense of
 * SDM Table 33-1, which kind, and how long it is. The PT model uses it to
 * choose between TNT bits, TIP packets and far-transfer packet sequences;
 * the LWP model uses it to count branches retired.
 *
 * It is not a disassembler: it parses prefixes (legacy, REX, VEX, EVEX,
 * XOP), the opcode, ModRM/SIB, displacement and immediate sizes, which is
 * enough to compute the length of every instruction of the one-, two- and
 * three-byte opcode maps and of the VEX/EVEX/XOP maps. Operands are not
 * interpreted except the relative displacement of direct branches.
 *
 * Plain C on model/model_env.h only, so it builds in the kernel too.
 */
#ifndef LWPT_MODEL_X86_COFI_H
#define LWPT_MODEL_X86_COFI_H

#include "model/model_env.h"

/* Architectural limit on the length of one instruction (SDM Vol. 2, 2.3.11). */
#define X86_MAX_INSN_LEN 15

/* Code segment execution modes, as MODE.Exec reports them (SDM 33.4.2.8). */
enum x86_mode {
	X86_MODE_16 = 16,	/* CS.D=0, CS.L=0 */
	X86_MODE_32 = 32,	/* CS.D=1, CS.L=0 (or IA-32e compatibility mode) */
	X86_MODE_64 = 64,	/* CS.L=1 and IA32_EFER.LMA=1 */
};

/*
 * Kinds of instruction, grouped as SDM Table 33-1 groups COFIs.
 *
 * Conditional:   X86_COFI_JCC (Jcc, JCXZ/JECXZ/JRCXZ, LOOP, LOOPE, LOOPNE).
 * Direct:        X86_COFI_JMP_REL (EB, E9), X86_COFI_CALL_REL (E8).
 * Indirect:      X86_COFI_JMP_IND (FF /4), X86_COFI_CALL_IND (FF /2),
 *                X86_COFI_RET (C3, C2 iw).
 * Far transfers: everything from X86_COFI_JMP_FAR on.
 */
enum x86_cofi_kind {
	X86_COFI_NONE = 0,	/* not a COFI */
	X86_COFI_JCC,		/* 70-7F, 0F 80-8F, E0-E3 */
	X86_COFI_JMP_REL,	/* EB cb, E9 cd/cw */
	X86_COFI_CALL_REL,	/* E8 cd/cw */
	X86_COFI_JMP_IND,	/* FF /4 */
	X86_COFI_CALL_IND,	/* FF /2 */
	X86_COFI_RET,		/* C3, C2 iw: near return */
	X86_COFI_JMP_FAR,	/* EA cp (not in 64-bit mode), FF /5 */
	X86_COFI_CALL_FAR,	/* 9A cp (not in 64-bit mode), FF /3 */
	X86_COFI_RET_FAR,	/* CB, CA iw */
	X86_COFI_IRET,		/* CF: IRET/IRETD/IRETQ */
	X86_COFI_INT,		/* CD ib: INT n */
	X86_COFI_INT3,		/* CC */
	X86_COFI_INT1,		/* F1: INT1/ICEBP */
	X86_COFI_INTO,		/* CE (not in 64-bit mode) */
	X86_COFI_SYSCALL,	/* 0F 05 */
	X86_COFI_SYSRET,	/* 0F 07 */
	X86_COFI_SYSENTER,	/* 0F 34 */
	X86_COFI_SYSEXIT,	/* 0F 35 */
	X86_COFI_VMENTRY,	/* 0F 01 C2 VMLAUNCH, 0F 01 C3 VMRESUME */
	X86_COFI_UD,		/* 0F 0B UD2, 0F B9 UD1, 0F FF UD0: raise #UD */
	X86_COFI_NR_KINDS
};

/* What x86_cofi_decode() found. */
struct x86_cofi {
	enum x86_cofi_kind kind;
	uint8_t len;		/* instruction length in bytes, 1..15 */
	uint8_t disp_size;	/* bytes of relative displacement (direct/JCC), else 0 */
	int32_t disp;		/* sign-extended relative displacement (direct/JCC) */
	uint8_t opsize;		/* effective operand size in bits: 16, 32 or 64 */
};

/**
 * x86_cofi_decode() - classify and measure one instruction.
 * @buf:  the instruction bytes, starting at the instruction's first byte.
 * @size: number of valid bytes at @buf (at most X86_MAX_INSN_LEN are read).
 * @mode: execution mode of the code segment (SDM 33.4.2.8 MODE.Exec).
 * @out:  receives kind, length, displacement; untouched on error.
 *
 * Near branches with an operand-size prefix in 64-bit mode are decoded as
 * Intel processors execute them: the prefix is ignored and the
 * displacement is 32 bits (SDM Vol. 2, JMP/CALL/Jcc "64-bit mode").
 *
 * Return: 0 on success;
 *         -EINVAL if @buf or @out is NULL or @mode is not an enum x86_mode;
 *         -EAGAIN if @size bytes end before the instruction does ("need more
 *                 bytes": the caller may retry with a longer buffer);
 *         -EILSEQ if the bytes are no valid instruction in @mode (undefined
 *                 opcode, or longer than X86_MAX_INSN_LEN bytes) - executing
 *                 them raises #UD or #GP, so the caller treats them as such.
 */
int x86_cofi_decode(const uint8_t *buf, size_t size, enum x86_mode mode,
		    struct x86_cofi *out);

/**
 * x86_cofi_target() - target of a direct branch (JCC, JMP_REL, CALL_REL).
 * @c:  a decoded instruction of one of those kinds.
 * @ip: the linear address of its first byte.
 *
 * Computes ip + len + disp, truncated to the operand size (16- or 32-bit
 * operand size wraps the instruction pointer, SDM Vol. 2 JMP "Operation").
 *
 * Return: the branch target; @ip + len for any other kind.
 */
uint64_t x86_cofi_target(const struct x86_cofi *c, uint64_t ip);

/**
 * x86_cofi_kind_name() - printable name of a kind, e.g. "jcc", "ret".
 * @kind: any value.
 *
 * Return: a static string; "?" for values outside enum x86_cofi_kind.
 */
const char *x86_cofi_kind_name(enum x86_cofi_kind kind);

/* True for the kinds PT traces with a TIP or TNT bit (near indirect or RET). */
static inline bool x86_cofi_is_near_indirect(enum x86_cofi_kind k)
{
	return k == X86_COFI_JMP_IND || k == X86_COFI_CALL_IND ||
	       k == X86_COFI_RET;
}

/* True for the far transfers of SDM Table 33-1 (and the #UD raisers). */
static inline bool x86_cofi_is_far(enum x86_cofi_kind k)
{
	return k >= X86_COFI_JMP_FAR && k < X86_COFI_NR_KINDS;
}

/*
 * True for the kinds that leave user mode by themselves, trapping (SYSCALL,
 * SYSENTER, INT n, INT3, INT1, INTO) or faulting (#UD of UD0/1/2,
 * VMLAUNCH/VMRESUME outside VMX operation; #GP of SYSRET/SYSEXIT at CPL 3).
 */
static inline bool x86_cofi_enters_kernel(enum x86_cofi_kind k)
{
	switch (k) {
	case X86_COFI_SYSCALL:
	case X86_COFI_SYSENTER:
	case X86_COFI_INT:
	case X86_COFI_INT3:
	case X86_COFI_INT1:
	case X86_COFI_INTO:
	case X86_COFI_UD:
	case X86_COFI_SYSRET:
	case X86_COFI_SYSEXIT:
	case X86_COFI_VMENTRY:
		return true;
	default:
		return false;
	}
}

#endif /* LWPT_MODEL_X86_COFI_H */
