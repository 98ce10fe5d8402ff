// SPDX-License-Identifier: GPL-2.0
/*
 * Packet-level unit tests of the PT packet generator (model/pt/trace.c).
 *
 * Each test feeds a few synthetic steps and compares the exact bytes with
 * what SDM 33.4 (packet formats) and 33.7 (Tables 33-55, 33-56: packets per
 * operation) require. Instruction bytes are real encodings (GNU as).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <lwpt/pt_rtit.h>
#include "model/pt/pt_trace.h"
#include "tests/check_run.h"

#define CTL_USER_BR	(IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER | \
			 IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TOPA)

struct sink {
	uint8_t buf[4096];
	size_t len;
	int fail;		/* returned by emit when non-zero */
	unsigned int calls;
};

static int emit(void *ctx, const uint8_t *p, size_t n)
{
	struct sink *s = ctx;

	s->calls++;
	if (s->fail)
		return s->fail;
	ck_assert_uint_le(s->len + n, sizeof(s->buf));
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

static struct pt_trace tr;
static struct sink out;

static void start(uint64_t ctl)
{
	struct pt_trace_config cfg = { 0 };

	memset(&out, 0, sizeof(out));
	cfg.rtit_ctl = ctl;
	cfg.cbr = 0x2a;
	cfg.tsc_art_num = 4;
	cfg.tsc_art_den = 1;
	cfg.emit = emit;
	cfg.emit_ctx = &out;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(&tr, 0x1000), 0);
}

/* One instruction at @ip with bytes @hex, retired at @tsc; @ptw_size 4/8. */
static void step_at(uint64_t ip, const char *hex, uint64_t next, uint64_t tsc,
		    uint8_t ptw_size, uint64_t ptw_value)
{
	struct pt_trace_step s = { 0 };
	unsigned int v;

	s.ip = ip;
	while (*hex && sscanf(hex, "%2x", &v) == 1) {
		s.insn[s.insn_size++] = (uint8_t)v;
		hex += 2;
		while (*hex == ' ')
			hex++;
	}
	s.cpl = 3;
	s.mode = X86_MODE_64;
	s.next_ip = next;
	s.cr3 = 0x5000;
	s.tsc = tsc;
	s.ptw_size = ptw_size;
	s.ptw_value = ptw_value;
	ck_assert_int_eq(pt_trace_step(&tr, &s), 0);
}

/* Feed one instruction: @ip, its bytes, and where execution went next. */
static void step(uint64_t ip, const char *hex, uint64_t next)
{
	step_at(ip, hex, next, 0x2000, 0, 0);
}

/* PSB+ at enable without TSC: PSB, CBR, PSBEND (SDM 33.3.7, Table 33-56). */
static const uint8_t psb_plus[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,	/* PSB */
	0x02, 0x03, 0x2a, 0x00,				/* CBR */
	0x02, 0x23,					/* PSBEND */
};

static void expect(const uint8_t *want, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n && i < out.len; i++)
		if (out.buf[i] != want[i])
			break;
	ck_assert_msg(i == n && out.len == n,
		      "%s: %zu bytes written, %zu expected, first difference at %zu"
		      " (got %02x want %02x)", what, out.len, n, i,
		      i < out.len ? out.buf[i] : 0, i < n ? want[i] : 0);
}

#define EXPECT(what, ...) do { \
	static const uint8_t w_[] = { __VA_ARGS__ }; \
	expect(w_, sizeof(w_), what); \
} while (0)

#define PSB_PLUS 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, \
		 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, \
		 0x02, 0x03, 0x2a, 0x00, 0x02, 0x23

/*
 * Enable, then straight-line code and conditional branches (Table 33-55
 * cases 1-3): MODE.Exec(64-bit), TIP.PGE(0x401000) compressed against Last
 * IP 0 (IPBytes 010b), and one TNT-8 with the six bits, oldest first.
 */
