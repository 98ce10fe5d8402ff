// SPDX-License-Identifier: GPL-2.0
/*
 * The LBR stack as /dev/bts's LBR snapshots use it (kmod/bts/lbr_msr.c,
 * Documentation/bts.rst "LBR snapshots"), on every profile of the model:
 *   - a thread's stack saved through RDMSR of TOS and FROM/TO (17.4.8)
 *     and written back with WRMSR on another processor (the context
 *     switch) is accepted without #GP in each format (17.4.8.1, Table
 *     17-8's MISPRED bit included) and continues the same: the next
 *     branch lands in the same slot with the same contents (formats 4
 *     and 5, hsw and skl, with MSR_LBR_INFO_n, as lbr_msr.c does);
 *   - the freeze on PMI and its undoing (17.4.7, 17.10.2): legacy
 *     (perfmon 2-3) clears DEBUGCTL.LBR, set again by the load; streamlined
 *     (perfmon 4) sets LBR_Frz, cleared through bit 58 of
 *     IA32_PERF_GLOBAL_STATUS_RESET;
 *   - each profile's CPUID.1 signature is family 6 and a DisplayModel
 *     whose LBR depth and MSR addresses (perf's intel_pmu_lbr_init_*(),
 *     Table 17-4) are the profile's.
 */
#include <check.h>
#include <string.h>

#include "model/bts/bts_model.h"
#include "tests/check_run.h"

static int rd(void *ctx, uint64_t la, void *buf, size_t len)
{
	(void)ctx; (void)la; (void)buf; (void)len;
	return -1;
}

static int wr(void *ctx, uint64_t la, const void *buf, size_t len)
{
	(void)ctx; (void)la; (void)buf; (void)len;
	return -1;
}

static const struct bts_model_ops ops = { .read_lin = rd, .write_lin = wr };

static const char *const names[] = {
	"core2", "nhm", "pmv4", "nocpl", "btsoff", "nods", "hsw", "skl", "glm", "glp",
};

static void branch(struct bts_model_cpu *c, uint64_t from, uint64_t to, bool mis)
{
	struct bts_branch b = {
		.kind = BTS_BR_JCC, .from = from, .to = to, .cpl = 3,
		.mode = X86_MODE_64, .mispredicted = mis,
	};

	ck_assert_int_eq(bts_model_branch(c, &b), BTS_MODEL_OK);
}

static void lbr_on(struct bts_model_cpu *c)
{
	ck_assert_int_eq(bts_model_wrmsr(c, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), BTS_MODEL_OK);
}

START_TEST(switch_roundtrip)
{
	const struct bts_model_profile *p = bts_model_profile_find(names[_i]);
	struct bts_model_cpu a, b;
	unsigned int i, n = p->lbr_depth + 3;
	uint64_t v, w;

	ck_assert_int_eq(bts_model_cpu_init(&a, p, &ops, NULL, 0), BTS_MODEL_OK);
	ck_assert_int_eq(bts_model_cpu_init(&b, p, &ops, NULL, 1), BTS_MODEL_OK);
	lbr_on(&a);
	for (i = 0; i < n; i++)
		branch(&a, 0x401000 + 16 * i, 0x402000 + 16 * i, i & 1);
	/* Recording off, the stack read (the unload), written on b (the load). */
	ck_assert_int_eq(bts_model_wrmsr(&a, IA32_DEBUGCTL, 0), BTS_MODEL_OK);
	for (i = 0; i < p->lbr_depth; i++) {
		ck_assert_int_eq(bts_model_rdmsr(&a, p->lbr_from_msr + i, &v), BTS_MODEL_OK);
		ck_assert_int_eq(bts_model_wrmsr(&b, p->lbr_from_msr + i, v), BTS_MODEL_OK);
		ck_assert_int_eq(bts_model_rdmsr(&a, p->lbr_to_msr + i, &v), BTS_MODEL_OK);
		ck_assert_int_eq(bts_model_wrmsr(&b, p->lbr_to_msr + i, v), BTS_MODEL_OK);
		if (p->lbr_format != LBR_FMT_INFO && p->lbr_format != LBR_FMT_INFO2)
			continue;
		ck_assert_int_eq(bts_model_rdmsr(&a, MSR_LBR_INFO_0 + i, &v), BTS_MODEL_OK);
		ck_assert_int_eq(bts_model_wrmsr(&b, MSR_LBR_INFO_0 + i, v), BTS_MODEL_OK);
	}
	ck_assert_int_eq(bts_model_rdmsr(&a, MSR_LASTBRANCH_TOS, &v), BTS_MODEL_OK);
	ck_assert_int_eq(bts_model_wrmsr(&b, MSR_LASTBRANCH_TOS, v), BTS_MODEL_OK);
	lbr_on(&a);
	lbr_on(&b);
	branch(&a, 0x403000, 0x404000, true);
	branch(&b, 0x403000, 0x404000, true);
	for (i = 0; i < p->lbr_depth; i++) {
		bts_model_rdmsr(&a, p->lbr_from_msr + i, &v);
		bts_model_rdmsr(&b, p->lbr_from_msr + i, &w);
		ck_assert_uint_eq(v, w);
		bts_model_rdmsr(&a, p->lbr_to_msr + i, &v);
		bts_model_rdmsr(&b, p->lbr_to_msr + i, &w);
		ck_assert_uint_eq(v, w);
		if (p->lbr_format != LBR_FMT_INFO && p->lbr_format != LBR_FMT_INFO2)
			continue;
		bts_model_rdmsr(&a, MSR_LBR_INFO_0 + i, &v);
		bts_model_rdmsr(&b, MSR_LBR_INFO_0 + i, &w);
		ck_assert_uint_eq(v, w);
	}
	bts_model_rdmsr(&a, MSR_LASTBRANCH_TOS, &v);
	bts_model_rdmsr(&b, MSR_LASTBRANCH_TOS, &w);
	ck_assert_uint_eq(v, w);
	ck_assert_uint_eq(bts_model_get_stats(&b)->violations, 0);
	ck_assert_uint_eq(bts_model_get_stats(&a)->violations, 0);
}
END_TEST

