// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap -C LIST (tools/ptcap/cpusel.c): the CPUs of a system-wide capture,
 * refused with a message when the list is malformed, names a CPU that does
 * not exist, or one that is offline.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ptcap/cpusel.h"
#include "tests/check_run.h"

static struct ptcap_cpusel sel;
static char why[512];

START_TEST(parses_perf_syntax)
{
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "0,2-3", 4, why, sizeof(why)), 0);
	ck_assert_uint_eq(sel.count, 3);
	ck_assert_uint_eq(sel.mask[0], 0xd);
	ck_assert_uint_eq(sel.words, 1);
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "64", 65, why, sizeof(why)), 0);
	ck_assert_uint_eq(sel.words, 2);
	ck_assert_uint_eq(sel.mask[1], 1);
}
END_TEST

START_TEST(refuses_with_a_message)
{
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "0,,1", 4, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "bad CPU list '0,,1' at ',1'"));
	ck_assert_ptr_nonnull(strstr(why, "e.g. -C 0,2-3"));
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "", 4, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "1,4", 4, why, sizeof(why)), -ERANGE);
	ck_assert_ptr_nonnull(strstr(why, "CPU '4' does not exist: CPUs are 0-3"));
}
END_TEST

START_TEST(offline)
{
	ck_assert_int_eq(ptcap_cpusel_parse(&sel, "0-1,3", 8, why, sizeof(why)), 0);
	ck_assert_int_eq(ptcap_cpusel_offline(&sel, "0-7\n"), -1);
	ck_assert_int_eq(ptcap_cpusel_offline(&sel, "0-2,4-7\n"), 3);
	ck_assert_int_eq(ptcap_cpusel_offline(&sel, "1-7\n"), 0);
	/* Unreadable or garbled: the module decides (ENODEV). */
	ck_assert_int_eq(ptcap_cpusel_offline(&sel, NULL), -1);
	ck_assert_int_eq(ptcap_cpusel_offline(&sel, "x\n"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptcap_cpusel");
	TCase *tc = tcase_create("cpusel");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, parses_perf_syntax);
	tcase_add_test(tc, refuses_with_a_message);
	tcase_add_test(tc, offline);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