START_TEST(test_enable_tnt)
{
	start(CTL_USER_BR);
	expect(psb_plus, sizeof(psb_plus), "PSB+ at enable");
	step(0x401000, "90", 0x401001);			/* nop */
	step(0x401001, "75 02", 0x401005);		/* jne +2: taken */
	step(0x401005, "74 00", 0x401007);		/* je +0: target = fall */
	step(0x401007, "0f 85 00 10 00 00", 0x40100d);	/* jne rel32: not taken */
	step(0x40100d, "e3 fe", 0x40100d);		/* jrcxz -2: taken */
	step(0x40100d, "e2 02", 0x401011);		/* loop +2: taken */
	step(0x401011, "7c fe", 0x401011);		/* jl -2: taken (6th) */
	step(0x401011, "90", 0x401012);
	EXPECT("PGE + TNT", PSB_PLUS,
	       0x99, 0x01,				/* MODE.Exec CS.L */
	       0x51, 0x00, 0x10, 0x40, 0x00,		/* TIP.PGE 010b */
	       /* TNT-8: stop bit, then 1 0 0 1 1 1 (B1 first), bit 0 = 0 */
	       0x80 | (0x27 << 1));
	ck_assert_uint_eq(tr.stats.tnt_bits, 6);
}
END_TEST

/*
 * CALL, RET compressed to a taken TNT bit (33.4.2.2); with DisRETC the RET
 * is a TIP with the smallest IP compression (IPBytes 001b).
 */
START_TEST(test_ret_compression)
{
	int disretc;

	for (disretc = 0; disretc < 2; disretc++) {
		start(CTL_USER_BR | (disretc ? IA32_RTIT_CTL_DISRETC : 0));
		step(0x401000, "e8 fb 0f 00 00", 0x402000);	/* call 0x402000 */
		step(0x402000, "c3", 0x401005);			/* ret */
		step(0x401005, "90", 0x401006);
		ck_assert_int_eq(pt_trace_disable(&tr), 0);
		if (!disretc)
			EXPECT("compressed RET", PSB_PLUS, 0x99, 0x01,
			       0x51, 0x00, 0x10, 0x40, 0x00,	/* TIP.PGE */
			       0x06,				/* TNT(1) */
			       0x3d, 0x06, 0x10,		/* FUP(next) */
			       0x01);				/* TIP.PGD() */
		else
			EXPECT("DisRETC", PSB_PLUS, 0x99, 0x01,
			       0x51, 0x00, 0x10, 0x40, 0x00,
			       0x2d, 0x05, 0x10,		/* TIP 0x401005 */
			       0x3d, 0x06, 0x10, 0x01);
	}
}
END_TEST

/* A RET to a place other than after its CALL is not compressed. */
START_TEST(test_ret_mismatch)
{
	start(CTL_USER_BR);
	step(0x401000, "e8 fb 0f 00 00", 0x402000);	/* call */
	step(0x402000, "c3", 0x401800);			/* ret elsewhere */
	step(0x401800, "e8 00 00 00 00", 0x401805);	/* call +0: not pushed */
	step(0x401805, "c3", 0x7fff12345678);		/* ret: stack empty */
	step(0x7fff12345678, "90", 0x7fff12345679);
	EXPECT("uncompressed RETs", PSB_PLUS, 0x99, 0x01,
	       0x51, 0x00, 0x10, 0x40, 0x00,
	       0x2d, 0x00, 0x18,				/* TIP 001b */
	       0x6d, 0x78, 0x56, 0x34, 0x12, 0xff, 0x7f);	/* TIP 011b */
	ck_assert_uint_eq(tr.stats.ret_compressed, 0);
}
END_TEST

/*
 * SYSCALL with User=1, OS=0: TIP.PGD() without FUP (Table 33-56 case 6),
 * then TIP.PGE at the first user instruction after SYSRET, without a new
 * MODE.Exec. INT3: FUP(CLIP), TIP.PGD() (case 8, Table 33-23).
 */
START_TEST(test_syscall_int3)
{
	start(CTL_USER_BR);
	step(0x401000, "0f 05", 0x401002);		/* syscall */
	step(0x401002, "cc", 0x401003);			/* int3 */
	step(0x401003, "90", 0x401004);
	EXPECT("syscall, int3", PSB_PLUS, 0x99, 0x01,
	       0x51, 0x00, 0x10, 0x40, 0x00,		/* PGE 0x401000 */
	       0x01,					/* PGD() */
	       0x31, 0x02, 0x10,			/* PGE 0x401002 */
	       0x3d, 0x02, 0x10,			/* FUP 0x401002 */
	       0x01,					/* PGD() */
	       0x31, 0x03, 0x10);			/* PGE 0x401003 */
}
END_TEST

/*
 * An asynchronous event after an instruction (interrupt, signal: the next
 * step is not where the instruction goes): FUP(NLIP), TIP.PGD() (Table
 * 33-56 case 7), then TIP.PGE where user execution resumes.
 */
