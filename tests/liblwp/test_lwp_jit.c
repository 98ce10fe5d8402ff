// SPDX-License-Identifier: GPL-2.0
/*
 * JIT call sequences (lwp_jit_encode(), issue 18) against trapped raw
 * instructions on the emulation backend (43724 §5.1-§5.4, Figures 2-2 and
 * 2-8).
 *
 * For every operand form (each of the 16 registers as Data1 and as Data2,
 * 32- and 64-bit operand size, memory Data1 with base, index, scale, disp8/
 * disp32, RIP-relative, index only, RSP/RBP/R13 bases, 32-bit address
 * size; SLWPCB and LLWPCB) the test writes one function at a fixed address:
 * it loads all GPRs, RFLAGS (CF, PF, ZF, SF, DF, OF set) and XMM0-15 from a
 * block, fills the red zone, runs the LWP code at address A, and stores
 * them and the red zone back. It runs the
 * function with the raw instruction at A (trapped: SIGILL), then with the
 * call sequence at A, each on a fresh session, and compares: the records
 * byte for byte (InstructionAddress = A in both), CF, every register after
 * the code, and that nothing else changed. RIP-relative displacements are
 * computed for each code's own end, as an assembler would.
 * Also: a fault of the memory operand (SIGSEGV, handler maps the page and
 * returns: the instruction restarts) gives the same result both ways; the
 * length query; argument errors; and a reader thread draining the ring
 * while the owner runs call sequences (43724 §1.1 polling, §8.3).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "tests/check_run.h"

#define RFLAGS_IN	0xEC7ull	/* CF PF ZF SF IF DF OF + bit 1 */
#define RFLAGS_CF	1ull
#define REPEAT		3		/* executions per mode */

struct block {
	uint64_t gpr[16];
	uint64_t rflags;
	uint64_t pad;
	uint8_t xmm[16][16];
	uint64_t red[16];	/* red[i]: the red-zone slot -8(i+1)(%rsp) after */
};

static uint8_t *code;		/* RWX page run */
static uint8_t *code_a;		/* A: where the LWP code is */
static uint8_t *data;		/* below 4 GiB: 32-bit addresses work */
static size_t page;

static uint8_t *put(uint8_t *p, const void *b, size_t n)
{
	memcpy(p, b, n);
	return p + n;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	return put(p, &v, 4);
}

/* mov reg, disp32(%rdi) (load) or mov disp32(%rdi), reg (store). */
static uint8_t *mov_rdi(uint8_t *p, int reg, uint32_t off, int store)
{
	*p++ = (uint8_t)(0x48 | (reg >= 8 ? 4 : 0));
	*p++ = store ? 0x89 : 0x8b;
	*p++ = (uint8_t)(0x80 | (reg & 7) << 3 | 7);
	return put32(p, off);
}

/* movdqu xmmN, disp32(%rdi) / movdqu disp32(%rdi), xmmN. */
static uint8_t *movdqu_rdi(uint8_t *p, int x, uint32_t off, int store)
{
	*p++ = 0xf3;
	if (x >= 8)
		*p++ = 0x44;
	*p++ = 0x0f;
	*p++ = store ? 0x7f : 0x6f;
	*p++ = (uint8_t)(0x80 | (x & 7) << 3 | 7);
	return put32(p, off);
}

