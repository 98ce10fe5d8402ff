// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the x86 COFI classifier (model/x86/x86_cofi.c).
 *
 * The main table is produced by GNU as (gen-gas-table.sh from
 * cofi-cases.txt): for each source line, the bytes and length GNU as emitted
 * and, for direct branches, the target objdump decodes. The classes are SDM
 * Table 33-1's. Hand-written cases pin what GNU as cannot show: Intel's
 * treatment of 66 on near branches in 64-bit mode, the 15-byte limit,
 * undefined opcodes and truncated input.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/x86/x86_cofi.h"
#include "tests/check_run.h"

struct gas_case {
	int mode;
	enum x86_cofi_kind kind;
	unsigned int len;
	uint64_t ip;		/* offset in GNU as's .text */
	uint64_t target;	/* objdump's target for direct branches */
	uint8_t bytes[X86_MAX_INSN_LEN];
	const char *src;
};

static const struct gas_case gas_cases[] = {
#include "cofi_gas_table.h"
};

#define NR_GAS_CASES (sizeof(gas_cases) / sizeof(gas_cases[0]))

/* Every GNU as encoding decodes to its class, length and target. */
static void check_gas_case(const struct gas_case *g)
{
	struct x86_cofi c;
	int ret;

	memset(&c, 0xa5, sizeof(c));	/* poison: unwritten fields show */
	ret = x86_cofi_decode(g->bytes, g->len, (enum x86_mode)g->mode, &c);
	ck_assert_msg(ret == 0, "%s (mode %d): ret %d", g->src, g->mode, ret);
	ck_assert_msg(c.len == g->len, "%s: len %u, GNU as %u", g->src, c.len,
		      g->len);
	ck_assert_msg(c.kind == g->kind, "%s: kind %s, want %s", g->src,
		      x86_cofi_kind_name(c.kind), x86_cofi_kind_name(g->kind));
	if (g->kind == X86_COFI_JCC || g->kind == X86_COFI_JMP_REL ||
	    g->kind == X86_COFI_CALL_REL) {
		uint64_t t = x86_cofi_target(&c, g->ip);

		if (g->mode == 16)
			t &= 0xffff;	/* objdump -M i8086 prints 16 bits */
		ck_assert_msg(t == g->target, "%s: target %#llx, objdump %#llx",
			      g->src, (unsigned long long)t,
			      (unsigned long long)g->target);
	} else {
		ck_assert_uint_eq(c.disp_size, 0);
	}
}

/* One byte short of each GNU as encoding is "need more bytes", not an error. */
static void check_gas_truncated(const struct gas_case *g)
{
	struct x86_cofi c = { .kind = X86_COFI_NR_KINDS };
	size_t n;

	for (n = 0; n < g->len; n++) {
		int ret = x86_cofi_decode(g->bytes, n, (enum x86_mode)g->mode, &c);

		ck_assert_msg(ret == -EAGAIN, "%s: %zu of %u bytes: ret %d",
			      g->src, n, g->len, ret);
	}
	ck_assert_int_eq(c.kind, X86_COFI_NR_KINDS);	/* untouched */
}

/* The whole GNU as table in one test (one fork: fast under sanitizers). */
START_TEST(test_gas_table)
{
	size_t i;

	for (i = 0; i < NR_GAS_CASES; i++) {
		check_gas_case(&gas_cases[i]);
		check_gas_truncated(&gas_cases[i]);
	}
}
END_TEST

struct hand_case {
	enum x86_mode mode;
	uint8_t bytes[16];
	size_t size;
	int ret;
	enum x86_cofi_kind kind;
	unsigned int len;
	const char *why;
};