START_TEST(test_async_event)
{
	start(CTL_USER_BR);
	step(0x401000, "90", 0x405000);			/* signal handler next */
	step(0x405000, "90", 0x405001);
	EXPECT("async", PSB_PLUS, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x3d, 0x01, 0x10,			/* FUP(NLIP 0x401001) */
	       0x01,					/* TIP.PGD() */
	       0x31, 0x00, 0x50);			/* TIP.PGE(0x405000) */
}
END_TEST

/* A far RET to 32-bit code at CPL 3: MODE.Exec(CS.D), TIP (Table 33-55 8-10). */
START_TEST(test_far_mode_change)
{
	struct pt_trace_step s = { 0 };

	start(CTL_USER_BR);
	step(0x401000, "48 cb", 0x8000);		/* lretq */
	s.ip = 0x8000;
	s.insn[0] = 0x90;
	s.insn_size = 1;
	s.cpl = 3;
	s.mode = X86_MODE_32;
	s.next_ip = 0x8001;
	s.cr3 = 0x5000;
	ck_assert_int_eq(pt_trace_step(&tr, &s), 0);
	EXPECT("far", PSB_PLUS, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x99, 0x02,				/* MODE.Exec CS.D */
	       0x4d, 0x00, 0x80, 0x00, 0x00);		/* TIP 010b */
}
END_TEST

/* Indirect JMP/CALL: TIP with the IP compression of Table 33-18. */
START_TEST(test_indirect_compression)
{
	start(CTL_USER_BR);
	step(0x401000, "ff e0", 0x401234);		/* jmp *%rax */
	step(0x401234, "ff d0", 0x4a0000);		/* call *%rax */
	step(0x4a0000, "ff e0", 0x7f0000001000);	/* jmp *%rax */
	step(0x7f0000001000, "ff e0", 0xffff800000000000); /* to kernel half */
	step(0xffff800000000000, "ff e0", 0x0012000000000000);
	step(0x0012000000000000, "90", 0x0012000000000001);
	EXPECT("TIP compression", PSB_PLUS, 0x99, 0x01,
	       0x51, 0x00, 0x10, 0x40, 0x00,
	       0x2d, 0x34, 0x12,			/* 001b: 16 bits */
	       0x4d, 0x00, 0x00, 0x4a, 0x00,		/* 010b: 32 bits */
	       0x6d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x7f,	/* 011b: sext */
	       0x6d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,	/* 011b: sext */
	       0xcd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x00); /* 110b */
}
END_TEST

/* DisTNT (33.3.9): no TNT bits, compressed RETs leave no trace either. */
START_TEST(test_distnt)
{
	start(CTL_USER_BR | IA32_RTIT_CTL_DISTNT);
	step(0x401000, "75 02", 0x401004);
	step(0x401004, "e8 f7 0f 00 00", 0x402000);
	step(0x402000, "c3", 0x401009);
	step(0x401009, "90", 0x40100a);
	EXPECT("DisTNT", PSB_PLUS, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00);
}
END_TEST

/*
 * IP filtering (Table 33-2): a jump into the range gives TIP.PGE(target),
 * a jump out TIP.PGD(target), a conditional branch out TIP.PGD() (33.4.2.5).
 */
START_TEST(test_ip_filter)
{
	struct pt_trace_config cfg = { 0 };

	memset(&out, 0, sizeof(out));
	cfg.rtit_ctl = CTL_USER_BR | ((uint64_t)IA32_RTIT_ADDR_CFG_FILTER <<
				      IA32_RTIT_CTL_ADDRn_CFG_SHIFT(0));
	cfg.nr_ranges = 1;
	cfg.addr_a[0] = 0x402000;
	cfg.addr_b[0] = 0x4020ff;
	cfg.cbr = 0x2a;
	cfg.emit = emit;
	cfg.emit_ctx = &out;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(&tr, 0), 0);
	step(0x401000, "e9 fb 0f 00 00", 0x402000);	/* jmp RangeBase */
	step(0x402000, "75 fe", 0x402002);		/* jne: not taken */
	step(0x402002, "e9 f9 00 00 00", 0x402100);	/* jmp RangeLimit+1 */
	step(0x402100, "e9 fb fe ff ff", 0x402000);	/* jmp RangeBase */
	step(0x402000, "75 fe", 0x402000);		/* taken, stays in */
	step(0x402000, "0f 85 fa ef ff ff", 0x401000);	/* jne out: taken */
	step(0x401000, "90", 0x401001);
	EXPECT("IP filter", PSB_PLUS,
	       0x99, 0x01, 0x51, 0x00, 0x20, 0x40, 0x00,	/* PGE(base) */
	       0x04,					/* TNT(0) */
	       0x21, 0x00, 0x21,			/* PGD(limit+1) */
	       0x31, 0x00, 0x20,			/* PGE(base) */
	       0x06,					/* TNT(1) */
	       0x01);					/* PGD() for Jcc */
}
END_TEST

