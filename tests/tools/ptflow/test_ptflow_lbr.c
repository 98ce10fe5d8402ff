// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptflow's reader of `lwpt-lbr 1` files and their config
 * lines (tools/ptflow/ptflow_lbr.h; Documentation/ptcap-format.rst "LBR
 * stacks"): a file as ptcap --lbr-on-crash writes it, unknown keys
 * skipped, a wrong magic, a malformed branch line and too many branches
 * refused; the config line found for its trace only, names with '/'
 * refused.
 */
#include "tools/ptflow/ptflow_lbr.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include "tests/check_run.h"

static const char good[] =
	"lwpt-lbr 1\n"
	"# the LBR stack at the fatal signal, most recent branch first\n"
	"tid 173\nsignal 11\ndepth 16\nformat 3\nflags mispred\n"
	"later-key 5\n"
	"branch 0x47b5eb 0x47b5f9\n"
	"branch 0x47b539 0x47b5da mispred\n"
	"branch 0x47b500 0x47b520 in_tx abort cycles=65535 later-word\n"
	"branch 0x47b4f0 0x47b4f8 mispred cycles=7\n";

START_TEST(parse_good)
{
	struct ptflow_lbr l;

	ck_assert_int_eq(ptflow_lbr_parse(good, strlen(good), &l), 0);
	ck_assert_uint_eq(l.tid, 173);
	ck_assert_int_eq(l.signal, 11);
	ck_assert_uint_eq(l.depth, 16);
	ck_assert_uint_eq(l.nr, 4);
	ck_assert_uint_eq(l.from[0], 0x47b5eb);
	ck_assert_uint_eq(l.to[0], 0x47b5f9);
	ck_assert(!l.mispred[0]);
	ck_assert_int_eq(l.cycles[0], -1);
	ck_assert_uint_eq(l.from[1], 0x47b539);
	ck_assert(l.mispred[1]);
	ck_assert(!l.in_tx[1] && !l.abort[1]);
	/* Formats 4 and 5 (ABI 1.11): TSX flags, cycles; unknown words skipped. */
	ck_assert(l.in_tx[2] && l.abort[2] && !l.mispred[2]);
	ck_assert_int_eq(l.cycles[2], 65535);
	ck_assert(l.mispred[3] && !l.in_tx[3]);
	ck_assert_int_eq(l.cycles[3], 7);
	/* Not NUL-terminated: the last line without its newline. */
	ck_assert_int_eq(ptflow_lbr_parse(good, strlen(good) - 1, &l), 0);
	ck_assert_uint_eq(l.nr, 4);
	ck_assert_int_eq(l.cycles[3], 7);
}
END_TEST

START_TEST(parse_bad)
{
	struct ptflow_lbr l;
	char many[4096];
	size_t n;
	int i;

	ck_assert_int_eq(ptflow_lbr_parse("", 0, &l), -1);
	ck_assert_int_eq(ptflow_lbr_parse("lwpt-lbr 2\n", 11, &l), -1);
	ck_assert_int_eq(ptflow_lbr_parse("lwpt-lbr 1\nbranch zz\n", 21, &l), -1);
	{
		static const char *const bad[] = {
			"lwpt-lbr 1\nbranch 0x1 0x2 cycles=65536\n",
			"lwpt-lbr 1\nbranch 0x1 0x2 cycles=-1\n",
			"lwpt-lbr 1\nbranch 0x1 0x2 cycles=\n",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ck_assert_int_eq(ptflow_lbr_parse(bad[i], strlen(bad[i]), &l), -1);
	}
	n = (size_t)snprintf(many, sizeof(many), "lwpt-lbr 1\n");
	for (i = 0; i < PTFLOW_LBR_MAX + 1; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "branch 0x%x 0x%x\n",
				      i + 1, i + 2);
	ck_assert_int_eq(ptflow_lbr_parse(many, n, &l), -1);
}
END_TEST

START_TEST(config_line)
{
	static const char cfg[] =
		"format bts\n"
		"lbr-crash.tid17.bts tid17.lbr signal=11\n"
		"lbr-crash.tid18.bts ../x.lbr signal=6\n";
	char name[64];

	ck_assert(ptflow_lbr_config_file(cfg, strlen(cfg), "tid17.bts", name, sizeof(name)));
	ck_assert_str_eq(name, "tid17.lbr");
	ck_assert(!ptflow_lbr_config_file(cfg, strlen(cfg), "tid1.bts", name, sizeof(name)));
	ck_assert(!ptflow_lbr_config_file(cfg, strlen(cfg), "tid18.bts", name, sizeof(name)));
	ck_assert(!ptflow_lbr_config_file(cfg, strlen(cfg), "tid17.bts", name, 4));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptflow_lbr");
	TCase *tc = tcase_create("lbr");

	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	tcase_add_test(tc, config_line);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