static const struct hand_case hand_cases[] = {
	/* SDM Vol. 2 Jcc/CALL/JMP: 66 ignored in 64-bit mode on Intel. */
	{ X86_MODE_64, { 0x66, 0x0f, 0x85, 1, 2, 3, 4 }, 7, 0, X86_COFI_JCC, 7,
	  "data16 jne rel32 (Intel)" },
	{ X86_MODE_64, { 0x66, 0xe8, 1, 2, 3, 4 }, 6, 0, X86_COFI_CALL_REL, 6,
	  "data16 call rel32 (Intel)" },
	{ X86_MODE_64, { 0x66, 0xe9, 1, 2, 3, 4 }, 6, 0, X86_COFI_JMP_REL, 6,
	  "data16 jmp rel32 (Intel)" },
	/* SDM Vol. 2, 2.3.11: at most 15 bytes. */
	{ X86_MODE_64, { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			 0x66, 0x66, 0x66, 0x66, 0x66, 0x90 }, 15, 0,
	  X86_COFI_NONE, 15, "15-byte nop" },
	{ X86_MODE_64, { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90 }, 16, -EILSEQ,
	  0, 0, "16-byte nop" },
	{ X86_MODE_64, { 0x2e, 0x2e, 0x2e, 0x2e, 0x48, 0x81, 0x84, 0x88, 1, 2,
			 3, 4, 5, 6, 7, 8 }, 16, -EILSEQ, 0, 0,
	  "16 bytes: no room for the last imm32 byte" },
	/* SDM Vol. 2 Table A-2: invalid in 64-bit mode. */
	{ X86_MODE_64, { 0x06 }, 1, -EILSEQ, 0, 0, "push es" },
	{ X86_MODE_64, { 0x9a, 1, 2, 3, 4, 5, 6 }, 7, -EILSEQ, 0, 0, "call ptr" },
	{ X86_MODE_64, { 0xea, 1, 2, 3, 4, 5, 6 }, 7, -EILSEQ, 0, 0, "jmp ptr" },
	{ X86_MODE_64, { 0xce }, 1, -EILSEQ, 0, 0, "into" },
	{ X86_MODE_64, { 0xd6 }, 1, -EILSEQ, 0, 0, "salc" },
	/* Table A-6 group 5: /3 and /5 need a memory operand, /7 undefined. */
	{ X86_MODE_64, { 0xff, 0xd8 }, 2, -EILSEQ, 0, 0, "lcall *%eax" },
	{ X86_MODE_64, { 0xff, 0xe8 }, 2, -EILSEQ, 0, 0, "ljmp *%eax" },
	{ X86_MODE_64, { 0xff, 0x38 }, 2, -EILSEQ, 0, 0, "ff /7" },
	/* REX is only a REX directly before the opcode (SDM Vol. 2, 2.2.1). */
	{ X86_MODE_64, { 0x48, 0x66, 0xb8, 1, 2 }, 5, 0, X86_COFI_NONE, 5,
	  "rex.w ignored before 66: mov imm16" },
	{ X86_MODE_64, { 0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 11, 0,
	  X86_COFI_NONE, 11, "66 rex.w: mov imm64" },
	{ X86_MODE_64, { 0x41, 0xff, 0xe3 }, 3, 0, X86_COFI_JMP_IND, 3,
	  "jmp *%r11" },
	/* VEX after 66/F2/F3/REX is #UD (SDM Vol. 2, 2.3.2). */
	{ X86_MODE_64, { 0x66, 0xc5, 0xf9, 0xef, 0xc0 }, 5, -EILSEQ, 0, 0,
	  "66 + VEX" },
	{ X86_MODE_64, { 0x40, 0xc5, 0xf9, 0xef, 0xc0 }, 5, -EILSEQ, 0, 0,
	  "REX + VEX" },
	/* 0F 20-23: ModRM.mod ignored, no SIB or displacement. */
	{ X86_MODE_64, { 0x0f, 0x20, 0x04 }, 3, 0, X86_COFI_NONE, 3,
	  "mov %cr0,%rsp with mod=0 rm=4" },
	/* 8F /0 is POP, not XOP. */
	{ X86_MODE_64, { 0x8f, 0x00 }, 2, 0, X86_COFI_NONE, 2, "pop (%rax)" },
	/* In 32-bit mode C4 with mod != 3 is LES. */
	{ X86_MODE_32, { 0xc4, 0x00 }, 2, 0, X86_COFI_NONE, 2, "les (%eax)" },
	{ X86_MODE_32, { 0xce }, 1, 0, X86_COFI_INTO, 1, "into" },
	{ X86_MODE_64, { 0x0f, 0x04 }, 2, -EILSEQ, 0, 0, "0f 04" },
	{ X86_MODE_64, { 0 }, 0, -EAGAIN, 0, 0, "empty" },
	{ X86_MODE_64, { 0x66, 0x66 }, 2, -EAGAIN, 0, 0, "prefixes only" },
};

#define NR_HAND_CASES (sizeof(hand_cases) / sizeof(hand_cases[0]))

START_TEST(test_hand_cases)
{
	const struct hand_case *h = &hand_cases[_i];
	struct x86_cofi c;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = x86_cofi_decode(h->bytes, h->size, h->mode, &c);
	ck_assert_msg(ret == h->ret, "%s: ret %d, want %d", h->why, ret, h->ret);
	if (ret)
		return;
	ck_assert_msg(c.kind == h->kind, "%s: kind %s", h->why,
		      x86_cofi_kind_name(c.kind));
	ck_assert_msg(c.len == h->len, "%s: len %u", h->why, c.len);
}
END_TEST

START_TEST(test_targets)
{
	/* E8 00 00 00 00: "zero-length call" of SDM 33.4.2.2. */
	static const uint8_t call0[] = { 0xe8, 0, 0, 0, 0 };
	/* 16-bit operand size wraps IP (SDM Vol. 2 JMP). */
	static const uint8_t jmp16[] = { 0x66, 0xe9, 0x00, 0x80 };
	struct x86_cofi c;

	ck_assert_int_eq(x86_cofi_decode(call0, sizeof(call0), X86_MODE_64, &c), 0);
	ck_assert_int_eq(c.disp, 0);
	ck_assert_uint_eq(x86_cofi_target(&c, 0x401000), 0x401005);
	ck_assert_int_eq(x86_cofi_decode(jmp16, sizeof(jmp16), X86_MODE_32, &c), 0);
	ck_assert_uint_eq(c.opsize, 16);
	ck_assert_uint_eq(x86_cofi_target(&c, 0x12340ffc), 0x9000);
	ck_assert_uint_eq(x86_cofi_target(NULL, 5), 5);
}
END_TEST

START_TEST(test_bad_args)
{
	static const uint8_t nop = 0x90;
	struct x86_cofi c;

	ck_assert_int_eq(x86_cofi_decode(NULL, 1, X86_MODE_64, &c), -EINVAL);
	ck_assert_int_eq(x86_cofi_decode(&nop, 1, X86_MODE_64, NULL), -EINVAL);
	ck_assert_int_eq(x86_cofi_decode(&nop, 1, (enum x86_mode)8, &c), -EINVAL);
	ck_assert_str_eq(x86_cofi_kind_name(X86_COFI_RET), "ret");
	ck_assert_str_eq(x86_cofi_kind_name(X86_COFI_NR_KINDS), "?");
	ck_assert_str_eq(x86_cofi_kind_name((enum x86_cofi_kind)-1), "?");
}
END_TEST

/* Every byte string up to 3 bytes after any first byte: no crash, sane len. */
START_TEST(test_exhaustive_short)
{
	uint8_t buf[X86_MAX_INSN_LEN];
	unsigned int a, b;
	int mode;

	for (mode = 0; mode < 3; mode++) {
		enum x86_mode m = mode == 0 ? X86_MODE_64 :
				  mode == 1 ? X86_MODE_32 : X86_MODE_16;

		for (a = 0; a < 256; a++) {
			for (b = 0; b < 256; b++) {
				struct x86_cofi c;
				int ret;

				memset(buf, 0, sizeof(buf));
				buf[0] = (uint8_t)a;
				buf[1] = (uint8_t)b;
				ret = x86_cofi_decode(buf, sizeof(buf), m, &c);
				ck_assert(ret == 0 || ret == -EILSEQ);
				if (ret == 0)
					ck_assert(c.len >= 1 && c.len <= 15);
			}
		}
	}
}
END_TEST

/*
 * Random byte strings in every mode: a decoded instruction decodes the same
 * from exactly its own bytes, and one byte fewer is "need more bytes".
 */
START_TEST(test_random_prefix_property)
{
	uint64_t st = 0x243f6a8885a308d3ull;
	unsigned int i, j;

	for (i = 0; i < 300000; i++) {
		static const enum x86_mode modes[] = { X86_MODE_64, X86_MODE_32,
						       X86_MODE_16 };
		enum x86_mode m = modes[i % 3];
		uint8_t buf[X86_MAX_INSN_LEN];
		struct x86_cofi c, c2;

		for (j = 0; j < sizeof(buf); j++) {
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			buf[j] = (uint8_t)st;
		}
		if (x86_cofi_decode(buf, sizeof(buf), m, &c))
			continue;
		ck_assert(c.len >= 1 && c.len <= X86_MAX_INSN_LEN);
		ck_assert_int_eq(x86_cofi_decode(buf, c.len, m, &c2), 0);
		ck_assert(c.kind == c2.kind && c.len == c2.len &&
			  c.disp_size == c2.disp_size && c.disp == c2.disp &&
			  c.opsize == c2.opsize);
		ck_assert_int_eq(x86_cofi_decode(buf, c.len - 1u, m, &c2), -EAGAIN);
	}
}
END_TEST

static Suite *x86_cofi_suite(void)
{
	Suite *s = suite_create("x86_cofi");
	TCase *tc = tcase_create("decode");

	tcase_set_timeout(tc, 120);	/* shared, loaded machines */
	tcase_add_test(tc, test_gas_table);
	tcase_add_loop_test(tc, test_hand_cases, 0, NR_HAND_CASES);
	tcase_add_test(tc, test_targets);
	tcase_add_test(tc, test_bad_args);
	tcase_add_test(tc, test_exhaustive_short);
	tcase_add_test(tc, test_random_prefix_property);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(x86_cofi_suite(), CK_NORMAL);
}