/* TraceStop (33.2.5.3, Table 33-28): TIP.PGD(target), TraceStop, silence. */
START_TEST(test_tracestop)
{
	struct pt_trace_config cfg = { 0 };

	memset(&out, 0, sizeof(out));
	cfg.rtit_ctl = CTL_USER_BR | ((uint64_t)IA32_RTIT_ADDR_CFG_STOP <<
				      IA32_RTIT_CTL_ADDRn_CFG_SHIFT(1));
	cfg.nr_ranges = 2;
	cfg.addr_a[1] = 0x403000;
	cfg.addr_b[1] = 0x403000;
	cfg.cbr = 0x2a;
	cfg.emit = emit;
	cfg.emit_ctx = &out;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(&tr, 0), 0);
	step(0x401000, "ff e0", 0x403000);
	step(0x403000, "ff e0", 0x401000);
	step(0x401000, "90", 0x401001);
	ck_assert_int_eq(pt_trace_disable(&tr), 0);
	EXPECT("TraceStop", PSB_PLUS, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x21, 0x00, 0x30,			/* PGD(0x403000) */
	       0x02, 0x83);				/* TraceStop */
	ck_assert(pt_trace_stopped(&tr));
	/* Stopped stays set: re-enabling writes nothing (TriggerEn=0). */
	ck_assert_int_eq(pt_trace_enable(&tr, 0), 0);
	ck_assert_uint_eq(out.len, sizeof(psb_plus) + 12);
}
END_TEST

/* CR3 filter (33.2.5.2): bits 11:0 are not compared. */
START_TEST(test_cr3_filter)
{
	struct pt_trace_config cfg = { 0 };
	int match;

	for (match = 0; match < 2; match++) {
		memset(&out, 0, sizeof(out));
		cfg.rtit_ctl = CTL_USER_BR | IA32_RTIT_CTL_CR3FILTER;
		cfg.cr3_match = match ? 0x5000 : 0x6000;
		cfg.cbr = 0x2a;
		cfg.emit = emit;
		cfg.emit_ctx = &out;
		ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
		ck_assert_int_eq(pt_trace_enable(&tr, 0), 0);
		step(0x401000, "90", 0x401001);		/* cr3 0x5000 */
		if (match)
			EXPECT("CR3 match", PSB_PLUS, 0x99, 0x01,
			       0x51, 0x00, 0x10, 0x40, 0x00);
		else
			expect(psb_plus, sizeof(psb_plus), "CR3 mismatch");
	}
}
END_TEST

/* TSCEn and MTCEn: PSB+ with TSC and TMA (Table 33-30, 33-32); MTC later. */
START_TEST(test_timing)
{
	struct pt_trace_step s = { 0 };

	start(CTL_USER_BR | IA32_RTIT_CTL_TSCEN | IA32_RTIT_CTL_MTCEN);
	/* TSC 0x1000, ART = TSC / 4 = 0x400, FastCounter 0. */
	EXPECT("PSB+ with TSC, TMA", 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	       0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	       0x19, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,	/* TSC */
	       0x02, 0x73, 0x00, 0x04, 0x00, 0x00, 0x00,	/* TMA */
	       0x02, 0x03, 0x2a, 0x00, 0x02, 0x23);
	out.len = 0;
	s.ip = 0x401000;
	s.insn[0] = 0x90;
	s.insn_size = 1;
	s.cpl = 3;
	s.mode = X86_MODE_64;
	s.next_ip = 0x401001;
	s.tsc = 0x100c;			/* ART 0x403: three MTCs (MTCFreq 0) */
	ck_assert_int_eq(pt_trace_step(&tr, &s), 0);
	s.ip = 0x401001;
	s.next_ip = 0x401002;
	ck_assert_int_eq(pt_trace_step(&tr, &s), 0);
	EXPECT("MTC", 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x59, 0x01, 0x59, 0x02, 0x59, 0x03);
}
END_TEST