/* Prologue; returns A, the address of the LWP code. */
static uint8_t *emit_prologue(uint8_t *p)
{
	static const uint8_t push[] = { 0x53, 0x55, 0x41, 0x54, 0x41, 0x55,
					0x41, 0x56, 0x41, 0x57, 0x57 };
	static const uint8_t flags[] = { 0xff, 0xb7, 128, 0, 0, 0, 0x9d };
	int i;

	p = put(p, push, sizeof(push));		/* callee-saved, block */
	for (i = 0; i < 16; i++)
		p = movdqu_rdi(p, i, (uint32_t)offsetof(struct block, xmm[i]), 0);
	for (i = 0; i < 16; i++)
		if (i != 4 && i != 7)
			p = mov_rdi(p, i, (uint32_t)(8 * i), 0);
	p = put(p, flags, sizeof(flags));	/* push 128(%rdi); popfq */
	p = mov_rdi(p, 7, 56, 0);		/* rdi last */
	/* The red zone (System V ABI §3.2.2): register i at -8(i+1)(%rsp). */
	for (i = 0; i < 16; i++) {
		if (i == 4)
			continue;
		*p++ = (uint8_t)(0x48 | (i >= 8 ? 4 : 0));
		*p++ = 0x89;
		*p++ = (uint8_t)(0x40 | (i & 7) << 3 | 4);
		*p++ = 0x24;
		*p++ = (uint8_t)(int8_t)(-8 * (i + 1));
	}
	return p;
}

static void emit_epilogue(uint8_t *p)
{
	static const uint8_t head[] = { 0x9c, 0x57, 0x48, 0x8b, 0x7c, 0x24, 0x10 };
	static const uint8_t tail[] = {
		0x58, 0x48, 0x89, 0x87, 56, 0, 0, 0,	/* pop rax: rdi */
		0x58, 0x48, 0x89, 0x87, 128, 0, 0, 0,	/* pop rax: rflags */
		0x5f, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c,
		0x5d, 0x5b, 0xfc, 0xc3,			/* pops, cld, ret */
	};
	int i;

	p = put(p, head, sizeof(head));		/* pushfq; push rdi; mov 16(%rsp),%rdi */
	for (i = 0; i < 16; i++)
		if (i != 4 && i != 7)
			p = mov_rdi(p, i, (uint32_t)(8 * i), 1);
	for (i = 0; i < 16; i++)
		p = movdqu_rdi(p, i, (uint32_t)offsetof(struct block, xmm[i]), 1);
	/* The red zone, but for the two slots the epilogue pushed into. */
	for (i = 2; i < 16; i++) {
		if (i == 4)
			continue;
		*p++ = 0x48;			/* mov 8-8i(%rsp), %rax */
		*p++ = 0x8b;
		*p++ = 0x44;
		*p++ = 0x24;
		*p++ = (uint8_t)(int8_t)(8 - 8 * i);
		p = mov_rdi(p, 0, (uint32_t)offsetof(struct block, red[i]), 1);
	}
	put(p, tail, sizeof(tail));
}

struct result {
	struct lwp_event ev[16];
	ssize_t n;
	struct block out[REPEAT];
};

/*
 * Build the function with @insn at A (raw or as a sequence for @s) and run
 * it REPEAT times on @in; RIP-relative operands address @target.
 */
static void run(struct lwp_session *s, struct lwp_insn insn, int seq, uint64_t target,
		const struct block *in, struct result *res)
{
	uint8_t *a;
	int len, i;

	ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_WRITE), 0);
	a = emit_prologue(code);
	code_a = a;
	if (insn.rm == LWP_RM_MEM && insn.mem.base == LWP_REG_RIP) {
		len = seq ? lwp_jit_encode(s, &insn, NULL, NULL, 0) : lwp_encode(a, &insn);
		ck_assert_int_gt(len, 0);
		insn.mem.disp = (int32_t)(target - ((uint64_t)(uintptr_t)a + (uint64_t)len));
		insn.mem.disp32 = 1;
	}
	len = seq ? lwp_jit_encode(s, &insn, NULL, a, LWP_JIT_MAX_LEN) : lwp_encode(a, &insn);
	ck_assert_int_gt(len, 0);
	if (seq)	/* a call sequence, not the raw instruction */
		ck_assert_int_gt(len, LWP_INSN_MAX_LEN);
	emit_epilogue(a + len);
	ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_EXEC), 0);
	__builtin___clear_cache((char *)code, (char *)code + page);
	for (i = 0; i < REPEAT; i++) {
		/* One block for both modes: [rsp] at A is its address. */
		static struct block work;

		work = *in;
		((void (*)(struct block *))(void *)code)(&work);
		res->out[i] = work;
	}
	ck_assert_int_eq(lwp_stop(s), 0);
	res->n = lwp_read(s, res->ev, 16);
	ck_assert_int_ge(res->n, 0);
}

