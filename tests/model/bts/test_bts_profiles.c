// SPDX-License-Identifier: GPL-2.0
/*
 * Every field of every branch-recording profile (model/bts/bts_profiles.c)
 * against tests/model/bts/bts_profiles.exp: the profiles are written as a
 * base and what each changes, and this pins what they come to. A change to
 * a profile changes the .exp file with it (TEST_BTS_PROFILES_DUMP=1 prints
 * the dump to copy there).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bts/bts_model.h"
#include "tests/check_run.h"

static const char *const names[] = {
	"core2", "nhm", "pmv4", "nocpl", "btsoff", "nods", "hsw", "skl", "glm", "glp",
};

/* One line per field, "profile.field value". */
static size_t dump(char *buf, size_t size)
{
	size_t n = 0, i;

#define F(p, f, fmt, v) \
	(n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s." #f " " fmt "\n", \
			       (p)->name, (v)))
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct bts_model_profile *p = bts_model_profile_find(names[i]);

		ck_assert_ptr_nonnull(p);
		F(p, ds, "%d", p->ds);
		F(p, dtes64, "%d", p->dtes64);
		F(p, ds_cpl, "%d", p->ds_cpl);
		F(p, pdcm, "%d", p->pdcm);
		F(p, bts_unavailable, "%d", p->bts_unavailable);
		F(p, pebs_unavailable, "%d", p->pebs_unavailable);
		F(p, perfmon_version, "%u", p->perfmon_version);
		F(p, lbr_depth, "%u", p->lbr_depth);
		F(p, lbr_from_msr, "%#x", (unsigned int)p->lbr_from_msr);
		F(p, lbr_to_msr, "%#x", (unsigned int)p->lbr_to_msr);
		F(p, lbr_select, "%d", p->lbr_select);
		F(p, lbr_callstack, "%d", p->lbr_callstack);
		F(p, lbr_format, "%u", (unsigned int)p->lbr_format);
		F(p, tsx, "%d", p->tsx);
		F(p, freeze_while_smm, "%d", p->freeze_while_smm);
		F(p, uncore_pmi, "%d", p->uncore_pmi);
		F(p, lbr_pt_exclusive, "%d", p->lbr_pt_exclusive);
		F(p, erratum_aj106, "%d", p->erratum_aj106);
		F(p, linear_bits, "%u", p->linear_bits);
		F(p, sig, "%#x", (unsigned int)p->sig);
	}
#undef F
	return n;
}

START_TEST(test_profile_fields)
{
	static char got[16384], want[16384];
	size_t n = dump(got, sizeof(got)), m;
	FILE *f;

	ck_assert_uint_lt(n, sizeof(got));
	if (getenv("TEST_BTS_PROFILES_DUMP"))
		fputs(got, stdout), fflush(stdout);
	f = fopen("tests/model/bts/bts_profiles.exp", "r");
	ck_assert_msg(f != NULL, "tests/model/bts/bts_profiles.exp: run from the tree's top");
	m = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[m] = '\0';
	for (size_t i = 0; i < n || i < m; i++) {
		if (got[i] == want[i])
			continue;
		const char *line = got + i;

		while (line > got && line[-1] != '\n')
			line--;
		ck_abort_msg("profiles differ from bts_profiles.exp at: %.60s", line);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bts_profiles");
	TCase *tc = tcase_create("profiles");

	tcase_add_test(tc, test_profile_fields);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
