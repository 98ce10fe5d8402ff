// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel version gate of LWP (kmod/lwp/lwp_kver.h, issue 38 §3): which
 * kernels' sigreturn masks the restored XSAVE features with
 * fpstate->user_xfeatures (d877550eaf2d and its stable backports,
 * Documentation/lwp.rst "Kernel version gate"), for a list of versions
 * around each boundary.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>

#include "kmod/lwp/lwp_kver.h"
#include "tests/check_run.h"

static const struct {
	unsigned int v, p, s;
	bool masked;
} kvers[] = {
	{ 5, 10, 250, false },
	{ 5, 15, 200, false },
	{ 6, 0, 19, false },
	{ 6, 1, 0, false },
	{ 6, 1, 76, false },	/* Debian 6.1.0-18 */
	{ 6, 1, 78, false },	/* the last without it */
	{ 6, 1, 79, true },	/* stable review 6.1 128/197, 20 Feb 2024 */
	{ 6, 1, 82, true },	/* Debian 6.1.82-1, first Debian with it */
	{ 6, 1, 192, true },	/* Debian 6.1.0-57, the test VM's kernel */
	{ 6, 1, 300, true },	/* sublevels above 255 are not capped */
	{ 6, 2, 16, false },	/* 6.2 to 6.5 ended before the fix */
	{ 6, 5, 13, false },
	{ 6, 6, 17, false },
	{ 6, 6, 18, true },
	{ 6, 7, 5, false },
	{ 6, 7, 6, true },
	{ 6, 8, 0, true },	/* d877550eaf2d is in v6.8-rc4 */
	{ 6, 12, 1, true },
	{ 7, 0, 0, true },
	{ 4, 19, 300, false },
};

START_TEST(gate)
{
	unsigned int i;

	for (i = 0; i < sizeof(kvers) / sizeof(kvers[0]); i++)
		ck_assert_msg(lwp_kver_sigreturn_masked(kvers[i].v, kvers[i].p,
							kvers[i].s) ==
			      kvers[i].masked, "%u.%u.%u: want %s", kvers[i].v,
			      kvers[i].p, kvers[i].s,
			      kvers[i].masked ? "masked" : "unmasked");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lwp_kver");
	TCase *tc = tcase_create("gate");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, gate);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
