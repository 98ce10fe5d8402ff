// SPDX-License-Identifier: GPL-2.0
/*
 * x86_ptwrite_decode() and x86_ptwrite_ea() against GNU as encodings of
 * PTWRITE (SDM Vol. 2 "PTWRITE"; addressing: Vol. 2 2.1.5, 2.2.1).
 */
#include <check.h>
#include <stdlib.h>

#include "model/x86/x86_ptwrite.h"
#include "tests/check_run.h"

/* Registers: gpr[n] = 0x1000 * (n + 1). */
static uint64_t gpr[16];

struct ptw_case {
	const char *what;		/* GNU as syntax */
	uint8_t bytes[15];
	uint8_t len;
	uint8_t size;			/* 4 or 8 */
	bool mem;
	uint8_t reg;
	uint64_t ea;			/* with next IP 0x400000 + len */
};

#define R(n) (0x1000ull * ((n) + 1))

static const struct ptw_case cases[] = {
	{ "ptwrite %rdi", { 0xf3, 0x48, 0x0f, 0xae, 0xe7 }, 5, 8, false, 7, 0 },
	{ "ptwrite %eax", { 0xf3, 0x0f, 0xae, 0xe0 }, 4, 4, false, 0, 0 },
	{ "ptwrite %r12", { 0xf3, 0x49, 0x0f, 0xae, 0xe4 }, 5, 8, false, 12, 0 },
	{ "ptwritel (%rdx)", { 0xf3, 0x0f, 0xae, 0x22 }, 4, 4, true, 0, R(2) },
	{ "ptwriteq 8(%rsp)", { 0xf3, 0x48, 0x0f, 0xae, 0x64, 0x24, 0x08 }, 7, 8,
	  true, 0, R(4) + 8 },
	{ "ptwriteq 0x1234(%rip)", { 0xf3, 0x48, 0x0f, 0xae, 0x25, 0x34, 0x12, 0, 0 },
	  9, 8, true, 0, 0x400009 + 0x1234 },
	{ "ptwritel -4(%rbp,%r9,4)", { 0xf3, 0x42, 0x0f, 0xae, 0x64, 0x8d, 0xfc }, 7, 4,
	  true, 0, R(5) + R(9) * 4 - 4 },
	{ "ptwriteq 0x10(,%rax,8)", { 0xf3, 0x48, 0x0f, 0xae, 0x24, 0xc5, 0x10, 0, 0, 0 },
	  10, 8, true, 0, R(0) * 8 + 0x10 },
	{ "ptwriteq 0(%r13)", { 0xf3, 0x49, 0x0f, 0xae, 0x65, 0x00 }, 6, 8, true, 0, R(13) },
	{ "addr32 ptwritel (%eax)", { 0x67, 0xf3, 0x0f, 0xae, 0x20 }, 5, 4, true, 0, R(0) },
	{ "ptwriteq 0x12345678(%r8,%r15,2)",
	  { 0xf3, 0x4b, 0x0f, 0xae, 0xa4, 0x78, 0x78, 0x56, 0x34, 0x12 }, 10, 8, true, 0,
	  R(8) + R(15) * 2 + 0x12345678 },
};

START_TEST(test_gas_cases)
{
	unsigned int i, n;
	struct x86_ptwrite pw;

	for (i = 0; i < 16; i++)
		gpr[i] = R(i);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ptw_case *c = &cases[i];

		ck_assert_msg(x86_ptwrite_decode(c->bytes, c->len, X86_MODE_64, &pw) == 0,
			      "%s", c->what);
		ck_assert_msg(pw.len == c->len && pw.size == c->size && pw.mem == c->mem,
			      "%s: len %u size %u mem %d", c->what, pw.len, pw.size, pw.mem);
		if (c->mem)
			ck_assert_msg(x86_ptwrite_ea(&pw, gpr, 0x400000 + c->len) == c->ea,
				      "%s: ea %#llx", c->what,
				      (unsigned long long)x86_ptwrite_ea(&pw, gpr, 0x400000 + c->len));
		else
			ck_assert_msg(pw.reg == c->reg, "%s: reg %u", c->what, pw.reg);
		/* One byte short: need more bytes. */
		for (n = 0; n < c->len; n++)
			ck_assert_msg(x86_ptwrite_decode(c->bytes, n, X86_MODE_64, &pw) == -EAGAIN,
				      "%s cut to %u", c->what, n);
	}
}
END_TEST

/* Not PTWRITE: XSAVE (no F3), other /r, 66 prefix, other modes, NULL. */
START_TEST(test_not_ptwrite)
{
	static const uint8_t xsave[] = { 0x0f, 0xae, 0x22 };
	static const uint8_t rdfsbase[] = { 0xf3, 0x48, 0x0f, 0xae, 0xc0 };
	static const uint8_t opsize[] = { 0x66, 0xf3, 0x0f, 0xae, 0xe0 };
	static const uint8_t fs[] = { 0x64, 0xf3, 0x0f, 0xae, 0x20 };
	static const uint8_t nop[] = { 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t ok[] = { 0xf3, 0x0f, 0xae, 0xe0 };
	struct x86_ptwrite pw;

	ck_assert_int_eq(x86_ptwrite_decode(xsave, sizeof(xsave), X86_MODE_64, &pw), -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(rdfsbase, sizeof(rdfsbase), X86_MODE_64, &pw),
			 -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(opsize, sizeof(opsize), X86_MODE_64, &pw), -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(fs, sizeof(fs), X86_MODE_64, &pw), -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(nop, sizeof(nop), X86_MODE_64, &pw), -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(ok, sizeof(ok), X86_MODE_32, &pw), -ENOENT);
	ck_assert_int_eq(x86_ptwrite_decode(NULL, 4, X86_MODE_64, &pw), -EINVAL);
	ck_assert_int_eq(x86_ptwrite_decode(ok, sizeof(ok), X86_MODE_64, NULL), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("x86_ptwrite");
	TCase *tc = tcase_create("decode");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_gas_cases);
	tcase_add_test(tc, test_not_ptwrite);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