/* PSB+ again after 2K bytes (PSBFreq 0), with MODE.Exec and FUP. */
START_TEST(test_psb_period)
{
	uint64_t ip = 0x401000;
	unsigned int i;

	start(CTL_USER_BR);
	for (i = 0; i < 1000; i++, ip += 0x100)
		step(ip, "ff e0", ip + 0x100);	/* jmp *%rax: 3-byte TIPs */
	ck_assert_uint_ge(tr.stats.psb, 2);
	ck_assert_uint_eq(tr.stats.fup, tr.stats.psb - 1);
}
END_TEST

/* OS=1: PSB+ carries PIP(CR3) while ContextEn=1 (33.3.7, Table 33-24). */
START_TEST(test_psb_pip)
{
	uint64_t ip = 0x401000;
	size_t i;

	start(CTL_USER_BR | IA32_RTIT_CTL_OS);
	for (i = 0; i < 700; i++, ip += 0x100)
		step(ip, "ff e0", ip + 0x100);
	ck_assert_uint_ge(tr.stats.psb, 2);
	ck_assert_uint_eq(tr.stats.pip, tr.stats.psb - 1);
	for (i = 0; i + 8 <= out.len; i++)
		if (out.buf[i] == 0x02 && out.buf[i + 1] == 0x43)
			break;
	/* CR3 0x5000: payload = (CR3[51:5] << 1) | NR = 0x280 << 1 = 0x500. */
	ck_assert_uint_eq(out.buf[i + 2], 0x00);
	ck_assert_uint_eq(out.buf[i + 3], 0x05);
	ck_assert_uint_eq(out.buf[i + 4], 0x00);
}
END_TEST

/* The sink cannot keep up (33.3.8): OVF, then FUP with an uncompressed IP. */
START_TEST(test_overflow)
{
	start(CTL_USER_BR);
	step(0x401000, "90", 0x401001);
	step(0x401001, "ff e0", 0x401100);
	out.fail = -ENOSPC;
	step(0x401100, "90", 0x401101);		/* the TIP is lost */
	out.fail = 0;
	step(0x401101, "90", 0x401102);		/* resolved here */
	EXPECT("OVF", PSB_PLUS, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x02, 0xf3,				/* OVF */
	       0x7d, 0x01, 0x11, 0x40, 0x00, 0x00, 0x00);	/* FUP 011b */
	ck_assert_uint_gt(tr.stats.dropped_bytes, 0);
	ck_assert_uint_eq(tr.stats.ovf, 1);
}
END_TEST

/* A sink error stops output for good (TriggerEn cleared). */
START_TEST(test_sink_error)
{
	unsigned int calls;

	start(CTL_USER_BR);
	out.fail = -EIO;
	step(0x401000, "90", 0x401001);
	calls = out.calls;
	out.fail = 0;
	step(0x401001, "ff e0", 0x401100);
	step(0x401100, "90", 0x401101);
	ck_assert_uint_eq(out.calls, calls);
	expect(psb_plus, sizeof(psb_plus), "nothing after the error");
}
END_TEST

/*
 * Random steps (random bytes, IPs, CPL, CR3, mode, sink refusals) under
 * random valid configurations: no crash, no undefined behaviour (run with
 * SANITIZE=1), only valid return codes. Deterministic seed.
 */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int emit_random(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return rnd() % 50 == 0 ? -ENOSPC : 0;
}

