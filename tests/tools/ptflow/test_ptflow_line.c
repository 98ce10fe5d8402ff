// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptflow's line formatter (tools/ptflow/ptflow_line.h)
 * against the printf formats it replaced in print_insn() and print_sym():
 * "%016" PRIx64, "%" PRIx64, "%02x", "%d" and "%s" on edge values, on a
 * pseudo-random sequence (many buffer flushes), on strings around the
 * buffer's size, and on a line longer than the buffer (written in pieces,
 * bytes unchanged).
 */
#include "tools/ptflow/ptflow_line.h"

#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check_run.h"

static const uint64_t edges[] = {
	0, 1, 9, 0xa, 0xf, 0x10, 0x99, 0xaa, 0xff, 0x100, 0x1234567890abcdefull,
	0xfedcba0987654321ull, 0xffffffffull, 0x100000000ull,
	0xffffffff00000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xffffffffffffffffull, 0x0a0a0a0a0a0a0a0aull, 0x9f9f9f9f9f9f9f9full,
};

static const int int_edges[] = {
	0, 1, -1, 9, 10, -10, 99, 100, 12345, -12345, INT_MAX, INT_MIN,
	INT_MIN + 1,
};

/* A stream into memory for the formatter, and the same for printf. */
struct pair {
	char *got, *exp;
	size_t got_len, exp_len;
	FILE *g, *e;
	struct ptflow_line l;
};

static void pair_open(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->g = open_memstream(&p->got, &p->got_len);
	p->e = open_memstream(&p->exp, &p->exp_len);
	ck_assert_ptr_nonnull(p->g);
	ck_assert_ptr_nonnull(p->e);
	ptflow_line_init(&p->l, p->g);
}

/* Flush both, compare byte for byte, free. */
static void pair_check(struct pair *p)
{
	ptflow_line_flush(&p->l);
	fclose(p->g);
	fclose(p->e);
	ck_assert_uint_eq(p->got_len, p->exp_len);
	ck_assert_int_eq(memcmp(p->got, p->exp, p->got_len), 0);
	free(p->got);
	free(p->exp);
}

static void one_value(struct pair *p, uint64_t v)
{
	ptflow_line_hex16(&p->l, v);
	fprintf(p->e, "%016" PRIx64, v);
	ptflow_line_mem(&p->l, " <", 2);
	fprintf(p->e, " <");
	ptflow_line_hex(&p->l, v);
	fprintf(p->e, "%" PRIx64, v);
	ptflow_line_char(&p->l, ' ');
	ptflow_line_hex2(&p->l, (uint8_t)v);
	fprintf(p->e, " %02x", (unsigned int)(uint8_t)v);
	ptflow_line_char(&p->l, ' ');
	ptflow_line_int(&p->l, (int)(int32_t)v);
	fprintf(p->e, " %d", (int)(int32_t)v);
	ptflow_line_char(&p->l, '\n');
	fputc('\n', p->e);
}

START_TEST(test_edges)
{
	struct pair p;
	unsigned int i;

	pair_open(&p);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		one_value(&p, edges[i]);
	for (i = 0; i < sizeof(int_edges) / sizeof(int_edges[0]); i++) {
		ptflow_line_int(&p.l, int_edges[i]);
		fprintf(p.e, "%d", int_edges[i]);
		ptflow_line_char(&p.l, ',');
		fputc(',', p.e);
	}
	pair_check(&p);
}
END_TEST

/* xorshift64 values: every digit in every place, many flushes. */
START_TEST(test_random)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	struct pair p;
	unsigned int i;

	pair_open(&p);
	for (i = 0; i < 20000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		one_value(&p, s);
		/* values with leading zeros too */
		one_value(&p, s >> (i % 64));
	}
	pair_check(&p);
}
END_TEST

/* The lengths test_strings() writes: around each limit of the buffer. */
static const size_t str_lens[] = {
	0, 1, 2, 15, 16, 17, 100, 160, 511, 512, 513,
	PTFLOW_LINE_MAX - PTFLOW_LINE_FIELD - 1,
	PTFLOW_LINE_MAX - PTFLOW_LINE_FIELD,
	PTFLOW_LINE_MAX - PTFLOW_LINE_FIELD + 1,
	PTFLOW_LINE_MAX - 17, PTFLOW_LINE_MAX - 16, PTFLOW_LINE_MAX - 1,
	PTFLOW_LINE_MAX, PTFLOW_LINE_MAX + 1, 2 * PTFLOW_LINE_MAX + 3,
};

/*
 * Strings of lengths around the buffer's limits, each after a field and
 * then at every fill level of the buffer that matters (the position moves
 * by 17 bytes a line): kept in the buffer or written through, in order.
 */
START_TEST(test_strings)
{
	static char s[3 * PTFLOW_LINE_MAX + 1];
	struct pair p;
	size_t i, k, n;

	for (n = 0; n < sizeof(s) - 1; n++)
		s[n] = (char)('a' + n % 26);
	pair_open(&p);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < sizeof(str_lens) / sizeof(str_lens[0]); i++) {
			char c;

			n = str_lens[i];
			c = s[n];
			s[n] = 0;
			ptflow_line_hex16(&p.l, n);
			ptflow_line_char(&p.l, ' ');
			ptflow_line_str(&p.l, s);
			ptflow_line_char(&p.l, '\n');
			fprintf(p.e, "%016zx %s\n", n, s);
			s[n] = c;
		}
	}
	pair_check(&p);
}
END_TEST

/* One line far longer than the buffer, made of fixed fields only. */
START_TEST(test_long_line)
{
	struct pair p;
	unsigned int i;

	pair_open(&p);
	for (i = 0; i < PTFLOW_LINE_MAX / 4; i++) {
		ptflow_line_hex16(&p.l, i);
		ptflow_line_mem(&p.l, "  ", 2);
		ptflow_line_hex2(&p.l, (uint8_t)i);
		fprintf(p.e, "%016x  %02x", i, i & 0xff);
	}
	ptflow_line_char(&p.l, '\n');
	fputc('\n', p.e);
	pair_check(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptflow_line");
	TCase *tc = tcase_create("printf");

	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_long_line);
	/* About 0.3 M formatted fields and 1 MB of strings: well under this. */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
