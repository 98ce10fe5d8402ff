// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp: JIT call sequences (issue 18; 43724 §5.1-§5.4).
 *
 * A JIT that emits LWPVAL/LWPINS inline meets the emulation backend on
 * every CPU sold since 2017, and a raw LWP instruction there costs a
 * SIGILL round trip (about 10 us). lwp_jit_encode() emits instead a short
 * call sequence (layout in lwp_jit.h) into a trampoline that has the
 * instruction's exact architectural effect on the calling thread's model:
 *
 *  - every GPR and RFLAGS preserved, except LWPINS's CF (§5.4) and
 *    SLWPCB's destination (§5.2); the System V red zone (128 bytes below
 *    RSP) is stepped over before anything is pushed;
 *  - the fast path (lwp_emu_fast.c) uses general registers only; the slow
 *    path saves the whole extended state (XSAVE with every XCR0 component,
 *    else FXSAVE) around the model, so no vector, x87 or MXCSR register
 *    changes; DF is cleared for the C code and restored with RFLAGS;
 *  - the slow path executes the very bytes of the raw instruction, which
 *    the descriptor carries, with the decoder and executor the SIGILL
 *    handler uses (model/lwp/lwp_xop): same operands, same faults, same
 *    records. RIP-relative operands are relative to the end of the
 *    sequence (the next instruction, as for the raw instruction);
 *  - a fault (#UD, #GP, #PF) is delivered as the signal Linux sends, then
 *    the instruction runs again, as the hardware restarts a faulting
 *    instruction after the handler returns (the handler sees RIP inside
 *    liblwp, not at the sequence).
 *
 * InstructionAddress is the address of the sequence's first byte, computed
 * when it runs (the code may be copied anywhere), or the value the JIT
 * gives.
 */
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "model/lwp/lwp_xop.h"
#include "liblwp/lwp_emu.h"
#include "liblwp/lwp_internal.h"
#include "liblwp/lwp_jit.h"

LWPT_STATIC_ASSERT(LWP_JIT_SEQ_LEN <= LWP_JIT_MAX_LEN, "lwp.h bound");

/*
 * Extended state saved by the slow path (read by the trampoline): bytes of
 * stack for it, at least the 512-byte FXSAVE area plus the 64-byte XSAVE
 * header the trampoline clears in both cases.
 */
#define JIT_FXSAVE_SIZE	576u
/*
 * The XSAVE mask: every component but LWP's (XCR0 bit 62, 43724 §7.1). The
 * model never touches the CPU's LWP state, and under lwpt.ko XCR0[62] (so
 * the XSAVE area's size) differs per thread: with bit 62 the area probed
 * once per process could be too small for a thread with a hardware session
 * (issue 28, finding 6). EDX:EAX, bit 62 = EDX bit 30.
 */
#define JIT_XSAVE_MASK_HI	"0xbfffffff"
#define JIT_XSAVE_LWP_BIT	62u
uint64_t lwp__jit_xsave_size __attribute__((visibility("hidden"))) = JIT_FXSAVE_SIZE;
uint8_t lwp__jit_use_xsave __attribute__((visibility("hidden")));

void lwp__jit_tramp(void) __attribute__((visibility("hidden")));

/*
 * The trampoline. Entered from "call *2(%rip)" at sequence + 5, RSP 128
 * bytes below the JIT code's, any alignment. Frame (struct lwp_jit_frame):
 * gpr[16] at 0, RFLAGS at 128, the return address at 136; the JIT code's
 * RSP is frame + 144 + 128. RBX keeps the frame across the calls.
 */
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.type lwp__jit_tramp,@function\n"
	"lwp__jit_tramp:\n"
	"	endbr64\n"			/* an indirect call's target (CET) */
	"	pushfq\n"
	/* RFLAGS.AC = 0 until the POPFQ below: the C code may read the
	 * descriptor unaligned (the saved RFLAGS keep AC). A POPFQ costs:
	 * only when AC is set. */
	"	testl	$0x40000, (%rsp)\n"
	"	jnz	5f\n"
	"6:\n"
	"	sub	$128, %rsp\n"
	"	mov	%rax, 0(%rsp)\n"
	"	mov	%rcx, 8(%rsp)\n"
	"	mov	%rdx, 16(%rsp)\n"
	"	mov	%rbx, 24(%rsp)\n"
	"	lea	272(%rsp), %rax\n"
	"	mov	%rax, 32(%rsp)\n"
	"	mov	%rbp, 40(%rsp)\n"
	"	mov	%rsi, 48(%rsp)\n"
	"	mov	%rdi, 56(%rsp)\n"
	"	mov	%r8, 64(%rsp)\n"
	"	mov	%r9, 72(%rsp)\n"
	"	mov	%r10, 80(%rsp)\n"
	"	mov	%r11, 88(%rsp)\n"
	"	mov	%r12, 96(%rsp)\n"
	"	mov	%r13, 104(%rsp)\n"
	"	mov	%r14, 112(%rsp)\n"
	"	mov	%r15, 120(%rsp)\n"
	"	cld\n"				/* the C ABI wants DF = 0 */
	"	mov	%rsp, %rbx\n"
	"	mov	%rsp, %rdi\n"
	"	and	$-16, %rsp\n"
	"	call	lwp__jit_fast\n"
	"	test	%eax, %eax\n"
	"	jz	3f\n"
	/* Slow path: save the extended state (XSAVE area 64-byte aligned,
	 * its header zeroed as XRSTOR requires, SDM vol. 1 13.4.2). */
	"	sub	lwp__jit_xsave_size(%rip), %rsp\n"
	"	and	$-64, %rsp\n"
	"	xor	%eax, %eax\n"
	"	mov	$8, %ecx\n"
	"	lea	512(%rsp), %rdi\n"
	"	rep stosq\n"
	"	cmpb	$0, lwp__jit_use_xsave(%rip)\n"
	"	je	1f\n"
	"	mov	$-1, %eax\n"
	"	mov	$" JIT_XSAVE_MASK_HI ", %edx\n"
	"	xsave64	(%rsp)\n"
	"	jmp	2f\n"
	"1:	fxsave64 (%rsp)\n"
	"2:	mov	%rbx, %rdi\n"
	"	call	lwp__jit_slow\n"
	"	test	%eax, %eax\n"
	"	jnz	2b\n"			/* restart after a fault */
	"	cmpb	$0, lwp__jit_use_xsave(%rip)\n"
	"	je	4f\n"
	"	mov	$-1, %eax\n"
	"	mov	$" JIT_XSAVE_MASK_HI ", %edx\n"
	"	xrstor64 (%rsp)\n"
	"	jmp	3f\n"
	"4:	fxrstor64 (%rsp)\n"
	"3:	mov	%rbx, %rsp\n"
	"	mov	0(%rsp), %rax\n"
	"	mov	8(%rsp), %rcx\n"
	"	mov	16(%rsp), %rdx\n"
	"	mov	24(%rsp), %rbx\n"
	"	mov	40(%rsp), %rbp\n"
	"	mov	48(%rsp), %rsi\n"
	"	mov	56(%rsp), %rdi\n"
	"	mov	64(%rsp), %r8\n"
	"	mov	72(%rsp), %r9\n"
	"	mov	80(%rsp), %r10\n"
	"	mov	88(%rsp), %r11\n"
	"	mov	96(%rsp), %r12\n"
	"	mov	104(%rsp), %r13\n"
	"	mov	112(%rsp), %r14\n"
	"	mov	120(%rsp), %r15\n"
	"	add	$128, %rsp\n"
	"	popfq\n"
	"	ret\n"
	"5:	pushfq\n"
	"	andl	$0xfffbffff, (%rsp)\n"
	"	popfq\n"
	"	jmp	6b\n"
	"	.size lwp__jit_tramp, .-lwp__jit_tramp\n");