START_TEST(test_random_steps)
{
	static const uint64_t bits[] = {
		IA32_RTIT_CTL_OS, IA32_RTIT_CTL_USER, IA32_RTIT_CTL_BRANCHEN,
		IA32_RTIT_CTL_TSCEN, IA32_RTIT_CTL_MTCEN, IA32_RTIT_CTL_DISRETC,
		IA32_RTIT_CTL_CR3FILTER, IA32_RTIT_CTL_DISTNT,
	};
	unsigned int round, i, b;

	for (round = 0; round < 40; round++) {
		struct pt_trace_config cfg = { 0 };

		cfg.rtit_ctl = IA32_RTIT_CTL_TRACEEN;
		for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
			if (rnd() & 1)
				cfg.rtit_ctl |= bits[b];
		cfg.rtit_ctl |= (rnd() % 16) << IA32_RTIT_CTL_MTCFREQ_SHIFT;
		cfg.rtit_ctl |= (rnd() % 3) << IA32_RTIT_CTL_PSBFREQ_SHIFT;
		cfg.nr_ranges = 2;
		cfg.rtit_ctl |= (rnd() % 3) << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(0);
		cfg.rtit_ctl |= (rnd() % 3) << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(1);
		cfg.addr_a[0] = 0x400000;
		cfg.addr_b[0] = 0x400000 + rnd() % 0x10000;
		cfg.addr_a[1] = 0x400000 + rnd() % 0x10000;
		cfg.addr_b[1] = cfg.addr_a[1] + rnd() % 0x100;
		cfg.cr3_match = 0x5000;
		cfg.tsc_art_num = 1 + rnd() % 400;
		cfg.tsc_art_den = 1 + rnd() % 4;
		cfg.tnt64 = rnd() & 1;
		cfg.emit = emit_random;
		ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
		ck_assert_int_eq(pt_trace_enable(&tr, rnd()), 0);
		for (i = 0; i < 3000; i++) {
			struct pt_trace_step s = { 0 };
			uint64_t r = rnd();
			int ret;

			s.ip = 0x400000 + rnd() % 0x10000;
			s.insn_size = 1 + rnd() % X86_MAX_INSN_LEN;
			for (b = 0; b < X86_MAX_INSN_LEN; b++)
				s.insn[b] = (uint8_t)rnd();
			if (r & 1)	/* often a real branch */
				s.insn[0] = (uint8_t[]){ 0x75, 0xe8, 0xc3, 0xff,
							 0xe9, 0xcc }[rnd() % 6];
			s.cpl = (r >> 1) % 8 == 0 ? 0 : 3;
			s.mode = (r >> 4) % 16 == 0 ? X86_MODE_32 : X86_MODE_64;
			s.cr3 = (r >> 8) % 8 == 0 ? 0x6000 : 0x5000;
			s.next_ip = (r >> 12) & 1 ? s.ip + 2 : 0x400000 + rnd() % 0x10000;
			s.tsc = i * (rnd() % 1000);
			ret = pt_trace_step(&tr, &s);
			ck_assert(ret == 0 || ret == -EINVAL);
		}
		ck_assert_int_eq(pt_trace_disable(&tr), 0);
	}
}
END_TEST


/*
 * PTWRITE (SDM 33.4.2.21 Table 33-40, Table 33-57 cases 2-3): PTW with 8
 * payload bytes for rm64 (PayloadBytes 01b), 4 for rm32 (00b), IP=0
 * without FUPonPTW; the pending TNT bit goes out first.
 */
START_TEST(test_ptw)
{
	start(CTL_USER_BR | IA32_RTIT_CTL_PTWEN);
	out.len = 0;
	step_at(0x401000, "75 00", 0x401002, 0x2000, 0, 0);	/* jne: not taken */
	step_at(0x401002, "f3 48 0f ae e0", 0x401007, 0x2000, 8,
		0x1122334455667788ull);			/* ptwrite %rax */
	step_at(0x401007, "f3 0f ae 21", 0x40100b, 0x2000, 4,
		0xdeadbeefull);				/* ptwritel (%rcx) */
	step_at(0x40100b, "90", 0x40100c, 0x2000, 0, 0);
	EXPECT("PTW", 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x04,						/* TNT: 0 */
	       0x02, 0x32, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	       0x02, 0x12, 0xef, 0xbe, 0xad, 0xde);
	ck_assert_uint_eq(tr.stats.ptw, 2);
}
END_TEST

/* FUPonPTW: PTW.IP=1, then FUP with the PTWRITE's IP (Table 33-57). */
START_TEST(test_ptw_fup)
{
	start(CTL_USER_BR | IA32_RTIT_CTL_PTWEN | IA32_RTIT_CTL_FUPONPTW);
	out.len = 0;
	step_at(0x401000, "f3 0f ae e0", 0x401004, 0x2000, 4, 0x01020304);
	step_at(0x401004, "90", 0x401005, 0x2000, 0, 0);
	EXPECT("PTW + FUP", 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x02, 0x92, 0x04, 0x03, 0x02, 0x01,
	       0x3d, 0x00, 0x10);		/* FUP 0x401000, IPBytes 001b */
}
END_TEST

/*
 * PTW needs TriggerEn, ContextEn, FilterEn and PTWEn, not BranchEn (Table
 * 33-40 Dependencies): with BranchEn=0 it is the only packet; without
 * PTWEn or outside the filter range there is none.
 */
