/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * lwp_xop: decoder for the XOP-encoded LWP instructions (43724 §5) and the
 * glue that executes a decoded instruction on the model.
 *
 * Used by lwpt_sim.ko's #UD emulation and liblwp's SIGILL handler. Decodes
 * 64-bit mode code as GNU as emits it: every GPR incl. r8-r15 (XOP.R/X/B are
 * stored inverted, vvvv inverted), every ModRM/SIB/disp8/disp32 form,
 * RIP-relative, operand size from XOP.W, segment (FS/GS apply their base) and
 * address-size (67h) prefixes.
 */
#ifndef LWPT_MODEL_LWP_XOP_H
#define LWPT_MODEL_LWP_XOP_H

#include "model/model_env.h"
#include "model/lwp/lwp_model.h"

/* Decoder results (negative = no instruction decoded). */
enum lwp_xop_status {
	LWP_XOP_OK = 0,
	LWP_XOP_NOT_LWP = -1,	/* not LLWPCB/SLWPCB/LWPINS/LWPVAL */
	LWP_XOP_NEED_MORE = -2,	/* bytes end inside a possible LWP insn */
	/*
	 * An LWP opcode whose encoding raises #UD: mod != 11b or vvvv != 1111b
	 * for LLWPCB/SLWPCB, pp != 0, a 66/F2/F3/F0/REX prefix.
	 */
	LWP_XOP_INVALID = -3,
};

/* Text for a status; never NULL. */
const char *lwp_xop_status_str(int status);

enum lwp_xop_insn {
	LWP_XOP_LLWPCB = 1,
	LWP_XOP_SLWPCB,
	LWP_XOP_LWPINS,
	LWP_XOP_LWPVAL,
};

/* Segment override prefixes. */
enum lwp_xop_seg {
	LWP_XOP_SEG_NONE = 0, LWP_XOP_SEG_ES, LWP_XOP_SEG_CS, LWP_XOP_SEG_SS,
	LWP_XOP_SEG_DS, LWP_XOP_SEG_FS, LWP_XOP_SEG_GS,
};

/*
 * GPR numbering is the x86 encoding: 0 = rax, 1 = rcx, 2 = rdx, 3 = rbx,
 * 4 = rsp, 5 = rbp, 6 = rsi, 7 = rdi, 8..15 = r8..r15.
 */
struct lwp_xop_regs {
	uint64_t gpr[16];
	uint64_t rip;
	uint64_t rflags;
	uint64_t fs_base;
	uint64_t gs_base;
};

#define LWP_XOP_RFLAGS_CF	(1ull << 0)

struct lwp_xop_insn_info {
	enum lwp_xop_insn insn;
	unsigned int length;	/* bytes, prefixes included */
	unsigned int opsize;	/* 32 or 64 (XOP.W) */
	unsigned int addrsize;	/* 64, or 32 with a 67h prefix */
	enum lwp_xop_seg seg;
	unsigned int reg;	/* ModRM.rm register (if !rm_is_mem) */
	unsigned int vvvv;	/* LWPINS/LWPVAL: the vvvv register (src1) */
	bool rm_is_mem;
	bool rip_relative;
	int base;		/* memory: base register, -1 none (or RIP) */
	int index;		/* memory: index register, -1 none */
	unsigned int scale;	/* 1, 2, 4, 8 */
	int32_t disp;
	uint32_t imm;		/* LWPINS/LWPVAL imm32 */
	uint64_t mem_addr;	/* memory: linear address (needs regs) */
};

/*
 * Decode the instruction at `bytes` (`len` bytes available, at most 15 used)
 * executing at regs->rip. `regs` may be NULL: then mem_addr is left 0.
 * Returns LWP_XOP_OK and fills *info, or a negative enum lwp_xop_status.
 */
int lwp_xop_decode(const uint8_t *bytes, size_t len, const struct lwp_xop_regs *regs,
		   struct lwp_xop_insn_info *info);

/*
 * Write `value` to GPR `reg` with x86 operand-size rules: 64 bits as is,
 * 32 bits zero-extended to 64, 16 bits merged into the low word.
 */
void lwp_xop_write_gpr(struct lwp_xop_regs *regs, unsigned int reg, uint64_t value,
		       unsigned int opsize);

/*
 * Execute a decoded LWP instruction on the model: reads the operands from
 * `regs`, calls lwp_model_llwpcb/slwpcb/lwpins/lwpval, writes SLWPCB's
 * result register, LWPINS's CF, and on success advances regs->rip by the
 * length and reports the retirement (lwp_model_insn_retired). On an
 * exception regs is unchanged and the result carries it. NULL arguments or
 * an unknown info->insn give #UD.
 */
struct lwp_model_result lwp_xop_execute(struct lwp_model *m, const struct lwp_xop_insn_info *info,
					struct lwp_xop_regs *regs);

#endif /* LWPT_MODEL_LWP_XOP_H */
