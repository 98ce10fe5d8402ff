// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptdump's number formatting (tools/ptdump/out.h) against
 * printf: put_hex16() and put_hex16_cached() (SWAR, the offset column and
 * 16-digit payloads), put_hex_n(), put_hex() and put_dec(), on edge values
 * and on a pseudo-random sequence that reaches every digit in every place.
 */
#include "tools/ptdump/out.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "tests/check_run.h"

static const uint64_t edges[] = {
	0, 1, 9, 0xa, 0xf, 0x10, 0x99, 0xaa, 0xff, 0x1234567890abcdefull,
	0xfedcba0987654321ull, 0xffffffffull, 0x100000000ull,
	0xffffffff00000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xffffffffffffffffull, 0x0a0a0a0a0a0a0a0aull, 0x9f9f9f9f9f9f9f9full,
};

static uint64_t next(uint64_t *s)
{
	/* xorshift64 */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_one(uint64_t v, struct hex16_cache *c)
{
	char exp[32], got[32];
	unsigned int n;
	char *end;

	snprintf(exp, sizeof(exp), "%016" PRIx64, v);
	end = put_hex16(got, v);
	ck_assert_ptr_eq(end, got + 16);
	*end = 0;
	ck_assert_str_eq(got, exp);

	end = put_hex16_cached(got, v, c);
	*end = 0;
	ck_assert_str_eq(got, exp);

	snprintf(exp, sizeof(exp), "%" PRIx64, v);
	*put_hex(got, v) = 0;
	ck_assert_str_eq(got, exp);

	for (n = 1; n <= 16; n++) {
		snprintf(exp, sizeof(exp), "%0*" PRIx64, (int)n,
			 n < 16 ? v & (((uint64_t)1 << (4 * n)) - 1) : v);
		*put_hex_n(got, v, n) = 0;
		ck_assert_str_eq(got, exp);
	}

	snprintf(exp, sizeof(exp), "%" PRIu64, v);
	*put_dec(got, v) = 0;
	ck_assert_str_eq(got, exp);
}

START_TEST(test_edges)
{
	struct hex16_cache c = { ~0ull, 0 };
	size_t i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_one(edges[i], &c);
}
END_TEST

START_TEST(test_random)
{
	struct hex16_cache c = { ~0ull, 0 };
	uint64_t s = 0x9e3779b97f4a7c15ull, v;
	int i;

	for (i = 0; i < 20000; i++) {
		v = next(&s);
		/* Also runs of offsets that share their upper half. */
		check_one(v, &c);
		check_one(v + 1, &c);
		check_one(v >> (i & 63), &c);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptdump_out");
	TCase *tc = tcase_create("printf");

	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_random);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