START_TEST(test_ptw_enables)
{
	struct pt_trace_config cfg = { 0 };

	start(IA32_RTIT_CTL_USER | IA32_RTIT_CTL_PTWEN);
	out.len = 0;
	step_at(0x401000, "f3 0f ae e0", 0x401004, 0x2000, 4, 7);
	step_at(0x401004, "90", 0x401005, 0x2000, 0, 0);
	EXPECT("BranchEn=0", 0x02, 0x12, 0x07, 0x00, 0x00, 0x00);

	start(CTL_USER_BR);
	out.len = 0;
	step_at(0x401000, "f3 0f ae e0", 0x401004, 0x2000, 4, 7);
	step_at(0x401004, "90", 0x401005, 0x2000, 0, 0);
	EXPECT("PTWEn=0", 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00);

	memset(&out, 0, sizeof(out));
	cfg.rtit_ctl = CTL_USER_BR | IA32_RTIT_CTL_PTWEN |
		       ((uint64_t)IA32_RTIT_ADDR_CFG_FILTER << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(0));
	cfg.nr_ranges = 1;
	cfg.addr_a[0] = 0x500000;
	cfg.addr_b[0] = 0x500fff;
	cfg.cbr = 0x2a;
	cfg.emit = emit;
	cfg.emit_ctx = &out;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(&tr, 0x1000), 0);
	out.len = 0;
	step_at(0x401000, "f3 0f ae e0", 0x401004, 0x2000, 4, 7);
	step_at(0x401004, "90", 0x401005, 0x2000, 0, 0);
	ck_assert_uint_eq(out.len, 0);		/* FilterEn=0 */
	ck_assert_uint_eq(tr.stats.ptw, 0);
}
END_TEST

/*
 * CYC (SDM 33.3.6, 33.4.2.14): one CYC with the TSC ticks since the last
 * before the first CYC-eligible packet of an instant (MODE.Exec before
 * TIP.PGE, the first TNT bit, TIP, PTW), none before FUP; the counter
 * starts at 0 at TraceEn. 2 cycles: 1 byte (2 << 3 | 11b); 300 cycles: 2
 * bytes (Exp=1, then 300 >> 5 = 9 in bits 7:1).
 */
START_TEST(test_cyc)
{
	start(CTL_USER_BR | IA32_RTIT_CTL_CYCEN | IA32_RTIT_CTL_PTWEN |
	      IA32_RTIT_CTL_FUPONPTW);
	expect(psb_plus, sizeof(psb_plus), "no CYC at enable");
	out.len = 0;
	step_at(0x401000, "75 00", 0x401002, 0x1002, 0, 0);	/* jne: not taken */
	step_at(0x401002, "ff e0", 0x401100, 0x1002 + 300, 0, 0);	/* jmp *%rax */
	step_at(0x401100, "f3 0f ae e0", 0x401104, 0x1002 + 300 + 31, 4, 1);
	step_at(0x401104, "90", 0x401105, 0x2000, 0, 0);
	EXPECT("CYC", 0x13, 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,	/* CYC(2) */
	       0x04,					/* TNT: CYC(0) not written */
	       0x67, 0x12,				/* CYC(300) */
	       0x2d, 0x00, 0x11,			/* TIP 0x401100 */
	       0xfb,					/* CYC(31) */
	       0x02, 0x92, 0x01, 0x00, 0x00, 0x00,	/* PTW */
	       0x3d, 0x00, 0x11);			/* FUP, no CYC */
	ck_assert_uint_eq(tr.stats.cyc, 3);
}
END_TEST

/*
 * CycThresh (33.3.6.3): with encoding 3 a CYC needs 4 cycles; eligible
 * packets before that go without one, and the count goes on.
 */
START_TEST(test_cyc_thresh)
{
	start(CTL_USER_BR | IA32_RTIT_CTL_CYCEN |
	      (3ull << IA32_RTIT_CTL_CYCTHRESH_SHIFT));
	out.len = 0;
	step_at(0x401000, "ff e0", 0x401100, 0x1002, 0, 0);	/* 2 cycles */
	step_at(0x401100, "ff e0", 0x401200, 0x1003, 0, 0);	/* 3: no CYC */
	step_at(0x401200, "ff e0", 0x401300, 0x1005, 0, 0);	/* 5: CYC */
	step_at(0x401300, "90", 0x401301, 0x1006, 0, 0);
	EXPECT("CycThresh", 0x99, 0x01, 0x51, 0x00, 0x10, 0x40, 0x00,
	       0x2d, 0x00, 0x11,			/* TIP, 2 cycles */
	       0x2d, 0x00, 0x12,			/* TIP, 3 cycles */
	       0x2b, 0x2d, 0x00, 0x13);			/* CYC(5), TIP */
}
END_TEST