static struct lwp_session *session(int32_t interval)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;

	cfg.backend = LWP_BACKEND_EMU;
	cfg.interval[LWP_EVENT_VAL] = interval;
	cfg.buffer_records = 64;
	ck_assert_int_eq(lwp_open(&s, &cfg), 0);
	ck_assert_int_eq(lwp_start(s), 0);
	return s;
}

static void fill_in(struct block *in)
{
	int i, j;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < 16; i++) {
		in->gpr[i] = 0x0101010101010101ull * (uint64_t)(i + 1) ^ 0x8000000012345678ull;
		for (j = 0; j < 16; j++)
			in->xmm[i][j] = (uint8_t)(i * 16 + j);
	}
	in->rflags = RFLAGS_IN;
}

/* One form: raw (trapped) vs sequence; both must agree in everything. */
static void compare(const struct lwp_insn *insn, const struct block *in, int32_t interval,
		    int want_records)
{
	static struct result raw, seq;
	struct lwp_session *s;
	int i, r;

	memset(&raw, 0, sizeof(raw));
	memset(&seq, 0, sizeof(seq));
	s = session(interval);
	run(s, *insn, 0, (uint64_t)(uintptr_t)data + 64, in, &raw);
	lwp_close(s);
	s = session(interval);
	run(s, *insn, 1, (uint64_t)(uintptr_t)data + 64, in, &seq);
	/* SLWPCB returns the LWPCB: the session's, different each time. */
	if (insn->op == LWP_INSN_SLWPCB) {
		for (i = 0; i < REPEAT; i++) {
			ck_assert_uint_eq(seq.out[i].gpr[insn->reg],
					  (uint64_t)(uintptr_t)lwp_lwpcb(s, NULL));
			seq.out[i].gpr[insn->reg] = raw.out[i].gpr[insn->reg];
		}
	}
	lwp_close(s);
	ck_assert_int_eq(raw.n, seq.n);
	if (want_records)
		ck_assert_int_gt(raw.n, 0);
	ck_assert_mem_eq(raw.ev, seq.ev, (size_t)raw.n * sizeof(raw.ev[0]));
	for (i = 0; i < (int)raw.n; i++)
		ck_assert_uint_eq(raw.ev[i].inst_addr, (uint64_t)(uintptr_t)code_a);
	for (i = 0; i < REPEAT; i++) {
		ck_assert_mem_eq(&raw.out[i], &seq.out[i], sizeof(raw.out[i]));
		for (r = 0; r < 16; r++)
			if (r != 4 && !(insn->op == LWP_INSN_SLWPCB && r == insn->reg))
				ck_assert_uint_eq(seq.out[i].gpr[r], in->gpr[r]);
		ck_assert_mem_eq(seq.out[i].xmm, in->xmm, sizeof(in->xmm));
		for (r = 2; r < 16; r++)
			if (r != 4)
				ck_assert_uint_eq(seq.out[i].red[r], in->gpr[r]);
		ck_assert_uint_eq(seq.out[i].rflags & ~RFLAGS_CF & 0xfff,
				  in->rflags & ~RFLAGS_CF & 0xfff);
		if (insn->op != LWP_INSN_LWPINS)
			ck_assert_uint_eq(seq.out[i].rflags & RFLAGS_CF, RFLAGS_CF);
	}
}

static void setup(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu(), i;

	/* CoreId must be the same in both runs. */
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	/* Both below 2 GiB: RIP-relative reaches the data. */
	code = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	data = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ck_assert_ptr_ne(code, MAP_FAILED);
	ck_assert_ptr_ne(data, MAP_FAILED);
	for (i = 0; i < (int)(2 * page / 4); i++)
		((uint32_t *)(void *)data)[i] = 0xD0000000u + (uint32_t)i;
}

static void teardown(void)
{
	munmap(code, page);
	munmap(data, 2 * page);
}