int lwp__jit_slow(struct lwp_jit_frame *f)
{
	uint8_t *seq = (uint8_t *)(uintptr_t)f->ret - LWP_JIT_OFF_RET;
	struct lwp_jit_desc d;
	struct lwp_xop_insn_info info;
	struct lwp_xop_regs regs;
	int ret;

	memcpy(&d, seq + LWP_JIT_OFF_DESC, sizeof(d));
	memset(&regs, 0, sizeof(regs));
	memcpy(regs.gpr, f->gpr, sizeof(regs.gpr));
	regs.rflags = f->rflags;
	/* RIP-relative: the raw instruction ends where the sequence ends. */
	regs.rip = (uint64_t)(uintptr_t)seq + LWP_JIT_SEQ_LEN - d.raw_len;
	if (d.raw_len > sizeof(d.raw) ||
	    lwp_xop_decode(d.raw, d.raw_len, &regs, &info) != LWP_XOP_OK)
		memset(&info, 0, sizeof(info));	/* not ours: #UD below */
	regs.rip = (d.flags & LWP_JIT_DESC_IP) ? d.ip : (uint64_t)(uintptr_t)seq;
	ret = lwp_emu_exec(&info, &regs);
	if (ret < 0)
		return 1;	/* signalled; the handler returned: again */
	if (ret == 0) {
		regs.gpr[LWP_REG_RSP] = f->gpr[LWP_REG_RSP];
		memcpy(f->gpr, regs.gpr, sizeof(f->gpr));
		f->rflags = regs.rflags;
	}
	return 0;
}

/*
 * XSAVE if the OS enabled it (CPUID.1:ECX.OSXSAVE[27]). The area holds every
 * component XSAVE may write with our mask on any thread: the end of the
 * furthest one the processor supports (CPUID.(EAX=0DH,ECX=0):EDX:EAX, each
 * at CPUID.(EAX=0DH,ECX=i):EBX offset, EAX bytes; SDM vol. 1 13.2), LWP's
 * excluded, whatever XCR0 this thread has now.
 */