START_TEST(test_config_errors)
{
	struct pt_trace_config cfg = { 0 };
	struct pt_trace_step s = { 0 };

	cfg.emit = emit;
	cfg.emit_ctx = &out;
	ck_assert_int_eq(pt_trace_init(NULL, &cfg), -EINVAL);
	ck_assert_int_eq(pt_trace_init(&tr, NULL), -EINVAL);
	cfg.rtit_ctl = 1ull << 18;		/* reserved, Table 33-6 */
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);
	cfg.rtit_ctl = 3ull << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(0);	/* reserved */
	cfg.nr_ranges = 1;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);
	cfg.rtit_ctl = 1ull << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(1);	/* no range 1 */
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);
	cfg.rtit_ctl = IA32_RTIT_CTL_MTCEN;	/* no TSC/ART ratio */
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);
	cfg.rtit_ctl = IA32_RTIT_CTL_PWREVTEN;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EOPNOTSUPP);
	cfg.rtit_ctl = IA32_RTIT_CTL_EVENTEN;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EOPNOTSUPP);
	cfg.nr_ranges = 5;
	cfg.rtit_ctl = 0;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);
	cfg.emit = NULL;
	cfg.nr_ranges = 0;
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), -EINVAL);

	start(CTL_USER_BR);
	ck_assert_int_eq(pt_trace_enable(&tr, 0), -EBUSY);
	ck_assert_int_eq(pt_trace_step(&tr, NULL), -EINVAL);
	ck_assert_int_eq(pt_trace_step(&tr, &s), -EINVAL);	/* size 0 */
	s.insn_size = 1;
	s.insn[0] = 0x90;
	s.ptw_size = 2;				/* PTW carries 4 or 8 bytes */
	ck_assert_int_eq(pt_trace_step(&tr, &s), -EINVAL);
	s.ptw_size = 0;
	s.insn_size = 2;
	s.insn[0] = 0x0f;			/* truncated: needs 3+ bytes */
	s.insn[1] = 0x85;
	s.mode = X86_MODE_64;
	ck_assert_int_eq(pt_trace_step(&tr, &s), -EINVAL);
	s.insn_size = 16;
	ck_assert_int_eq(pt_trace_step(&tr, &s), -EINVAL);
	s.insn_size = 1;
	s.cpl = 4;
	ck_assert_int_eq(pt_trace_step(&tr, &s), -EINVAL);
	ck_assert_uint_eq(tr.stats.steps, 0);
	ck_assert_int_eq(pt_trace_disable(NULL), -EINVAL);
	ck_assert_ptr_null(pt_trace_get_stats(NULL));
	ck_assert(!pt_trace_stopped(NULL));
}
END_TEST

static Suite *pt_trace_suite(void)
{
	Suite *s = suite_create("pt_trace");
	TCase *tc = tcase_create("packets");

	tcase_set_timeout(tc, 120);	/* shared, loaded machines */
	tcase_add_test(tc, test_enable_tnt);
	tcase_add_test(tc, test_ret_compression);
	tcase_add_test(tc, test_ret_mismatch);
	tcase_add_test(tc, test_syscall_int3);
	tcase_add_test(tc, test_indirect_compression);
	tcase_add_test(tc, test_async_event);
	tcase_add_test(tc, test_far_mode_change);
	tcase_add_test(tc, test_distnt);
	tcase_add_test(tc, test_ip_filter);
	tcase_add_test(tc, test_tracestop);
	tcase_add_test(tc, test_cr3_filter);
	tcase_add_test(tc, test_timing);
	tcase_add_test(tc, test_psb_period);
	tcase_add_test(tc, test_psb_pip);
	tcase_add_test(tc, test_overflow);
	tcase_add_test(tc, test_sink_error);
	tcase_add_test(tc, test_ptw);
	tcase_add_test(tc, test_ptw_fup);
	tcase_add_test(tc, test_ptw_enables);
	tcase_add_test(tc, test_cyc);
	tcase_add_test(tc, test_cyc_thresh);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_random_steps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(pt_trace_suite(), CK_NORMAL);
}