static struct lwp_insn ins(uint32_t op, uint32_t opsize, int reg, int rm)
{
	struct lwp_insn i;

	memset(&i, 0, sizeof(i));
	i.op = op;
	i.opsize = opsize;
	i.reg = reg;
	i.rm = rm;
	i.imm = 0xABCD1234u;
	i.mem.base = LWP_REG_NONE;
	i.mem.index = LWP_REG_NONE;
	i.mem.scale = 1;
	return i;
}

/* Every register as Data1 and as Data2, both ops, both sizes. */
START_TEST(test_register_forms)
{
	struct block in;
	uint32_t op = (_i & 1) ? LWP_INSN_LWPVAL : LWP_INSN_LWPINS;
	uint32_t opsize = (_i & 2) ? 64 : 32;
	int r;

	fill_in(&in);
	for (r = 0; r < 16; r++) {
		struct lwp_insn a = ins(op, opsize, r, (r + 5) & 15);

		compare(&a, &in, 0, 1);
	}
}
END_TEST

/* Memory Data1 in every addressing shape (43724 §5.3/§5.4 reg/mem32). */
START_TEST(test_memory_forms)
{
	uint64_t d = (uint64_t)(uintptr_t)data;
	struct block in;
	struct {
		int base, index, scale, addr32, disp32;
		int32_t disp;
	} f[] = {
		{ LWP_REG_RBX, LWP_REG_NONE, 1, 0, 0, 0 },
		{ LWP_REG_RBP, LWP_REG_NONE, 1, 0, 0, 8 },
		{ LWP_REG_R13, LWP_REG_NONE, 1, 0, 0, 0 },
		{ LWP_REG_R12, LWP_REG_R11, 8, 0, 1, 0x100 },
		{ LWP_REG_RAX, LWP_REG_RCX, 2, 0, 0, -4 },
		{ LWP_REG_NONE, LWP_REG_RSI, 4, 0, 0, 12 },
		{ LWP_REG_NONE, LWP_REG_NONE, 1, 0, 1, 0 },	/* absolute */
		{ LWP_REG_RIP, LWP_REG_NONE, 1, 0, 1, 0 },
		{ LWP_REG_RSP, LWP_REG_NONE, 1, 0, 0, 0 },	/* the block pointer */
		{ LWP_REG_R8, LWP_REG_R9, 1, 1, 0, 16 },	/* 32-bit address */
		{ LWP_REG_RDI, LWP_REG_NONE, 1, 1, 1, 20 },
	};
	unsigned int k, op;

	fill_in(&in);
	in.gpr[LWP_REG_RBX] = d + 4;
	in.gpr[LWP_REG_RBP] = d;
	in.gpr[LWP_REG_R13] = d + 40;
	in.gpr[LWP_REG_R12] = d - 0x100 + 8;
	in.gpr[LWP_REG_RAX] = d + 100;
	in.gpr[LWP_REG_RCX] = 6;
	in.gpr[LWP_REG_R11] = 2;
	in.gpr[LWP_REG_RSI] = d / 4 + 20;
	in.gpr[LWP_REG_R8] = 0xFFFFFFFF00000000ull | (d + 200);	/* upper half ignored */
	in.gpr[LWP_REG_R9] = 0x1234567800000008ull;
	in.gpr[LWP_REG_RDI] = 0xFFFFFFFF00000000ull | d;
	for (op = LWP_INSN_LWPINS; op <= LWP_INSN_LWPVAL; op++) {
		for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
			struct lwp_insn a = ins(op, (k & 1) ? 64 : 32, (int)(k + 3) & 15, LWP_RM_MEM);

			a.mem.base = (int8_t)f[k].base;
			a.mem.index = (int8_t)f[k].index;
			a.mem.scale = (uint8_t)f[k].scale;
			a.mem.addr32 = (uint8_t)f[k].addr32;
			a.mem.disp32 = (uint8_t)f[k].disp32;
			a.mem.disp = f[k].base == LWP_REG_NONE && f[k].index == LWP_REG_NONE ?
				     (int32_t)(d + 300) : f[k].disp;
			in.gpr[LWP_REG_R13] = d + 40;
			if (a.reg == LWP_REG_R13)	/* keep r13 as it is */
				a.reg = LWP_REG_R14;
			compare(&a, &in, 0, 1);
		}
	}
}
END_TEST