static void xsave_probe(void)
{
	unsigned int a, b, c, d, i, end, size = JIT_FXSAVE_SIZE;
	uint64_t supported;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	__cpuid_count(0xd, 0, a, b, c, d);
	supported = (uint64_t)d << 32 | a;
	for (i = 2; i < 64; i++) {
		if (!(supported >> i & 1) || i == JIT_XSAVE_LWP_BIT)
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		end = b + a;
		if (end > size)
			size = end;
	}
	lwp__jit_xsave_size = size;
	lwp__jit_use_xsave = 1;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static const uint8_t seq_head[LWP_JIT_OFF_QUAD] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,		/* lea -128(%rsp), %rsp */
	0xff, 0x15,				/* call *disp32(%rip): the quad */
	LWP_JIT_OFF_QUAD - LWP_JIT_OFF_RET, 0x00, 0x00, 0x00,	/* + k */
	0xeb, LWP_JIT_OFF_RESUME - LWP_JIT_OFF_QUAD,	/* jmp over the data */
};
static const uint8_t seq_tail[LWP_JIT_SEQ_LEN - LWP_JIT_OFF_RESUME] = {
	0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,	/* lea 128(%rsp), %rsp */
};

static int emit_emu(uint8_t *buf, const struct lwp_insn *insn, const uint8_t *raw,
		    int raw_len, const uint64_t *ip)
{
	struct lwp_jit_desc d;
	uint64_t tramp = (uint64_t)(uintptr_t)&lwp__jit_tramp;
	unsigned int k;

	memset(&d, 0, sizeof(d));
	d.raw_len = (uint8_t)raw_len;
	memcpy(d.raw, raw, (size_t)raw_len);
	d.op = (uint8_t)insn->op;
	d.opsize = (uint8_t)insn->opsize;
	d.data2_reg = (uint8_t)(insn->reg & 15);
	d.data1_reg = insn->rm == LWP_RM_MEM ? LWP_JIT_DESC_MEM : (uint8_t)insn->rm;
	d.imm = insn->imm;
	if (ip) {
		d.flags |= LWP_JIT_DESC_IP;
		d.ip = *ip;
	}
	/* The quad 8-byte aligned at @buf's address (#AC, lwp_jit.h). */
	k = (unsigned int)(-((uintptr_t)buf + LWP_JIT_OFF_QUAD) & 7u);
	memcpy(buf, seq_head, sizeof(seq_head));
	buf[7] = (uint8_t)(LWP_JIT_OFF_QUAD - LWP_JIT_OFF_RET + k);
	memset(buf + LWP_JIT_OFF_QUAD, 0xcc, LWP_JIT_OFF_DESC - LWP_JIT_OFF_QUAD);
	memcpy(buf + LWP_JIT_OFF_QUAD + k, &tramp, sizeof(tramp));
	memcpy(buf + LWP_JIT_OFF_DESC, &d, sizeof(d));
	memcpy(buf + LWP_JIT_OFF_RESUME, seq_tail, sizeof(seq_tail));
	return (int)LWP_JIT_SEQ_LEN;
}

int lwp_jit_encode(const struct lwp_session *s, const struct lwp_insn *insn,
		   const uint64_t *ip, uint8_t *buf, size_t size)
{
	uint8_t raw[LWP_INSN_MAX_LEN];
	int raw_len, len, ud2;

	if (!s || !insn)
		return -EINVAL;
	raw_len = lwp_encode(raw, insn);
	if (raw_len < 0)
		return raw_len;
	/* The call sequence keeps the JIT code's RSP: SLWPCB's result would be
	 * lost there; refused on every backend alike (issue 28, finding 6). */
	if (insn->op == LWP_INSN_SLWPCB && insn->reg == LWP_REG_RSP)
		return -EINVAL;
	if (s->ops->jit_sequence) {
		len = (int)LWP_JIT_SEQ_LEN;
		ud2 = 0;
	} else {
		if (ip)
			return -EOPNOTSUPP;	/* the CPU stores its own RIP */
		ud2 = s->caps.hw_ud2_marker ? 2 : 0;
		len = ud2 + raw_len;
	}
	if (!buf)
		return len;
	if (size < (size_t)len)
		return -ENOSPC;
	if (s->ops->jit_sequence) {
		pthread_once(&probe_once, xsave_probe);
		return emit_emu(buf, insn, raw, raw_len, ip);
	}
	if (ud2) {
		buf[0] = 0x0f;			/* UD2, see lwp_caps.hw_ud2_marker */
		buf[1] = 0x0b;
	}
	memcpy(buf + ud2, raw, (size_t)raw_len);
	return len;
}