/* The profiles where FREEZE_LBRS_ON_PMI may be set: PDCM, perfmon > 1. */
START_TEST(freeze_unfreeze)
{
	const struct bts_model_profile *p = bts_model_profile_find(names[_i]);
	struct bts_model_cpu c;
	uint64_t dbg, tos0, tos1, st;

	ck_assert_int_eq(bts_model_cpu_init(&c, p, &ops, NULL, 0), BTS_MODEL_OK);
	if (!p->pdcm || p->perfmon_version < 2) {
		ck_assert_int_eq(bts_model_wrmsr(&c, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR |
						 IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI), BTS_MODEL_EGP);
		return;
	}
	ck_assert_int_eq(bts_model_wrmsr(&c, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR |
					 IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI), BTS_MODEL_OK);
	branch(&c, 0x401000, 0x402000, false);
	bts_model_pmi(&c, BTS_PMI_COUNTER);
	bts_model_rdmsr(&c, MSR_LASTBRANCH_TOS, &tos0);
	branch(&c, 0x401010, 0x402010, false);	/* frozen: not recorded */
	bts_model_rdmsr(&c, MSR_LASTBRANCH_TOS, &tos1);
	ck_assert_uint_eq(tos0, tos1);
	bts_model_rdmsr(&c, IA32_DEBUGCTL, &dbg);
	if (p->perfmon_version >= 4) {
		bts_model_rdmsr(&c, IA32_PERF_GLOBAL_STATUS, &st);
		ck_assert(st & PERF_GLOBAL_STATUS_LBR_FRZ);
		ck_assert(dbg & IA32_DEBUGCTL_LBR);
		ck_assert_int_eq(bts_model_wrmsr(&c, IA32_PERF_GLOBAL_STATUS_RESET,
						 PERF_GLOBAL_STATUS_LBR_FRZ), BTS_MODEL_OK);
		bts_model_rdmsr(&c, IA32_PERF_GLOBAL_STATUS, &st);
		ck_assert(!(st & PERF_GLOBAL_STATUS_LBR_FRZ));
	} else {
		ck_assert(!(dbg & IA32_DEBUGCTL_LBR));
		ck_assert_int_eq(bts_model_wrmsr(&c, IA32_DEBUGCTL, dbg | IA32_DEBUGCTL_LBR),
				 BTS_MODEL_OK);
	}
	branch(&c, 0x401020, 0x402020, false);	/* unfrozen: recorded */
	bts_model_rdmsr(&c, MSR_LASTBRANCH_TOS, &tos1);
	ck_assert_uint_eq(tos1, (tos0 + 1) & (p->lbr_depth - 1));
	ck_assert_uint_eq(bts_model_get_stats(&c)->violations, 0);
}
END_TEST

/* perf's family-6 tables (arch/x86/events/intel/core.c, lbr.c of 6.1). */
START_TEST(profile_signature)
{
	const struct bts_model_profile *p = bts_model_profile_find(names[_i]);
	static const struct { uint8_t model; unsigned int depth; uint32_t from, to; } want[] = {
		{ 0x0f, 4, MSR_LASTBRANCH_0_FROM_IP_CORE, MSR_LASTBRANCH_0_TO_IP_CORE },
		{ 0x1a, 16, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x4e, 32, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x1c, 8, MSR_LASTBRANCH_0_FROM_IP_CORE, MSR_LASTBRANCH_0_TO_IP_CORE },
		{ 0x2a, 16, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x3c, 16, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x3f, 16, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x5e, 32, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x5c, 32, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
		{ 0x7a, 32, MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM },
	};
	unsigned int family = (p->sig >> 8) & 0xf;
	unsigned int model = ((p->sig >> 4) & 0xf) | (((p->sig >> 16) & 0xf) << 4);

	ck_assert_uint_eq(family, 6);
	ck_assert_uint_eq(model, want[_i].model);
	ck_assert_uint_eq(p->lbr_depth, want[_i].depth);
	ck_assert_uint_eq(p->lbr_from_msr, want[_i].from);
	ck_assert_uint_eq(p->lbr_to_msr, want[_i].to);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lbr_switch");
	TCase *tc = tcase_create("profiles");
	int n = (int)(sizeof(names) / sizeof(names[0]));

	tcase_add_loop_test(tc, switch_roundtrip, 0, n);
	tcase_add_loop_test(tc, freeze_unfreeze, 0, n);
	tcase_add_loop_test(tc, profile_signature, 0, n);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
