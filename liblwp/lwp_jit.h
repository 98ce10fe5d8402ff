/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp JIT call sequences (issue 18): the layout shared by the encoder
 * and trampoline (lwp_jit.c) and the trampoline's fast path
 * (lwp_emu_fast.c). See Documentation/liblwp.rst, "JIT call sequences".
 *
 * The sequence emitted for the emulation backend, position-independent
 * (no relocation: it may be copied anywhere in the process):
 *
 *   +0   48 8D 64 24 80            lea  -128(%rsp), %rsp   skip the red zone
 *   +5   FF 15 <2+k> 00 00 00      call *(2+k)(%rip)       the quad at +13+k
 *   +11  EB 37                     jmp  +68                over the data
 *   +13  <k bytes CC>              k = 0..7: the quad 8-byte aligned where
 *   +13+k <8 bytes>                &lwp__jit_tramp          it was encoded
 *   +21+k <7-k bytes CC>
 *   +28  <struct lwp_jit_desc>     the instruction
 *   +68  48 8D A4 24 80 00 00 00   lea  128(%rsp), %rsp
 *   +76                            next instruction
 *
 * LEA and JMP change no flag. The quad is aligned at the address the
 * sequence was encoded for, so that the CALL's load does not raise #AC
 * with RFLAGS.AC = 1 (Linux sets CR0.AM: SIGBUS); a copy keeps that if it
 * keeps the address modulo 8. The trampoline clears AC for its own work
 * and restores RFLAGS. It saves RFLAGS and every GPR
 * into a struct lwp_jit_frame on the stack, runs the instruction (again,
 * after a fault it signalled and the handler returned: the hardware
 * restarts a faulting instruction) and returns where it was called from:
 * the return address is never changed, so returns stay predicted and a
 * shadow stack (CET) agrees.
 */
#ifndef LIBLWP_LWP_JIT_H
#define LIBLWP_LWP_JIT_H

#include <stdint.h>

#include <lwpt/compiler.h>

#define LWP_JIT_OFF_RET		11u	/* the return address of the call */
#define LWP_JIT_OFF_QUAD	13u	/* the trampoline's address, + 0..7 */
#define LWP_JIT_QUAD_SLACK	7u	/* bytes to align it */
#define LWP_JIT_OFF_DESC	(LWP_JIT_OFF_QUAD + 8u + LWP_JIT_QUAD_SLACK)
#define LWP_JIT_DESC_SIZE	40u
#define LWP_JIT_OFF_RESUME	(LWP_JIT_OFF_DESC + LWP_JIT_DESC_SIZE)
#define LWP_JIT_SEQ_LEN		(LWP_JIT_OFF_RESUME + 8u)
#define LWP_JIT_RED_ZONE	128u	/* System V AMD64 ABI §3.2.2 */

/* lwp_jit_desc.flags */
#define LWP_JIT_DESC_IP		0x01u	/* store desc.ip as InstructionAddress */
/* lwp_jit_desc.data1_reg of a memory operand */
#define LWP_JIT_DESC_MEM	0xffu

/* The instruction, in the code stream (byte-aligned: read as packed). */
struct lwp_jit_desc {
	uint8_t raw_len;	/* bytes of raw[] (the instruction as lwp_encode()) */
	uint8_t flags;		/* LWP_JIT_DESC_* */
	uint8_t op;		/* enum lwp_insn_op */
	uint8_t opsize;		/* 32 or 64 */
	uint8_t data2_reg;	/* vvvv register (LWPINS/LWPVAL) */
	uint8_t data1_reg;	/* ModRM.rm register, or LWP_JIT_DESC_MEM */
	uint8_t pad0[2];
	uint32_t imm;		/* LWPINS/LWPVAL imm32 */
	uint8_t raw[15];	/* the raw instruction: the slow path decodes it */
	uint8_t pad1[5];
	uint64_t ip;		/* with LWP_JIT_DESC_IP */
} __attribute__((packed));

LWPT_STATIC_ASSERT(sizeof(struct lwp_jit_desc) == LWP_JIT_DESC_SIZE, "sequence layout");

/* What the trampoline saves (lwp__jit_tramp in lwp_jit.c). */
struct lwp_jit_frame {
	uint64_t gpr[16];	/* encoding order; gpr[4] = RSP of the JIT code */
	uint64_t rflags;
	uint64_t ret;		/* sequence + LWP_JIT_OFF_RET */
};

LWPT_STATIC_ASSERT(sizeof(struct lwp_jit_frame) == 144, "trampoline frame");

/*
 * lwp__jit_fast() (lwp_emu_fast.c): the fast path for the frame @f.
 * Returns 0 if done (f->rflags updated), 1 for the slow path.
 * lwp__jit_slow() (lwp_jit.c): everything else, vector state saved.
 * Returns 0 if done (f updated), 1 to run it again (a fault was signalled
 * and the handler returned).
 */
int lwp__jit_fast(struct lwp_jit_frame *f) __attribute__((visibility("hidden")));
int lwp__jit_slow(struct lwp_jit_frame *f) __attribute__((visibility("hidden")));

#endif /* LIBLWP_LWP_JIT_H */
