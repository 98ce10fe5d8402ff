// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl's door to the coverage decoder (tools/ptafl/ptafl_cov.c, issue 26
 * "Lost traces"): a trace that cannot be decoded to its end is an error
 * (ptafl then clears the run's map), whatever the bytes: no PSB at all,
 * random bytes, a PSB followed by junk; the decoder never crashes on them.
 * An empty image file is refused with its name. The slot function is the
 * decoder's (ptcov.rst "Maps and the slot function"), so the ptrace source fills the
 * same bytes.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_cov.h>

#include "tools/ptafl/ptafl_cov.h"
#include "tests/check_run.h"

static char magic[256];

static struct ptafl_cov *cov_new(void)
{
	struct ptcap_vma v = { .start = 0x400000, .end = 0x404000, .offset = 0, .path = magic };
	struct ptcap_range r = { .a = 0x401000, .b = 0x401fff };
	struct ptafl_cov_setup s = { .vma = &v, .nvma = 1, .filter = &r, .nfilter = 1,
				     .cpu = "6/85", .map_size = 65536 };
	struct ptafl_cov *c = NULL;
	char err[256];

	ck_assert_int_eq(ptafl_cov_new(&c, &s, err, sizeof(err)), 0);
	return c;
}

START_TEST(junk)
{
	static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
	struct ptafl_cov *c = cov_new();
	uint8_t *map = calloc(1, 65536), buf[4096];
	unsigned int i, seed = 1;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(rand_r(&seed) & 0xff);
	ck_assert_int_lt(ptafl_cov_decode(c, buf, sizeof(buf), map), 0);
	memset(buf, 0xd9, sizeof(buf));			/* no PSB */
	ck_assert_int_lt(ptafl_cov_decode(c, buf, sizeof(buf), map), 0);
	memcpy(buf, psb, sizeof(psb));			/* a PSB, then junk */
	for (i = sizeof(psb); i < sizeof(buf); i++)
		buf[i] = (uint8_t)(rand_r(&seed) & 0xff);
	ck_assert_int_lt(ptafl_cov_decode(c, buf, sizeof(buf), map), 0);
	ptafl_cov_free(c);
	free(map);
}
END_TEST

START_TEST(bad_file)
{
	struct ptcap_vma v = { .start = 0x400000, .end = 0x401000, .path = "/dev/null" };
	struct ptafl_cov_setup s = { .vma = &v, .nvma = 1, .map_size = 65536 };
	struct ptafl_cov *c = NULL;
	char err[256] = "";

	ck_assert_int_lt(ptafl_cov_new(&c, &s, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "/dev/null"));
}
END_TEST

START_TEST(slot)
{
	ck_assert_uint_eq(ptafl_edge_slot(0x401000, 0x401020, 65536),
			  lpt_cov_slot(0x401000, 0x401020, 65536));
	ck_assert_uint_lt(ptafl_edge_slot(~0ull, 1, 1024), 1024);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptafl_cov");
	TCase *tc = tcase_create("core");
	const char *o = getenv("O");

	snprintf(magic, sizeof(magic), "%s/tests/ptafl_magic", o ? o : "build");
	tcase_add_test(tc, junk);
	tcase_add_test(tc, bad_file);
	tcase_add_test(tc, slot);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