/* LWPVAL whose counter does not expire every time (the fast path) and
 * the memory operand it must then not read (43724 §5.3). */
START_TEST(test_lwpval_interval)
{
	struct block in;
	struct lwp_insn a = ins(LWP_INSN_LWPVAL, 32, LWP_REG_RDX, LWP_RM_MEM);

	fill_in(&in);
	in.gpr[LWP_REG_RBX] = (uint64_t)(uintptr_t)data;
	a.mem.base = LWP_REG_RBX;
	compare(&a, &in, 1, 1);
	a.rm = LWP_REG_R10;
	compare(&a, &in, 2, 1);
}
END_TEST

/* SLWPCB writes its register (43724 §5.2); LLWPCB 0 disables (§5.1). */
START_TEST(test_slwpcb_llwpcb)
{
	struct block in;
	struct lwp_insn a = ins(LWP_INSN_SLWPCB, 64, LWP_REG_R11, 0);
	struct lwp_insn b = ins(LWP_INSN_LLWPCB, 64, LWP_REG_RSI, 0);

	fill_in(&in);
	compare(&a, &in, 0, 0);
	in.gpr[LWP_REG_RSI] = 0;
	compare(&b, &in, 0, 0);
}
END_TEST

/* liblwp/lwp_jit.c: the slow path saves with XSAVE if 1, else FXSAVE. */
extern uint8_t lwp__jit_use_xsave;

/* The FXSAVE path of the trampoline (CPUs or kernels without XSAVE). */
START_TEST(test_fxsave_path)
{
	struct lwp_insn a = ins(LWP_INSN_LWPINS, 64, LWP_REG_R9, LWP_RM_MEM);
	struct lwp_insn b = ins(LWP_INSN_SLWPCB, 64, LWP_REG_R11, 0);
	struct lwp_session *s = session(0);
	struct block in;
	uint8_t saved;

	/* The first encoding probes XSAVE; then force FXSAVE. */
	ck_assert_int_gt(lwp_jit_encode(s, &a, NULL, NULL, 0), 0);
	lwp_close(s);
	fill_in(&in);
	in.gpr[LWP_REG_RBX] = (uint64_t)(uintptr_t)data;
	a.mem.base = LWP_REG_RBX;
	saved = lwp__jit_use_xsave;
	lwp__jit_use_xsave = 0;
	compare(&a, &in, 0, 1);
	compare(&b, &in, 0, 0);
	lwp__jit_use_xsave = saved;
}
END_TEST

static volatile int segv_count;
static uint8_t *segv_page;

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((uint8_t *)si->si_addr < segv_page || (uint8_t *)si->si_addr >= segv_page + page)
		abort();
	segv_count++;
	mprotect(segv_page, page, PROT_READ | PROT_WRITE);
}

/* A #PF of the memory operand: SIGSEGV at the operand, and the instruction
 * restarts when the handler returns, both ways. */
START_TEST(test_fault_restarts)
{
	struct sigaction sa, old;
	struct block in;
	struct lwp_insn a = ins(LWP_INSN_LWPINS, 32, LWP_REG_RDX, LWP_RM_MEM);
	static struct result raw, seq;
	struct lwp_session *s;
	int mode;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO;
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, &old), 0);
	segv_page = data + page;
	fill_in(&in);
	in.gpr[LWP_REG_RBX] = (uint64_t)(uintptr_t)segv_page + 8;
	a.mem.base = LWP_REG_RBX;
	for (mode = 0; mode < 2; mode++) {
		ck_assert_int_eq(mprotect(segv_page, page, PROT_NONE), 0);
		segv_count = 0;
		s = session(0);
		run(s, a, mode, 0, &in, mode ? &seq : &raw);
		lwp_close(s);
		ck_assert_int_eq(segv_count, 1);
	}
	sigaction(SIGSEGV, &old, NULL);
	ck_assert_int_eq(raw.n, REPEAT);
	ck_assert_int_eq(seq.n, REPEAT);
	ck_assert_mem_eq(raw.ev, seq.ev, (size_t)raw.n * sizeof(raw.ev[0]));
	ck_assert_uint_eq(seq.ev[0].data1, 0xD0000000u + (uint32_t)((page + 8) / 4));
	ck_assert_mem_eq(&raw.out, &seq.out, sizeof(raw.out));
}
END_TEST

