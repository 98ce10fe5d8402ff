// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libpt/cov_scan.h, the coverage decoder's word-at-a-time
 * packet scanning: cov_tnt_run() (runs of PAD and TNT.8, SDM 33.4.2
 * Table 33-3) with and without PEXT, and the byte that ends a run, and
 * cov_ip_fast() (IP compression,
 * SDM 33.4.2.2 Table 33-18), each against a byte-at-a-time reference on
 * random bytes that are mostly PADs and TNT.8s, as real traces are.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libpt/cov_scan.h"
#include "tests/check_run.h"

#define REQUIRE(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* A byte: PAD, TNT.8, 0x02 (extended), or any odd one. */
static uint8_t rnd_byte(void)
{
	switch (rnd() % 8) {
	case 0: case 1: case 2:
		return 0x00;
	case 3: case 4: case 5:
		return (uint8_t)((rnd() % 127 + 2) * 2);	/* 0x04..0xfe */
	case 6:
		return 0x02;
	default:
		return (uint8_t)(rnd() | 1);
	}
}

/* The reference: one byte at a time. */
static void ref_run(const uint8_t *p, const uint8_t *end, unsigned int max,
		    struct cov_run *r)
{
	const uint8_t *q = p;

	r->tnt = 0;
	r->n = 0;
	while (q < end && r->n < max) {
		if (*q == 0x00) {
			q++;
		} else if (!(*q & 1) && *q != 0x02) {
			r->tnt |= (uint64_t)*q << (8 * r->n);
			r->n++;
			q++;
		} else {
			break;
		}
	}
	r->q = q;
}

static bool have_pext(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("bmi2");
#else
	return false;
#endif
}

START_TEST(tnt_run_random)
{
	uint8_t buf[64];
	bool pext = _i && have_pext();

	if (_i && !pext)
		return;		/* no BMI2 here: the loop variant was tested */
	for (int k = 0; k < 200000; k++) {
		size_t len = rnd() % sizeof(buf) + 1, off = rnd() % len;
		unsigned int max = rnd() % 8 + 1;
		struct cov_run a, b;

		for (size_t i = 0; i < len; i++)
			buf[i] = rnd_byte();
		cov_tnt_run(buf + off, buf + len, max, pext, &a);
		ref_run(buf + off, buf + len, max, &b);
		REQUIRE(a.n == b.n && a.tnt == b.tnt && a.q == b.q,
			"pext %d max %u at %zu of %zu: n %u tnt %llx q %td, ref n %u tnt %llx q %td",
			pext, max, off, len, a.n, (unsigned long long)a.tnt,
			a.q - buf, b.n, (unsigned long long)b.tnt, b.q - buf);
		/* the byte that ended the run, when it says it read it */
		REQUIRE(a.hdr > 0xff || (a.q < buf + len && a.hdr == *a.q),
			"hdr %x at %td", a.hdr, a.q - buf);
	}
}
END_TEST

/* Long PAD runs, eight TNT.8s and more, the run's end on every byte of
 * a word. */
START_TEST(tnt_run_edges)
{
	uint8_t buf[40];
	bool pext = have_pext();

	for (size_t stop = 0; stop < 32; stop++) {
		for (unsigned int max = 1; max <= 8; max++) {
			struct cov_run a, b, c;

			memset(buf, 0, sizeof(buf));
			for (size_t i = 0; i < stop; i += 3)
				buf[i] = 0x04;
			buf[stop] = 0x0d;	/* a TIP: ends the run */
			cov_tnt_run(buf, buf + sizeof(buf), max, false, &a);
			cov_tnt_run(buf, buf + sizeof(buf), max, pext, &c);
			ref_run(buf, buf + sizeof(buf), max, &b);
			ck_assert(a.n == b.n && a.tnt == b.tnt && a.q == b.q);
			ck_assert(c.n == b.n && c.tnt == b.tnt && c.q == b.q);
			/* the trace ends before the TIP */
			cov_tnt_run(buf, buf + stop, max, false, &a);
			ref_run(buf, buf + stop, max, &b);
			ck_assert(a.n == b.n && a.tnt == b.tnt && a.q == b.q);
		}
	}
}
END_TEST

/* SDM Table 33-18, byte by byte. */
static uint64_t ref_ip(const uint8_t *pl, unsigned int ipb, uint64_t last)
{
	uint64_t v = 0;
	unsigned int n = ipb == 6 ? 8 : ipb >= 3 ? 6 : 2 * ipb;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)pl[i] << (8 * i);
	switch (ipb) {
	case 1:
		return (last & ~0xffffull) | v;
	case 2:
		return (last & ~0xffffffffull) | v;
	case 3:
		return (v & (1ull << 47)) ? v | 0xffff000000000000ull : v;
	case 4:
		return (last & ~0xffffffffffffull) | v;
	default:
		return v;
	}
}

START_TEST(ip_fast_random)
{
	static const unsigned int ipbs[] = { 1, 2, 3, 4, 6 };
	uint8_t pl[8];

	for (int k = 0; k < 100000; k++) {
		unsigned int ipb = ipbs[rnd() % 5];
		uint64_t last = (uint64_t)rnd() << 32 | rnd();

		for (int i = 0; i < 8; i++)
			pl[i] = (uint8_t)rnd();
		if (k & 1)
			pl[5] |= 0x80;	/* bit 47 set: sign extension */
		REQUIRE(cov_ip_fast(pl, ipb, last) == ref_ip(pl, ipb, last),
			"IPBytes %u", ipb);
	}
}
END_TEST

static Suite *scan_suite(void)
{
	Suite *s = suite_create("cov_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_loop_test(tc, tnt_run_random, 0, 2);	/* 0: loop, 1: PEXT */
	tcase_add_test(tc, tnt_run_edges);
	tcase_add_test(tc, ip_fast_random);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(scan_suite(), CK_ENV);
}