START_TEST(test_encode_api)
{
	struct lwp_insn a = ins(LWP_INSN_LWPINS, 32, LWP_REG_RDX, LWP_REG_RAX);
	struct lwp_session *s = session(0);
	uint8_t buf[LWP_JIT_MAX_LEN];
	uint64_t ip = 0x1234;
	int len = lwp_jit_encode(s, &a, NULL, NULL, 0);

	ck_assert_int_gt(len, 0);
	ck_assert_int_le(len, LWP_JIT_MAX_LEN);
	ck_assert_int_eq(lwp_jit_encode(s, &a, &ip, NULL, 0), len);
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, buf, (size_t)len - 1), -ENOSPC);
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, buf, sizeof(buf)), len);
	ck_assert_int_eq(lwp_jit_encode(NULL, &a, NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(lwp_jit_encode(s, NULL, NULL, buf, sizeof(buf)), -EINVAL);
	a.opsize = 16;
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, buf, sizeof(buf)), -EINVAL);
	/* SLWPCB into RSP: the sequence keeps RSP, the result would be lost
	 * (issue 28, finding 6). Other registers are fine. */
	a = ins(LWP_INSN_SLWPCB, 64, LWP_REG_RSP, 0);
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, NULL, 0), -EINVAL);
	a.reg = LWP_REG_RBP;
	ck_assert_int_eq(lwp_jit_encode(s, &a, NULL, buf, sizeof(buf)), len);
	lwp_close(s);
}
END_TEST

/*
 * RFLAGS.AC = 1 (issue 28, finding 6): Linux sets CR0.AM, so an unaligned
 * access at CPL 3 raises #AC (SIGBUS). The sequence's CALL loads an 8-byte
 * pointer, aligned where the sequence was encoded, at every one of the 8
 * start alignments; the trampoline's C code runs with AC clear and RFLAGS
 * (AC included) comes back as it was. Everything between setting and
 * clearing AC is in one asm block (no compiled code runs with AC = 1).
 */
START_TEST(test_alignment_check)
{
	struct lwp_insn a = ins(LWP_INSN_LWPINS, 32, LWP_REG_RDX, LWP_REG_RAX);
	struct lwp_session *s = session(0);
	struct lwp_event ev[16];
	unsigned int off;
	uint64_t flags_after;
	int len;

	for (off = 0; off < 8; off++) {
		uint8_t *p = code + 64 + off;

		ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_WRITE), 0);
		len = lwp_jit_encode(s, &a, NULL, p, LWP_JIT_MAX_LEN);
		ck_assert_int_gt(len, 0);
		p[len] = 0xc3;
		ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_EXEC), 0);
		__asm__ __volatile__("sub $128, %%rsp\n\t"
				     "pushfq\n\t"
				     "orl $0x40000, (%%rsp)\n\t"
				     "popfq\n\t"
				     "call *%1\n\t"
				     "pushfq\n\t"
				     "pop %0\n\t"
				     "pushfq\n\t"
				     "andl $0xfffbffff, (%%rsp)\n\t"
				     "popfq\n\t"
				     "add $128, %%rsp"
				     : "=&r"(flags_after)
				     : "r"(p), "a"(off), "d"(off)
				     : "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc",
				       "memory");
		ck_assert_uint_ne(flags_after & 0x40000, 0);
	}
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_int_eq(lwp_read(s, ev, 16), 8);
	for (off = 0; off < 8; off++)
		ck_assert_uint_eq(lwp_event_value(&ev[off]), off);
	lwp_close(s);
}
END_TEST

/*
 * A thread that holds LWP of the hardware backend (here: the UD2 marker of
 * lwpt_sim.ko, as lwp_open() on /dev/lwp sets it) cannot also open an
 * emulation session: its XSAVE state and instructions are the hardware's
 * (issue 28, finding 6).
 */
START_TEST(test_emu_refuses_hw_thread)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = NULL;

	cfg.backend = LWP_BACKEND_EMU;
	lwp_tls_emulated = LWP__TLS_UD2;
	ck_assert_int_eq(lwp_open(&s, &cfg), -EBUSY);
	ck_assert_ptr_null(s);
	lwp_tls_emulated = 0;
}
END_TEST

/* An explicit InstructionAddress (a bytecode address, say). */
START_TEST(test_explicit_ip)
{
	struct lwp_insn a = ins(LWP_INSN_LWPINS, 64, LWP_REG_RDX, LWP_REG_RAX);
	struct lwp_session *s = session(0);
	uint64_t ip = 0xFEEDFACE0000ull;
	struct lwp_event ev;
	uint8_t *p;
	int len;

	ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_WRITE), 0);
	len = lwp_jit_encode(s, &a, &ip, code, LWP_JIT_MAX_LEN);
	ck_assert_int_gt(len, 0);
	p = code + len;
	*p = 0xc3;			/* ret */
	ck_assert_int_eq(mprotect(code, page, PROT_READ | PROT_EXEC), 0);
	((void (*)(void))(void *)code)();
	ck_assert_int_eq(lwp_read(s, &ev, 1), 1);
	ck_assert_uint_eq(ev.inst_addr, ip);
	ck_assert_uint_eq(ev.event_id, LWP_EVENT_INS);
	lwp_close(s);
}
END_TEST

/* ---- A drain on another thread while the owner runs the fast path ------- */

#define THR_ITERS	5000000u	/* 2-3 s of CPU for both threads, quiet machine */
#define THR_RECORDS	256u		/* a small ring: it fills up, often */

struct reader {
	struct lwp_session *s;
	int done;			/* atomic: the owner has stopped */
	uint64_t seq_ip;		/* InstructionAddress of the LWPINS */
	uint64_t read, bad, disorder;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	static struct lwp_event ev[512];
	int64_t last = -1;
	ssize_t n, k;

	for (;;) {
		int done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);

		n = lwp_read(r->s, ev, 512);
		if (n < 0) {
			r->bad++;
			break;
		}
		for (k = 0; k < n; k++) {
			const struct lwp_event *e = &ev[k];

			/* Figure 2-8: a torn or stale record shows here. */
			if (e->event_id != LWP_EVENT_INS || e->flags != 1 ||
			    e->data2 != e->data1 || e->reserved || e->inst_addr != r->seq_ip)
				r->bad++;
			if ((int64_t)e->data1 <= last)
				r->disorder++;
			last = (int64_t)e->data1;
		}
		r->read += (uint64_t)n;
		if (!n && done)
			break;
	}
	return NULL;
}

/*
 * uint64_t loop(uint64_t n): for i < n { LWPINS $1, i, i; cf += CF;
 * LWPVAL $2, i, i } return cf. EventInterval1 is large: the LWPVALs only
 * count, on the fast path, concurrently with the reader.
 */
static uint64_t (*thr_loop(struct lwp_session *s, uint8_t *buf, uint64_t *ins_ip))(uint64_t)
{
	struct lwp_insn i1 = ins(LWP_INSN_LWPINS, 32, LWP_REG_RDX, LWP_REG_RAX);
	struct lwp_insn i2 = ins(LWP_INSN_LWPVAL, 32, LWP_REG_RDX, LWP_REG_RAX);
	static const uint8_t head[] = { 0x31, 0xc9, 0x45, 0x31, 0xc0 };
	static const uint8_t body[] = { 0x89, 0xc8, 0x89, 0xca };
	static const uint8_t adc[] = { 0x49, 0x83, 0xd0, 0x00 };
	static const uint8_t tail[] = { 0xff, 0xc1, 0x39, 0xf9, 0x0f, 0x82 };
	static const uint8_t ret[] = { 0x4c, 0x89, 0xc0, 0xc3 };
	uint8_t *p = buf, *loop;
	int len;

	i1.imm = 1;
	i2.imm = 2;
	p = put(p, head, sizeof(head));		/* xor ecx,ecx; xor r8d,r8d */
	loop = p;
	p = put(p, body, sizeof(body));		/* mov eax,ecx; mov edx,ecx */
	*ins_ip = (uint64_t)(uintptr_t)p;
	len = lwp_jit_encode(s, &i1, NULL, p, LWP_JIT_MAX_LEN);
	ck_assert_int_gt(len, 0);
	p = put(p + len, adc, sizeof(adc));	/* adc $0, r8 */
	len = lwp_jit_encode(s, &i2, NULL, p, LWP_JIT_MAX_LEN);
	ck_assert_int_gt(len, 0);
	p = put(p + len, tail, sizeof(tail));	/* inc ecx; cmp edi,ecx; jb */
	p = put32(p, (uint32_t)(loop - (p + 4)));
	put(p, ret, sizeof(ret));		/* mov r8,rax; ret */
	return (uint64_t (*)(uint64_t))(void *)buf;
}

START_TEST(test_drain_while_running)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct reader r;
	pthread_t th;
	uint64_t (*loop)(uint64_t), cf;
	uint8_t *buf;
	size_t sz = (size_t)sysconf(_SC_PAGESIZE);

	memset(&r, 0, sizeof(r));
	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = THR_RECORDS;
	cfg.interval[LWP_EVENT_VAL] = 0x1ffffff;
	ck_assert_int_eq(lwp_open(&r.s, &cfg), 0);
	buf = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(buf, MAP_FAILED);
	loop = thr_loop(r.s, buf, &r.seq_ip);
	ck_assert_int_eq(mprotect(buf, sz, PROT_READ | PROT_EXEC), 0);
	ck_assert_int_eq(lwp_start(r.s), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, reader_main, &r), 0);
	cf = loop(THR_ITERS);
	ck_assert_int_eq(lwp_stop(r.s), 0);
	__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* Every LWPINS was either read or reported missed by CF (§5.4). */
	ck_assert_uint_eq(r.bad, 0);
	ck_assert_uint_eq(r.disorder, 0);
	ck_assert_uint_eq(r.read + cf, THR_ITERS);
	ck_assert_uint_eq(lwp_missed(r.s), cf);
	ck_assert_uint_gt(r.read, THR_RECORDS);
	lwp_close(r.s);
	munmap(buf, sz);
}
END_TEST

static Suite *jit_suite(void)
{
	Suite *s = suite_create("lwp_jit");
	TCase *tc = tcase_create("sequences");
	TCase *thr = tcase_create("threads");

	/* About 150 forms x 2 modes x 3 runs, each trapped run ~10 us. */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_register_forms, 0, 4);
	tcase_add_test(tc, test_memory_forms);
	tcase_add_test(tc, test_lwpval_interval);
	tcase_add_test(tc, test_slwpcb_llwpcb);
	tcase_add_test(tc, test_fault_restarts);
	tcase_add_test(tc, test_fxsave_path);
	tcase_add_test(tc, test_encode_api);
	tcase_add_test(tc, test_alignment_check);
	tcase_add_test(tc, test_emu_refuses_hw_thread);
	tcase_add_test(tc, test_explicit_ip);
	suite_add_tcase(s, tc);
	/* THR_ITERS iterations: seconds of CPU; the limit allows a busy host. */
	tcase_set_timeout(thr, 240);
	tcase_add_test(thr, test_drain_while_running);
	suite_add_tcase(s, thr);
	return s;
}

int main(void)
{
	return lwpt_check_run(jit_suite(), CK_NORMAL);
}
