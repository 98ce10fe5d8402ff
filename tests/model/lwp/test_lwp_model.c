// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the LWP model. Every expectation is taken from AMD 43724
 * rev 3.04; each test names the section it checks. Choices where the spec
 * leaves freedom are in Documentation/lwp-model.rst and tagged CHOICE here.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/lwp/lwp_model.h"
#include "model/lwp/lwp_xop.h"
#include "tests/model/lwp/lwp_test_check.h"
#include "tests/check_run.h"

#define EXC(r)		((r).exc)

static void cpuid(struct test_env *e, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	lwp_model_cpuid(&e->m, leaf, sub, r);
}

/* An LWPCB at ENV_LWPCB with a ring of `records` records at ENV_RING. */

static struct lwp_model_result ins(struct test_env *e, uint64_t ip, uint64_t src1,
				   uint32_t data1, uint32_t imm)
{
	return lwp_model_lwpins(&e->m, ip, src1, env_reg_op(data1), imm, 64);
}

static struct lwp_model_result val(struct test_env *e, uint64_t ip, uint64_t src1,
				   uint32_t data1, uint32_t imm)
{
	return lwp_model_lwpval(&e->m, ip, src1, env_reg_op(data1), imm, 64);
}

/* ===================================================================== */
/* §3 CPUID                                                              */
/* ===================================================================== */

/* §3.1, §3.2, Table 3-1: every field of the fx8150 profile (issue 3 values). */
START_TEST(test_cpuid_fx8150_every_field)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_fx8150);
	uint32_t r[4];

	cpuid(e, LWP_CPUID_FN8000_0001, 0, r);
	ck_assert_uint_eq(r[2] & LWP_CPUID_FN8000_0001_ECX_LWP, LWP_CPUID_FN8000_0001_ECX_LWP);
	cpuid(e, LWP_CPUID_FN0000_000D, 0, r);
	ck_assert_uint_eq(r[3] & LWP_CPUID_FN0000_000D_X0_EDX_LWP, 1u << 30);
	cpuid(e, LWP_CPUID_FN0000_000D, 0x3E, r);
	ck_assert_uint_eq(r[0], 128);	/* §3.2 size */
	ck_assert_uint_eq(r[1], 832);	/* §3.2 offset */
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[1], 0x80032013u);
	ck_assert_uint_eq(r[2], 0x00010200u);
	ck_assert_uint_eq(r[3], 0x8000000Fu);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCBSIZE), 19);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPEVENTSIZE), 32);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMAXEVENTS), 3);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPEVENTOFFSET), 128);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPLATENCYMAX), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPDATAADDRESS), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPLATENCYRND), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPVERSION), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMINBUFFERSIZE), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPBRANCHPREDICTION), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPIPFILTERING), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCACHELEVELS), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCACHELATENCY), 0);
	ck_assert_uint_eq(r[3] & LWP_CPUID_LWPAVAIL, 1);
	ck_assert_uint_eq(r[3] & LWP_CPUID_LWPVAL, LWP_CPUID_LWPVAL);
	ck_assert_uint_eq(r[3] & LWP_CPUID_LWPIRE, LWP_CPUID_LWPIRE);
	ck_assert_uint_eq(r[3] & LWP_CPUID_LWPBRE, LWP_CPUID_LWPBRE);
	ck_assert_uint_eq(r[3] & (LWP_CPUID_LWPDME | LWP_CPUID_LWPCNH | LWP_CPUID_LWPRNH), 0);
	ck_assert_uint_eq(r[3] & LWP_CPUID_LWPINT, LWP_CPUID_LWPINT);
	/* Table 3-1: LwpCbSize >= LwpEventOffset / 8 + LwpMaxEvents. */
	ck_assert_uint_ge(19, 128 / 8 + 3);
	/* §3.3: EAX is 0 until the OS sets XCR0[62] and LWP_CFG. */
	ck_assert_uint_eq(r[0], 0);
	env_free(e);
}
END_TEST

/* §3.3: EAX bit 0 mirrors XCR0[62]; bits 31:1 mirror LWP_CFG. */
START_TEST(test_cpuid_eax_mirrors_xcr0_and_lwp_cfg)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_fx8150);
	uint32_t r[4];

	OK(lwp_model_xsetbv(&e->m, LWP_XCR0_MASK));
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], 1);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL | LWP_CFG_BRE |
			   (7ull << LWP_CFG_COREID_SHIFT)));
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], 1 | LWP_CPUID_LWPVAL | LWP_CPUID_LWPBRE);
	OK(lwp_model_xsetbv(&e->m, 0));
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], LWP_CPUID_LWPVAL | LWP_CPUID_LWPBRE);
	/* §3.2: XFeatureEnabledSizeMax includes LWP only when enabled. */
	cpuid(e, LWP_CPUID_FN0000_000D, 0, r);
	ck_assert_uint_eq(r[1], 0);
	ck_assert_uint_eq(r[2], 832 + 128);
	OK(lwp_model_xsetbv(&e->m, LWP_XCR0_MASK));
	cpuid(e, LWP_CPUID_FN0000_000D, 0, r);
	ck_assert_uint_eq(r[1], 832 + 128);
	ck_assert_uint_eq(lwp_model_xgetbv(&e->m), LWP_XCR0_MASK);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §3, issue 3: the full profile has every feature of section 3. */
START_TEST(test_cpuid_full_every_feature)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_full);
	uint32_t r[4], latmax, rnd;

	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[3], 0x8000007Fu);	/* events 1-6, LwpInt */
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMAXEVENTS), 6);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPEVENTSIZE), 32);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPEVENTOFFSET) % 8, 0);
	ck_assert_uint_ge(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCBSIZE),
			  lwp_model_cap_get(r, LWP_MODEL_CAP_LWPEVENTOFFSET) / 8 + 6);
	latmax = lwp_model_cap_get(r, LWP_MODEL_CAP_LWPLATENCYMAX);
	rnd = lwp_model_cap_get(r, LWP_MODEL_CAP_LWPLATENCYRND);
	ck_assert(latmax >= 10 && latmax <= 31);	/* Table 3-1 */
	ck_assert(rnd <= 4);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPDATAADDRESS), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPVERSION), 1);
	ck_assert_uint_ne(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMINBUFFERSIZE), 0);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPBRANCHPREDICTION), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPIPFILTERING), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCACHELEVELS), 1);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCACHELATENCY), 1);
	ck_assert_uint_eq(r[2] & LWP_CPUID_ECX_RESERVED, 0);
	ck_assert_uint_eq(r[3] & LWP_CPUID_RESERVED_EVENTS, 0);
	ck_assert_uint_eq(r[1], 0x80062016u);
	ck_assert_uint_eq(r[2], 0xF0020330u);
	env_free(e);
}
END_TEST

/* Issue 3: the user profiles advertise only what emulation can produce. */
START_TEST(test_cpuid_user_profiles_honest)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_user);
	uint32_t r[4];

	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[3], LWP_CPUID_LWPAVAIL | LWP_CPUID_LWPVAL | LWP_CPUID_LWPINT);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMAXEVENTS), 1);
	ck_assert_uint_ge(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPCBSIZE), 128 / 8 + 1);
	ck_assert_uint_eq(r[2] & ~LWP_CPUID_ECX_LWPVERSION_MASK, 0);
	env_free(e);
	e = env_new_bare(&lwp_model_profile_user_exec);
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[3], 0x8000000Fu);
	ck_assert_uint_eq(lwp_model_cap_get(r, LWP_MODEL_CAP_LWPMAXEVENTS), 3);
	env_free(e);
}
END_TEST

START_TEST(test_profile_lookup_and_cap_names)
{
	ck_assert_ptr_eq(lwp_model_profile_find("fx8150"), &lwp_model_profile_fx8150);
	ck_assert_ptr_eq(lwp_model_profile_find("full"), &lwp_model_profile_full);
	ck_assert_ptr_eq(lwp_model_profile_find("user"), &lwp_model_profile_user);
	ck_assert_ptr_eq(lwp_model_profile_find("user-exec"), &lwp_model_profile_user_exec);
	ck_assert_ptr_eq(lwp_model_profile_find("none"), &lwp_model_profile_none);
	ck_assert_ptr_null(lwp_model_profile_find("fx8350"));
	ck_assert_ptr_null(lwp_model_profile_find(NULL));
	ck_assert_str_eq(lwp_model_cap_name(LWP_MODEL_CAP_LWPCBSIZE), "LwpCbSize");
	ck_assert_ptr_null(lwp_model_cap_name(LWP_MODEL_CAP_NR));
	ck_assert_uint_eq(lwp_model_cap_get(NULL, LWP_MODEL_CAP_LWPCBSIZE), 0);
	ck_assert_str_eq(lwp_model_exc_str(LWP_MODEL_EXC_PF), "#PF");
	ck_assert_int_eq(lwp_model_init(NULL, &lwp_model_profile_full, &env_ops, NULL), -EINVAL);
}
END_TEST

/* §3.1, §4, §5: without LWP, CPUID is clear, MSRs #GP, instructions #UD. */
START_TEST(test_none_profile_no_lwp)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_none);
	uint32_t r[4];

	cpuid(e, LWP_CPUID_FN8000_0001, 0, r);
	ck_assert_uint_eq(r[2], 0);
	cpuid(e, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert(!r[0] && !r[1] && !r[2] && !r[3]);
	cpuid(e, LWP_CPUID_FN0000_000D, 0, r);
	ck_assert_uint_eq(r[3], 0);
	IS(lwp_model_xsetbv(&e->m, LWP_XCR0_MASK), LWP_MODEL_EXC_GP);
	IS(lwp_model_rdmsr(&e->m, LWP_MSR_CFG), LWP_MODEL_EXC_GP);
	IS(lwp_model_wrmsr(&e->m, LWP_MSR_CBADDR, 0), LWP_MODEL_EXC_GP);
	IS(lwp_model_llwpcb(&e->m, 0, 64), LWP_MODEL_EXC_UD);
	IS(lwp_model_slwpcb(&e->m, 64), LWP_MODEL_EXC_UD);
	IS(ins(e, 0, 0, 0, 0), LWP_MODEL_EXC_UD);
	IS(val(e, 0, 0, 0, 0), LWP_MODEL_EXC_UD);
	ck_assert_uint_eq(lwp_model_violations(&e->m), 3);
	ck_assert_uint_eq(e->violations, 3);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §4 registers                                                          */
/* ===================================================================== */

/* §4.2: only supported feature bits can be set; others #GP. */
START_TEST(test_wrmsr_lwp_cfg_reserved_and_unsupported_gp)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_fx8150);
	static const uint64_t bad[] = {
		LWP_CFG_DME,			/* not supported by fx8150 */
		LWP_CFG_CNH, LWP_CFG_RNH,
		1ull << 7, 1ull << 30,		/* reserved events */
	};
	/* fx8150: ignored, not #GP (VirtualBox's FX-8150 ignore mask). */
	static const uint64_t ignored[] = {
		1ull << 0, 1ull << 48, 1ull << 63,
	};
	unsigned int i, j;
	struct lwp_model_result r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		IS(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, bad[i] | LWP_CFG_VAL), LWP_MODEL_EXC_GP);
		r = lwp_model_rdmsr(&e->m, LWP_MSR_CFG);
		ck_assert_uint_eq(r.value, 0);	/* not written */
	}
	ck_assert_uint_eq(lwp_model_violations(&e->m), i);
	for (j = 0; j < sizeof(ignored) / sizeof(ignored[0]); j++) {
		OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, ignored[j] | LWP_CFG_VAL));
		r = lwp_model_rdmsr(&e->m, LWP_MSR_CFG);
		ck_assert_uint_eq(r.value, LWP_CFG_VAL);	/* bit dropped */
		/* Still a driver bug (§4.2 MBZ): counted. */
		ck_assert_uint_eq(lwp_model_violations(&e->m), i + j + 1);
	}
	i += j;
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 0));
	ck_assert_str_eq(e->last_section, "43724 §4.2");
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 0x8000000Eull | (0xFFull << 32) |
			   (0xF0ull << 40)));
	r = lwp_model_rdmsr(&e->m, LWP_MSR_CFG);
	ck_assert_uint_eq(r.value, 0x8000000Eull | (0xFFull << 32) | (0xF0ull << 40));
	ck_assert_uint_eq(lwp_model_violations(&e->m), i);
	/* The full profile accepts DME/CNH/RNH; it follows the letter: #GP. */
	env_free(e);
	e = env_new_bare(&lwp_model_profile_full);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 0x8000007Eull | (0x40ull << 40)));
	IS(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 1ull << 0), LWP_MODEL_EXC_GP);
	IS(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 1ull << 48), LWP_MODEL_EXC_GP);
	env_free(e);
}
END_TEST

/* §4.2: VECTOR "must be provided if INT=1": accepted, counted as violation. */
START_TEST(test_wrmsr_int_without_vector_is_violation)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_fx8150);

	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_INT));
	ck_assert_uint_eq(lwp_model_violations(&e->m), 1);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_INT | (0x20ull << LWP_CFG_VECTOR_SHIFT)));
	ck_assert_uint_eq(lwp_model_violations(&e->m), 1);
	env_free(e);
}
END_TEST

/* §4.3: non-zero write #GP; zero write disables without touching memory. */
START_TEST(test_wrmsr_cbaddr)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150,
					 LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 32);
	struct lwp_model_result r;
	unsigned int writes;

	r = lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR);
	ck_assert_uint_eq(r.value, ENV_LWPCB);
	IS(lwp_model_wrmsr(&e->m, LWP_MSR_CBADDR, ENV_LWPCB), LWP_MODEL_EXC_GP);
	ck_assert_uint_eq(lwp_model_violations(&e->m), 1);
	ck_assert_str_eq(e->last_section, "43724 §4.3");
	ck_assert(lwp_model_enabled(&e->m));
	OK(ins(e, 0x400000, 1, 2, 3));
	env_set_tail(e, 0);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 0x777);
	writes = e->writes;
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CBADDR, 0));
	ck_assert_uint_eq(e->writes, writes);	/* discarded, not flushed */
	ck_assert_uint_eq(env_head(e), 0x777);
	ck_assert(!lwp_model_enabled(&e->m));
	r = lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR);
	ck_assert_uint_eq(r.value, 0);
	r = lwp_model_slwpcb(&e->m, 64);
	OK(r);
	ck_assert_uint_eq(r.value, 0);
	IS(lwp_model_rdmsr(&e->m, 0x10), LWP_MODEL_EXC_GP);
	IS(lwp_model_wrmsr(&e->m, 0x10, 0), LWP_MODEL_EXC_GP);
	env_free(e);
}
END_TEST

/* §4.3: RDMSR LWP_CBADDR does not do SLWPCB's flush. */
START_TEST(test_rdmsr_cbaddr_no_flush)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);
	unsigned int w;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	OK(ins(e, 1, 1, 1, 1));
	ck_assert_uint_eq(env_head(e), 0);	/* lazy: not yet in memory */
	w = e->writes;
	OK(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR));
	ck_assert_uint_eq(e->writes, w);
	ck_assert_uint_eq(env_head(e), 0);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 32);
	env_free(e);
}
END_TEST

/* §4.1: clearing XCR0[62] stores 0 into LWP_CBADDR; instructions then #UD. */
START_TEST(test_xsetbv_clear_disables_and_ud)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);
	struct lwp_model_result r;

	OK(lwp_model_xsetbv(&e->m, 0));
	ck_assert(!lwp_model_available(&e->m));
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_UD);
	IS(lwp_model_slwpcb(&e->m, 64), LWP_MODEL_EXC_UD);
	IS(ins(e, 0, 0, 0, 0), LWP_MODEL_EXC_UD);
	IS(val(e, 0, 0, 0, 0), LWP_MODEL_EXC_UD);
	OK(lwp_model_xsetbv(&e->m, LWP_XCR0_MASK));
	r = lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR);
	ck_assert_uint_eq(r.value, 0);
	r = lwp_model_slwpcb(&e->m, 64);
	ck_assert_uint_eq(r.value, 0);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5.1 LLWPCB                                                           */
/* ===================================================================== */

/* §5.1 step 6, Figure 6-2: Flags &= available, written back. */
START_TEST(test_llwpcb_flags_masked_written_back)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_lwpcb(e, ENV_LWPCB, 0xFFFFFFFFu, 32 * 32, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE |
			  LWP_LWPCB_FLAGS_BRE | LWP_LWPCB_FLAGS_INT);
	/* LWP_CFG without INT and BRE: those are not available. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL | LWP_CFG_IRE));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_BRE | LWP_LWPCB_FLAGS_INT | LWP_LWPCB_FLAGS_VAL,
		  32 * 32, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), LWP_LWPCB_FLAGS_VAL);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §5.1 Notes: with no available event LLWPCB still enables LWP (LWPINS). */
START_TEST(test_llwpcb_no_event_still_enables_lwpins)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, 0, 32);
	struct lwp_event_record rec;

	ck_assert(lwp_model_enabled(&e->m));
	OK(val(e, 0x1000, 1, 2, 3));
	ck_assert_uint_eq(env_head(e), 0);
	OK(ins(e, 0x1000, 1, 2, 3));
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, 255);
	env_free(e);
}
END_TEST

/* §5.1 step 7, Table 6-1: EventInterval1 negative -> 0 stored back;
 * EventInterval2 below the minimum -> minimum stored back. */
START_TEST(test_llwpcb_intervals_fixed_and_written_back)
{
	struct test_env *e = env_new(&lwp_model_profile_full);

	env_lwpcb(e, ENV_LWPCB, 0x7E, 64 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0xFFFFFFF0u, 5);	/* -16 */
	env_event(e, ENV_LWPCB, 2, 5, 0);		/* below 256 */
	env_event(e, ENV_LWPCB, 3, 0x03FFFFFFu, 0);	/* -1 in 26 bits */
	env_event(e, ENV_LWPCB, 4, 1000, 0);		/* above: unchanged */
	env_event(e, ENV_LWPCB, 5, 256, 0);		/* at: unchanged */
	env_event(e, ENV_LWPCB, 6, 0, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 1), 0);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 2), 256);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 3), 256);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 4), 1000);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 5), 256);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 6), 256);
	/* "The minimum event interval for LWPVAL is zero." */
	env_free(e);
	e = env_new(&lwp_model_profile_full);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 64 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0, 0);
	env_event(e, ENV_LWPCB, 3, 1, 0);	/* disabled: untouched */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 1), 0);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 3), 1);
	env_free(e);
}
END_TEST

/* §5.1 step 7: "A zero or negative value in EventCountern means that the
 * next event of that type will cause an event record to be stored." */
START_TEST(test_llwpcb_negative_counter_is_zero)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 32 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 3, 0xFFFFFF00u);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(val(e, 0x10, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 32);		/* first LWPVAL stored */
	/* Then every (interval + 1) = 4th. */
	OK(val(e, 0x11, 0, 0, 0));
	OK(val(e, 0x12, 0, 0, 0));
	OK(val(e, 0x13, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 32);
	OK(val(e, 0x14, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 64);
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).ip, 0x14);
	/* §5.1 step 7: a counter larger than the interval delays the first. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 32 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0, 2);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(val(e, 1, 0, 0, 0));
	OK(val(e, 2, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 0);
	OK(val(e, 3, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 32);
	OK(val(e, 4, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 64);
	env_free(e);
}
END_TEST

/* §5.1 step 4: ring below 32 * LwpMinBufferSize * LwpEventSize -> #GP,
 * LWP left disabled; Table 6-1: BufferSize rounded down. */
START_TEST(test_llwpcb_min_buffer_size_gp)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);	/* min 1024 */

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1023, ENV_RING);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	ck_assert(!lwp_model_enabled(&e->m));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024 + 31, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	/* Random bits (63:60) are not part of the size. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, (0xFu << 28) | 512, ENV_RING);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	env_free(e);
	e = env_new(&lwp_model_profile_full);				/* min 2048 */
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 2047, ENV_RING);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 2048, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_free(e);
	/* CHOICE: LwpMinBufferSize 0 still needs room for one record. */
	e = env_new(&lwp_model_profile_user);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 31, ENV_RING);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 64, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(e->violations, 0);	/* user errors, not the OS's */
	env_free(e);
}
END_TEST

/* §5.1 step 4: LWPCB or ring beyond the segment limit (64-bit: not
 * canonical, wrapping) -> #GP. */
START_TEST(test_llwpcb_noncanonical_gp)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	IS(lwp_model_llwpcb(&e->m, 0x0000800000000000ull, 64), LWP_MODEL_EXC_GP);
	IS(lwp_model_llwpcb(&e->m, 0x00007FFFFFFFFFF0ull, 64), LWP_MODEL_EXC_GP);
	IS(lwp_model_llwpcb(&e->m, 0xFFFFFFFFFFFFFFF0ull, 64), LWP_MODEL_EXC_GP);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, 0x00007FFFFFFFFF00ull);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	ck_assert(!lwp_model_enabled(&e->m));
	env_free(e);
}
END_TEST

/* §5.1 step 4: #PF reading or writing the LWPCB; LWP left disabled. */
START_TEST(test_llwpcb_page_faults)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_DME, 1024, ENV_RING);
	env_page_np(e, ENV_LWPCB, true);
	r = lwp_model_llwpcb(&e->m, ENV_LWPCB, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_LWPCB);
	ck_assert(!r.pf_write);
	env_page_np(e, ENV_LWPCB, false);
	/* §5.1 step 6: Flags are always stored back: read-only -> #PF(W). */
	env_page_ro(e, ENV_LWPCB, true);
	r = lwp_model_llwpcb(&e->m, ENV_LWPCB, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert(r.pf_write);
	ck_assert(!lwp_model_enabled(&e->m));
	env_put32(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL);	/* nothing to clear */
	r = lwp_model_llwpcb(&e->m, ENV_LWPCB, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert(r.pf_write);
	ck_assert_uint_eq(r.pf_addr, ENV_LWPCB);
	/* LWPCB crossing into a missing page: fault names that page. */
	env_page_ro(e, ENV_LWPCB, false);
	env_lwpcb(e, ENV_LWPCB2 - 64, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_page_np(e, ENV_LWPCB2, true);
	r = lwp_model_llwpcb(&e->m, ENV_LWPCB2 - 64, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_LWPCB2);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §5.1 step 2: flush to the old LWPCB first; a #PF there keeps it active. */
START_TEST(test_llwpcb_flushes_old_first)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 10, 10);
	env_event(e, ENV_LWPCB, 2, 100, 100);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(val(e, 1, 0, 0, 0));
	OK(ins(e, 2, 0, 0, 0));
	OK(lwp_model_insn_retired(&e->m, 3));
	env_lwpcb(e, ENV_LWPCB2, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING + 0x1000);
	env_page_np(e, ENV_LWPCB, true);
	r = lwp_model_llwpcb(&e->m, ENV_LWPCB2, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, ENV_LWPCB);
	env_page_np(e, ENV_LWPCB, false);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB2, 64));
	ck_assert_uint_eq(env_head(e), 32);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1), 9);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 99);
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, ENV_LWPCB2);
	/* §5.1 step 3: address 0 disables after the flush. */
	OK(val(e, 1, 0, 0, 0));
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	ck_assert(!lwp_model_enabled(&e->m));
	/* Interval 0: stored on the first LWPVAL and reset to 0 (§1.1). */
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB2, 1), 0);
	ck_assert_uint_eq(env_record(e, ENV_RING + 0x1000, 0).event_id, 1);
	env_free(e);
}
END_TEST

/* §5.1: the address is truncated to the operand size. */
START_TEST(test_llwpcb_operand_size_truncation)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, 0xABCD000000000000ull | ENV_LWPCB, 32));
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, ENV_LWPCB);
	/* §5.2: SLWPCB truncates its result likewise. */
	r = lwp_model_slwpcb(&e->m, 16);
	OK(r);
	ck_assert_uint_eq(r.value, ENV_LWPCB & 0xFFFF);
	r = lwp_model_slwpcb(&e->m, 32);
	ck_assert_uint_eq(r.value, ENV_LWPCB);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 8), LWP_MODEL_EXC_UD);
	env_free(e);
}
END_TEST

/* Table 6-1 BufferHeadOffset: 0 if too large, rounded down if unaligned. */
START_TEST(test_llwpcb_head_offset_rules)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_lwpcb(e, ENV_LWPCB, 0, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 1024);
	env_set_tail(e, 512);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 7, 0, 0, 0));
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).ip, 7);
	ck_assert_uint_eq(env_head(e), 32);
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 100);	/* -> 96 */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 8, 0, 0, 0));
	ck_assert_uint_eq(env_record(e, ENV_RING, 3).ip, 8);
	ck_assert_uint_eq(env_head(e), 128);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5.2 SLWPCB                                                           */
/* ===================================================================== */

/* §5.2: flush stores counters of active events and the head pointer. */
START_TEST(test_slwpcb_flush_counters_and_head)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;
	unsigned int i;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 1000, 50);
	env_event(e, ENV_LWPCB, 2, 1000, 60);
	env_event(e, ENV_LWPCB, 3, 1000, 70);	/* BRE not enabled */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 5; i++) {
		OK(val(e, i, 0, 0, 0));
		OK(lwp_model_insn_retired(&e->m, i));
		OK(ins(e, i, 0, 0, 0));
	}
	r = lwp_model_slwpcb(&e->m, 64);
	OK(r);
	ck_assert_uint_eq(r.value, ENV_LWPCB);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1), 45);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 55);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 3), 70);
	ck_assert_uint_eq(env_head(e), 5 * 32);
	/* #PF from the flush is reported and LWP stays enabled. */
	env_page_ro(e, ENV_LWPCB, true);
	r = lwp_model_slwpcb(&e->m, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert(r.pf_write);
	ck_assert(lwp_model_enabled(&e->m));
	env_free(e);
}
END_TEST

/* §5.2: "If there is an unwritten event record pending, it is written." */
START_TEST(test_slwpcb_writes_pending_record)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;
	struct lwp_event_record rec;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 2, 9, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_page_np(e, ENV_RING, true);
	r = lwp_model_insn_retired(&e->m, 0x4000);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_RING);
	ck_assert(r.pf_write);
	/* Counting goes on while the record waits (§1.1). */
	OK(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR));
	env_page_np(e, ENV_RING, false);
	r = lwp_model_slwpcb(&e->m, 64);
	OK(r);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, 2);
	ck_assert_uint_eq(rec.ip, 0x4000);
	ck_assert_uint_eq(rec.core_id, 0x5A);
	ck_assert_uint_eq(env_head(e), 32);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 9);	/* reset after store */
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5.3 LWPVAL, §5.4 LWPINS, Figures 2-2 and 2-8                          */
/* ===================================================================== */

/* Figure 2-2: EventId 1, CoreId, Flags = imm16, Data1, IP, Data2 (zero-ext). */
START_TEST(test_lwpval_record_fields)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);
	struct lwp_event_record rec;
	struct lwp_model_result r;

	r = lwp_model_lwpval(&e->m, 0x00007F0000001234ull, 0xFFFFFFFF87654321ull,
			     env_reg_op(0xDEADBEEF), 0xABCD1234u, 32);
	OK(r);
	ck_assert(r.stored);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, LWP_EVENTID_PROGRAMMED_VALUE);
	ck_assert_uint_eq(rec.core_id, 0x5A);
	ck_assert_uint_eq(rec.flags, 0x1234);
	ck_assert_uint_eq(rec.data1, 0xDEADBEEF);
	ck_assert_uint_eq(rec.ip, 0x00007F0000001234ull);
	ck_assert_uint_eq(rec.data2, 0x87654321ull);	/* zero-extended from 32 */
	ck_assert_uint_eq(rec.reserved, 0);
	OK(lwp_model_lwpval(&e->m, 1, 0xFFFFFFFF87654321ull, env_reg_op(0), 0, 64));
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).data2, 0xFFFFFFFF87654321ull);
	OK(lwp_model_lwpval(&e->m, 1, 0xFFFFFFFF87654321ull, env_reg_op(0), 0, 16));
	ck_assert_uint_eq(env_record(e, ENV_RING, 2).data2, 0x4321);
	env_free(e);
}
END_TEST

/* §5.3: "If the counter is not negative and the modrm operand specifies a
 * memory location, that location is not accessed." */
START_TEST(test_lwpval_memory_operand_lazy)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;
	unsigned int reads;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 1, 1);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_page_np(e, ENV_DATA, true);
	reads = e->reads;
	r = lwp_model_lwpval(&e->m, 0x10, 0, env_mem_op(ENV_DATA + 8), 0, 64);
	OK(r);
	ck_assert(!r.stored);
	ck_assert_uint_eq(e->reads, reads);
	/* Now the counter goes negative: the operand is read -> #PF, and the
	 * instruction has no effect (restartable). */
	r = lwp_model_lwpval(&e->m, 0x10, 0, env_mem_op(ENV_DATA + 8), 0, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_DATA + 8);
	ck_assert(!r.pf_write);
	ck_assert_uint_eq(env_head(e), 0);
	env_page_np(e, ENV_DATA, false);
	env_put32(e, ENV_DATA + 8, 0xCAFEF00D);
	r = lwp_model_lwpval(&e->m, 0x10, 0, env_mem_op(ENV_DATA + 8), 0, 64);
	OK(r);
	ck_assert(r.stored);
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).data1, 0xCAFEF00D);
	/* §5.3 #GP: operand beyond the segment limit (non-canonical). */
	r = lwp_model_lwpval(&e->m, 0x10, 0, env_mem_op(0x0000800000000000ull), 0, 64);
	OK(r);	/* counter 1 -> 0: not read */
	r = lwp_model_lwpval(&e->m, 0x10, 0, env_mem_op(0x0000800000000000ull), 0, 64);
	IS(r, LWP_MODEL_EXC_GP);
	env_free(e);
}
END_TEST

/* §5.3: nothing if LWP or event 1 is not enabled (operand not read). */
START_TEST(test_lwpval_not_enabled_does_nothing)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;
	unsigned int reads, writes;

	reads = e->reads;
	r = lwp_model_lwpval(&e->m, 1, 0, env_mem_op(0xDEAD0000), 0, 64);
	OK(r);
	ck_assert_uint_eq(e->reads, reads);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	reads = e->reads;
	writes = e->writes;
	r = lwp_model_lwpval(&e->m, 1, 0, env_mem_op(0xDEAD0000), 0, 64);
	OK(r);
	ck_assert(!r.stored);
	ck_assert_uint_eq(e->reads, reads);
	ck_assert_uint_eq(e->writes, writes);
	env_free(e);
}
END_TEST

/* Figure 2-8, §5.4: EventId 255 record, CF = 0 when stored. */
START_TEST(test_lwpins_record_fields_cf_clear)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, 0, 32);
	struct lwp_event_record rec;
	struct lwp_model_result r;

	env_put32(e, ENV_DATA, 0x11223344);
	r = lwp_model_lwpins(&e->m, 0x401000, 0x1122334455667788ull, env_mem_op(ENV_DATA),
			     0x12345678, 64);
	OK(r);
	ck_assert(!r.cf);
	ck_assert(r.stored);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, LWP_EVENTID_PROGRAMMED_EVENT);
	ck_assert_uint_eq(rec.core_id, 0x5A);
	ck_assert_uint_eq(rec.flags, 0x5678);
	ck_assert_uint_eq(rec.data1, 0x11223344);
	ck_assert_uint_eq(rec.ip, 0x401000);
	ck_assert_uint_eq(rec.data2, 0x1122334455667788ull);
	ck_assert_uint_eq(rec.reserved, 0);
	ck_assert_uint_eq(env_head(e), 32);
	env_free(e);
}
END_TEST

/* §5.4: "LWPINS simply clears CF if LWP is not enabled." */
START_TEST(test_lwpins_not_enabled_cf_clear)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;

	r = lwp_model_lwpins(&e->m, 1, 2, env_mem_op(0xDEAD0000), 3, 64);
	OK(r);
	ck_assert(!r.cf);
	ck_assert(!r.stored);
	env_free(e);
}
END_TEST

/* Table 6-1 MissedEvents, §5.4: full ring: last record overwritten,
 * MissedEvents++, head not advanced, CF = 1. A ring of N slots holds N-1. */
START_TEST(test_lwpins_ring_full_cf_set)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, 0, 32);
	struct lwp_model_result r;
	unsigned int i;

	for (i = 0; i < 31; i++) {
		r = ins(e, 0x100 + i, i, i, i);
		OK(r);
		ck_assert(!r.cf);
	}
	ck_assert_uint_eq(env_head(e), 31 * 32);
	ck_assert_uint_eq(env_missed(e), 0);
	r = ins(e, 0x200, 7, 7, 7);
	OK(r);
	ck_assert(r.cf);
	ck_assert(r.missed);
	ck_assert_uint_eq(env_head(e), 31 * 32);
	ck_assert_uint_eq(env_missed(e), 1);
	ck_assert_uint_eq(env_record(e, ENV_RING, 31).ip, 0x200);	/* overwritten */
	r = ins(e, 0x201, 7, 7, 7);
	ck_assert(r.cf);
	ck_assert_uint_eq(env_missed(e), 2);
	ck_assert_uint_eq(env_record(e, ENV_RING, 31).ip, 0x201);
	ck_assert_uint_eq(env_record(e, ENV_RING, 30).ip, 0x100 + 30);
	/* §8.3: software frees space; the tail is reread when the ring
	 * appears full, so the next store advances. */
	env_set_tail(e, 64);
	r = ins(e, 0x202, 7, 7, 7);
	OK(r);
	ck_assert(!r.cf);
	ck_assert_uint_eq(env_head(e), 0);	/* wrapped */
	r = ins(e, 0x203, 7, 7, 7);
	ck_assert(!r.cf);
	ck_assert_uint_eq(env_head(e), 32);
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).ip, 0x203);
	r = ins(e, 0x204, 7, 7, 7);
	ck_assert(r.cf);
	ck_assert_uint_eq(env_missed(e), 3);
	env_free(e);
}
END_TEST

/* §1.1 step 5: reset also happens when MissedEvents was incremented. */
START_TEST(test_lwpval_ring_full_resets_counter)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;
	unsigned int i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 1, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 2 * 33; i++)
		OK(val(e, i, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 31 * 32);
	ck_assert_uint_eq(env_missed(e), 2);
	r = val(e, 0, 0, 0, 0);		/* counter reset to 1 by the miss */
	ck_assert(r.stored && r.missed);
	ck_assert_uint_eq(env_missed(e), 3);
	r = val(e, 0, 0, 0, 0);
	ck_assert(!r.stored);
	env_free(e);
}
END_TEST

/* §6 Random: the bottom Random bits of the reset value are random. */
START_TEST(test_random_bits_in_reset)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int i, seen_low = 0;
	uint32_t c;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, (4u << 28) | 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0x1000, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 8; i++) {
		struct lwp_model_result r = val(e, i, 0, 0, 0);

		ck_assert(r.stored);
		OK(lwp_model_slwpcb(&e->m, 64));
		c = env_counter(e, ENV_LWPCB, 1);
		ck_assert_uint_eq(c & ~0xFu, 0x1000);
		seen_low |= 1u << (c & 0xF);
		/* Make the counter negative again for the next round. */
		OK(lwp_model_llwpcb(&e->m, 0, 64));
		env_event(e, ENV_LWPCB, 1, 0x1000, 0);
		OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	}
	ck_assert_uint_ne(seen_low & (seen_low - 1), 0);	/* not constant */
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* Table 6-1 Threshold, §8.3, §8.5                                       */
/* ===================================================================== */

/* Table 6-1 Threshold: interrupt when (head - tail) % size >= Threshold,
 * with LWP_CFG.VECTOR; head forced to memory (§8.3). */
START_TEST(test_threshold_interrupt)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int i;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_THRESHOLD, 4 * 32 + 7);	/* -> 128 */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 3; i++)
		OK(ins(e, i, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 0);
	ck_assert_uint_eq(env_head(e), 0);		/* lazy: not flushed yet */
	OK(ins(e, 3, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 1);
	ck_assert_uint_eq(e->last_vector, 0xEC);
	ck_assert_uint_eq(env_head(e), 128);	/* forced out */
	OK(ins(e, 4, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 2);		/* still above threshold */
	/* Software empties the ring: the tail is reread, no interrupt. */
	env_set_tail(e, 160);
	OK(ins(e, 5, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 2);
	/* Wrap-around: space used is taken modulo BufferSize. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 960);
	env_set_tail(e, 960);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 3; i++)
		OK(ins(e, i, 0, 0, 0));		/* head 992, 0, 32 */
	ck_assert_uint_eq(e->irqs, 2);
	OK(ins(e, 3, 0, 0, 0));			/* head 64: used 128 */
	ck_assert_uint_eq(e->irqs, 3);
	ck_assert_uint_eq(env_head(e), 64);
	env_free(e);
}
END_TEST

/* Table 6-1 Threshold: 0 -> every store; > BufferSize -> never; ignored
 * without INT in Flags or LWP_CFG. */
START_TEST(test_threshold_zero_large_and_disabled)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 3; i++)
		OK(ins(e, i, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 3);
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_THRESHOLD, 2048);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 40; i++)
		ins(e, i, 0, 0, 0);
	ck_assert_uint_eq(e->irqs, 3);
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_lwpcb(e, ENV_LWPCB, 0, 1024, ENV_RING);		/* INT not requested */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 3);
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL));	/* INT not available */
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), 0);
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 3);
	env_free(e);
}
END_TEST

/* CHOICE: default head policy writes BufferHeadOffset after every record. */
START_TEST(test_head_flush_every_store_default)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, 0, 32);

	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 32);
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 64);
	env_free(e);
}
END_TEST

/* §8.3 with the lazy policy: the head reaches memory only at threshold,
 * ring full, LLWPCB and SLWPCB (not at XSAVE: §8.3 does not list it). */
START_TEST(test_head_flush_lazy)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, 0, 32);
	struct lwp_xsave_area a;
	uint64_t bv = 0;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	OK(ins(e, 1, 0, 0, 0));
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 0);
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	ck_assert_uint_eq(a.buffer_head_offset, 64);	/* internal head */
	ck_assert_uint_eq(env_head(e), 0);
	lwp_model_set_cpl(&e->m, 3);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 64);
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(env_head(e), 64);
	OK(lwp_model_llwpcb(&e->m, 0, 64));		/* flushes, disables */
	ck_assert_uint_eq(env_head(e), 96);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* Family 15h as field-tested code saw it (issue 14)                     */
/* ===================================================================== */

/* rr (src/LWP.cc, LWP::lwp_xsave_to_lwpcb()): XSAVE stores Flags without INT (0x8 for 0x80000008);
 * XRSTOR of that image restores LWP without threshold interrupts. */
START_TEST(test_xsave_drops_int)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	uint64_t bv = 0;

	lwp_model_set_xsave_drops_int(&e->m, true);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_THRESHOLD, 0);	/* every store */
	env_event(e, ENV_LWPCB, 3, 100, 100);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 1);
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	ck_assert_uint_eq(a.flags, LWP_LWPCB_FLAGS_IRE);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	lwp_model_set_cpl(&e->m, 3);
	ck_assert_uint_eq(lwp_model_flags(&e->m), LWP_LWPCB_FLAGS_IRE);
	OK(ins(e, 2, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 1);		/* no interrupt any more */
	/* The driver's fix: INT put back into the image before XRSTOR. */
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	a.flags |= LWP_LWPCB_FLAGS_INT;
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	lwp_model_set_cpl(&e->m, 3);
	OK(ins(e, 3, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 2);
	/* The helper for opaque images does the same. */
	a.flags = 0x80000008u;
	lwp_model_xsave_drop_int(&a);
	ck_assert_uint_eq(a.flags, 0x8u);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §6 "Reserved ... must be zero", Figure 6-1: LLWPCB #GP, LWP disabled. */
START_TEST(test_llwpcb_reserved_fields_gp)
{
	static const uint32_t off[] = { 20, 23, 56, 63, 68, 100, 127 };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int i;

	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
		env_ptr(e, ENV_LWPCB + off[i])[0] = 0x01;
		IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
		ck_assert(!lwp_model_enabled(&e->m));
		env_ptr(e, ENV_LWPCB + off[i])[0] = 0;
		OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
		OK(lwp_model_llwpcb(&e->m, 0, 64));
	}
	/* Table 6-2: Filters bits 24:13 are reserved. */
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, 1u << 13);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	ck_assert_uint_eq(e->violations, 0);	/* a user error */
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §7 XSAVE/XRSTOR                                                       */
/* ===================================================================== */

/* §7.3: disabled -> XSTATE_BV[62] = 0; enabled -> Table 7-1 contents. */
START_TEST(test_xsave_layout)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	uint64_t bv = LWP_XCR0_MASK | 1;

	OK(lwp_model_xsave(&e->m, &a, ~0ull, &bv));
	ck_assert_uint_eq(bv, 1);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_INT,
		  1024 + 5, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, 0x12001678);
	env_event(e, ENV_LWPCB, 1, 100, 40);
	env_event(e, ENV_LWPCB, 2, 100, 30);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 1, 0, 0, 0));
	OK(val(e, 1, 0, 0, 0));
	memset(&a, 0xA5, sizeof(a));
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	ck_assert_uint_eq(bv, 1 | LWP_XCR0_MASK);
	ck_assert_uint_eq(a.lwpcb_address, ENV_LWPCB);
	ck_assert_uint_eq(a.flags, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE |
			  LWP_LWPCB_FLAGS_INT);
	ck_assert_uint_eq(a.buffer_head_offset, 32);
	ck_assert_uint_eq(a.buffer_base, ENV_RING);
	ck_assert_uint_eq(a.buffer_size, 1024);
	ck_assert_uint_eq(a.filters, 0x12001678);
	ck_assert_uint_eq(a.saved_event_record.event_id, 0);
	ck_assert_uint_eq(a.event_counter[0], 39);
	ck_assert_uint_eq(a.event_counter[1], 30);
	ck_assert_uint_eq(a.event_counter[2], 0);
	/* rfbm without bit 62: nothing. */
	bv = 0;
	OK(lwp_model_xsave(&e->m, &a, 1, &bv));
	ck_assert_uint_eq(bv, 0);
	env_free(e);
}
END_TEST

/* §7.3/§7.4/§8.2.1: context switch round trip continues where it left. */
START_TEST(test_xsave_xrstor_round_trip)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	uint64_t bv = 0;

	lwp_model_set_head_flush(&e->m, LWP_MODEL_HEAD_FLUSH_LAZY);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 2, 1);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(ins(e, 1, 0, 0, 0));
	OK(val(e, 2, 0, 0, 0));		/* counter 1 -> 0 */
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	/* §8.7.2: new thread: XRSTOR with XSTATE_BV[62] = 0 -> disabled. */
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, 0));
	ck_assert(!lwp_model_enabled(&e->m));
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	ck_assert(lwp_model_enabled(&e->m));
	lwp_model_set_cpl(&e->m, 3);
	OK(val(e, 3, 0, 0, 0));		/* 0 -> -1: stored */
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).ip, 3);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 64);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1), 2);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §7.4: no change unless bit 62 is set in EDX:EAX (and XCR0). */
START_TEST(test_xrstor_rfbm_clear_no_change)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);
	struct lwp_xsave_area a;

	memset(&a, 0, sizeof(a));
	OK(lwp_model_xrstor(&e->m, &a, 1, LWP_XCR0_MASK));
	ck_assert(lwp_model_enabled(&e->m));
	OK(lwp_model_xrstor(&e->m, &a, 1, 0));
	ck_assert(lwp_model_enabled(&e->m));
	/* §7.5: bit set, XSTATE_BV clear: processor-supplied values. */
	OK(lwp_model_xrstor(&e->m, NULL, LWP_XCR0_MASK, 0));
	ck_assert(!lwp_model_enabled(&e->m));
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, 0);
	env_free(e);
}
END_TEST

/* §7.4: BufferSize below minimum -> disabled; rounding; head >= size -> 0;
 * Flags masked by LWP_CFG; SavedEventRecord stored once CPL is 3. */
START_TEST(test_xrstor_rules)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;

	env_lwpcb(e, ENV_LWPCB, 0, 1024, ENV_RING);
	memset(&a, 0, sizeof(a));
	a.lwpcb_address = ENV_LWPCB;
	a.buffer_base = ENV_RING;
	a.buffer_size = 1000;			/* below 1024 */
	a.flags = LWP_LWPCB_FLAGS_VAL;
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK));
	ck_assert(!lwp_model_enabled(&e->m));
	a.buffer_size = 1024 + 31;
	a.buffer_head_offset = 1024;		/* >= size -> 0 */
	a.flags = LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_DME | LWP_LWPCB_FLAGS_BRE;
	a.event_counter[0] = 0;
	a.event_counter[2] = 77;
	a.saved_event_record.event_id = 2;
	a.saved_event_record.core_id = 9;
	a.saved_event_record.ip = 0xABC;
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL | LWP_CFG_IRE));
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK));
	ck_assert(lwp_model_enabled(&e->m));
	/* No memory access in the kernel: the pending record waits for CPL 3. */
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).event_id, 0);
	lwp_model_set_cpl(&e->m, 3);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).event_id, 2);
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).ip, 0xABC);
	ck_assert_uint_eq(env_head(e), 32);
	/* BRE was not available in LWP_CFG: its counter is not flushed. */
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 3), 0);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* §7.4 Check(): at CPL != 0, LWPCB and ring are validated (#GP/#PF);
 * LWP left disabled. At CPL 0 the kernel is trusted. */
START_TEST(test_xrstor_cpl3_validation)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	struct lwp_model_result r;

	memset(&a, 0, sizeof(a));
	a.lwpcb_address = 0x0000800000000000ull;
	a.buffer_base = ENV_RING;
	a.buffer_size = 1024;
	a.flags = LWP_LWPCB_FLAGS_VAL;
	IS(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK), LWP_MODEL_EXC_GP);
	ck_assert(!lwp_model_enabled(&e->m));
	a.lwpcb_address = ENV_LWPCB;
	a.buffer_base = ENV_RING + 4096 - 512;	/* last byte on the next page */
	env_page_ro(e, ENV_RING + 4096, true);
	r = lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_RING + 4096 + 511);
	ck_assert(r.pf_write);
	ck_assert(!lwp_model_enabled(&e->m));
	ck_assert_uint_eq(e->violations, 0);	/* a user-mode XRSTOR */
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK));
	ck_assert(lwp_model_enabled(&e->m));
	ck_assert_uint_eq(e->violations, 0);
	/* A kernel restoring a corrupted area is trusted, but counted. */
	a.lwpcb_address = 0x0000800000000000ull;
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, LWP_XCR0_MASK));
	ck_assert_uint_eq(e->violations, 1);
	ck_assert_str_eq(e->last_section, "43724 §7.4");
	env_free(e);
}
END_TEST

/* §8.3, §8.2.5: cached fields are re-read from the LWPCB after XRSTOR. */
START_TEST(test_xrstor_refreshes_cached_fields)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	uint64_t bv = 0;
	unsigned int i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_EVENT_INTERVAL(128u, 1), 2);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	for (i = 0; i < 4; i++)
		OK(val(e, i, 0, 0, 0));
	/* counter 0: store at i=0 and reset to 2: next at i=3. */
	ck_assert_uint_eq(env_head(e), 64);
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).ip, 3);
	/* An unmapped LWPCB surfaces as #PF at the refresh. */
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	lwp_model_set_cpl(&e->m, 0);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	lwp_model_set_cpl(&e->m, 3);
	env_page_np(e, ENV_LWPCB, true);
	IS(val(e, 1, 0, 0, 0), LWP_MODEL_EXC_PF);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* Execution events §2.2-§2.6, filters Table 6-2                         */
/* ===================================================================== */

/* §2.2, Figure 2-3: every (interval + 1)th user instruction; generic record. */
START_TEST(test_insn_retired_records)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_event_record rec;
	unsigned int i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 2, 9, 9);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 30; i++)
		OK(lwp_model_insn_retired(&e->m, 0x1000 + i));
	ck_assert_uint_eq(env_head(e), 3 * 32);
	for (i = 0; i < 3; i++) {
		rec = env_record(e, ENV_RING, i);
		ck_assert_uint_eq(rec.event_id, LWP_EVENTID_INSTRUCTIONS_RETIRED);
		ck_assert_uint_eq(rec.core_id, 0x5A);
		ck_assert_uint_eq(rec.flags, 0);
		ck_assert_uint_eq(rec.data1, 0);
		ck_assert_uint_eq(rec.ip, 0x1000 + 9 + 10 * i);
		ck_assert_uint_eq(rec.data2, 0);
		ck_assert_uint_eq(rec.reserved, 0);
	}
	/* §1.1: only CPL 3 instructions count. */
	lwp_model_set_cpl(&e->m, 0);
	for (i = 0; i < 30; i++)
		OK(lwp_model_insn_retired(&e->m, 0xFFFF800000000000ull));
	lwp_model_set_cpl(&e->m, 3);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 9);
	env_free(e);
}
END_TEST

/* Figure 2-4: TKN, TargetAddress, PRV = 0 without prediction info. */
START_TEST(test_branch_retired_records)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_branch b = { 0 };
	struct lwp_event_record rec;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_BRE, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	b.ip = 0x400100;
	b.target = 0x400200;
	b.kind = LWP_MODEL_BR_COND;
	b.taken = true;
	OK(lwp_model_branch_retired(&e->m, &b));
	b.ip = 0x400300;
	b.target = 0x400302;	/* fall-through */
	b.taken = false;
	OK(lwp_model_branch_retired(&e->m, &b));
	b.kind = LWP_MODEL_BR_UNCOND_REL;	/* TKN always 1 */
	b.ip = 0x400400;
	b.target = 0x400500;
	OK(lwp_model_branch_retired(&e->m, &b));
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, LWP_EVENTID_BRANCHES_RETIRED);
	ck_assert_uint_eq(rec.flags, LWP_EVREC_BR_TKN);
	ck_assert_uint_eq(rec.ip, 0x400100);
	ck_assert_uint_eq(rec.data2, 0x400200);
	ck_assert_uint_eq(rec.data1, 0);
	rec = env_record(e, ENV_RING, 1);
	ck_assert_uint_eq(rec.flags, 0);
	ck_assert_uint_eq(rec.data2, 0x400302);
	rec = env_record(e, ENV_RING, 2);
	ck_assert_uint_eq(rec.flags, LWP_EVREC_BR_TKN);
	/* FUS / PRV / PRD when the caller knows them. */
	b.kind = LWP_MODEL_BR_COND;
	b.taken = true;
	b.fused = true;
	b.prediction = LWP_MODEL_PRED_CORRECT;
	OK(lwp_model_branch_retired(&e->m, &b));
	rec = env_record(e, ENV_RING, 3);
	ck_assert_uint_eq(rec.flags, LWP_EVREC_BR_TKN | LWP_EVREC_BR_FUS | LWP_EVREC_BR_PRV |
			  LWP_EVREC_BR_PRD);
	/* The bits sit at record bits 28..31 (Figure 2-4). */
	ck_assert_uint_eq(env_get32(e, ENV_RING + 3 * 32) >> 28, 0xF);
	env_free(e);
}
END_TEST

/* Table 6-2 NCB/NRB/NAB (no CPUID bit needed); NMB/NPB only with
 * LwpBranchPrediction. */
START_TEST(test_branch_filters)
{
	static const struct {
		uint32_t filters;
		enum lwp_model_branch_kind kind;
		enum lwp_model_prediction pred;
		bool counted_fx8150, counted_full;
	} t[] = {
		{ LWP_LWPCB_FILTERS_NCB, LWP_MODEL_BR_COND, 0, false, false },
		{ LWP_LWPCB_FILTERS_NCB, LWP_MODEL_BR_UNCOND_REL, 0, true, true },
		{ LWP_LWPCB_FILTERS_NRB, LWP_MODEL_BR_UNCOND_REL, 0, false, false },
		{ LWP_LWPCB_FILTERS_NRB, LWP_MODEL_BR_INDIRECT, 0, true, true },
		{ LWP_LWPCB_FILTERS_NAB, LWP_MODEL_BR_INDIRECT, 0, false, false },
		{ LWP_LWPCB_FILTERS_NAB, LWP_MODEL_BR_COND, 0, true, true },
		{ LWP_LWPCB_FILTERS_NMB, LWP_MODEL_BR_COND, LWP_MODEL_PRED_MISPREDICTED, true, false },
		{ LWP_LWPCB_FILTERS_NMB, LWP_MODEL_BR_COND, LWP_MODEL_PRED_CORRECT, true, true },
		{ LWP_LWPCB_FILTERS_NPB, LWP_MODEL_BR_COND, LWP_MODEL_PRED_CORRECT, true, false },
		{ LWP_LWPCB_FILTERS_NPB, LWP_MODEL_BR_COND, LWP_MODEL_PRED_UNKNOWN, true, true },
	};
	unsigned int i, p;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			const struct lwp_model_profile *pr = p ? &lwp_model_profile_full :
							    &lwp_model_profile_fx8150;
			struct test_env *e = env_new(pr);
			struct lwp_model_branch b = { .ip = 1, .target = 2, .kind = t[i].kind,
						       .taken = true, .prediction = t[i].pred };
			struct lwp_model_result r;

			env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_BRE, 2048, ENV_RING);
			env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, t[i].filters);
			env_event(e, ENV_LWPCB, 3, 256, 0);
			OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
			r = lwp_model_branch_retired(&e->m, &b);
			OK(r);
			ck_assert_msg(r.stored == (p ? t[i].counted_full : t[i].counted_fx8150),
				      "profile %u case %u", p, i);
			env_free(e);
		}
	}
}
END_TEST

/* Table 6-2 IPF/IPI with BaseIP/LimitIP (inclusive); ignored without
 * LwpIpFiltering (fx8150). */
START_TEST(test_ip_filtering)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	uint64_t ips[] = { 0x0FFF, 0x1000, 0x1800, 0x2000, 0x2001 };
	unsigned int i, stored = 0;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 2048, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, LWP_LWPCB_FILTERS_IPF);
	env_put64(e, ENV_LWPCB + LWP_LWPCB_OFF_BASE_IP, 0x1000);
	env_put64(e, ENV_LWPCB + LWP_LWPCB_OFF_LIMIT_IP, 0x2000);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 5; i++)
		stored += val(e, ips[i], 0, 0, 0).stored;
	ck_assert_uint_eq(stored, 3);
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS,
		  LWP_LWPCB_FILTERS_IPF | LWP_LWPCB_FILTERS_IPI);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (stored = 0, i = 0; i < 5; i++)
		stored += val(e, ips[i], 0, 0, 0).stored;
	ck_assert_uint_eq(stored, 2);
	/* CHOICE: LWPINS is not filtered. */
	ck_assert(ins(e, 0x1800, 0, 0, 0).stored);
	env_free(e);
	e = env_new(&lwp_model_profile_fx8150);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, LWP_LWPCB_FILTERS_IPF);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (stored = 0, i = 0; i < 5; i++)
		stored += val(e, ips[i], 0, 0, 0).stored;
	ck_assert_uint_eq(stored, 5);
	env_free(e);
}
END_TEST

/* §2.4, Figure 2-5, Table 6-2: DCache miss record and filters (full). */
START_TEST(test_dcache_miss)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	struct lwp_model_dcache_miss d = { .ip = 0x500, .data_addr = 0x7000123,
					   .latency = 0x1F7, .src = LWP_DC_SRC_DRAM };
	struct lwp_event_record rec;
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_DME, 2048, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, 0x10 | LWP_LWPCB_FILTERS_CLF |
		  LWP_LWPCB_FILTERS_RAM);	/* MinLatency 16 * 16 = 256 */
	env_event(e, ENV_LWPCB, 4, 256, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	r = lwp_model_dcache_miss(&e->m, &d);
	OK(r);
	ck_assert(r.stored);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, LWP_EVENTID_DCACHE_MISSES);
	ck_assert_uint_eq(rec.flags, LWP_EVREC_DC_DAV | (LWP_DC_SRC_DRAM << LWP_EVREC_DC_SRC_SHIFT));
	ck_assert_uint_eq(rec.data1, 0x1F0);	/* rounded to 2^4 (§2.4.1) */
	ck_assert_uint_eq(rec.data2, 0x7000123);
	ck_assert_uint_eq(env_get32(e, ENV_RING) >> 28, 0x7);	/* SRC 3, DAV */
	/* Latency cap 2^16 - 16 (LwpLatencyMax 16). */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, 0);
	env_event(e, ENV_LWPCB, 4, 256, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	d.latency = 100000;
	OK(lwp_model_dcache_miss(&e->m, &d));
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).data1, 65536 - 16);
	/* MinLatency filter: below 256 cycles not counted. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, 0x10);
	env_event(e, ENV_LWPCB, 4, 256, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	d.latency = 255;
	ck_assert(!lwp_model_dcache_miss(&e->m, &d).stored);
	d.latency = 256;
	ck_assert(lwp_model_dcache_miss(&e->m, &d).stored);
	/* CLF: only the selected levels; "no valid status" never (CHOICE). */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, LWP_LWPCB_FILTERS_CLF |
		  LWP_LWPCB_FILTERS_NBC);
	env_event(e, ENV_LWPCB, 4, 256, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	d.src = LWP_DC_SRC_DRAM;
	ck_assert(!lwp_model_dcache_miss(&e->m, &d).stored);
	d.src = LWP_DC_SRC_NONE;
	ck_assert(!lwp_model_dcache_miss(&e->m, &d).stored);
	d.src = LWP_DC_SRC_LOCAL_L3;
	ck_assert(lwp_model_dcache_miss(&e->m, &d).stored);
	env_free(e);
}
END_TEST

/* §2.5, §2.6: clocks events, overrun reduces the reset (§1.1 step 5). */
START_TEST(test_clock_events)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	struct lwp_event_record rec;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_CNH | LWP_LWPCB_FLAGS_RNH, 2048, ENV_RING);
	env_event(e, ENV_LWPCB, 5, 1000, 100);
	env_event(e, ENV_LWPCB, 6, 1000, 10000);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_clocks(&e->m, 0x777, 150, 50));
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, LWP_EVENTID_CPU_CLOCKS_NOT_HALTED);
	ck_assert_uint_eq(rec.ip, 0x777);
	ck_assert_uint_eq(env_head(e), 32);
	OK(lwp_model_slwpcb(&e->m, 64));
	/* 100 - 150 = -50: reset 1000 + (-50 + 1). */
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 5), 951);
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 6), 9950);
	env_free(e);
}
END_TEST

/* §8.6: a record that cannot be stored stays pending; counting continues;
 * stored at the next opportunity. */
START_TEST(test_pending_record_retried)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 2, 4, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_page_np(e, ENV_RING, true);
	IS(lwp_model_insn_retired(&e->m, 0x10), LWP_MODEL_EXC_PF);
	for (i = 0; i < 3; i++)
		IS(lwp_model_insn_retired(&e->m, 0x11 + i), LWP_MODEL_EXC_PF);
	env_page_np(e, ENV_RING, false);
	OK(lwp_model_flush_pending(&e->m));
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).ip, 0x10);
	OK(lwp_model_slwpcb(&e->m, 64));
	/* counter -4 at store: reset 4 + (-4 + 1) = 1. */
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 1);
	env_free(e);
}
END_TEST

/* §5.1-§5.4: faults of LWP instructions run at CPL != 3 are the system's
 * responsibility: counted as violations. User faults are not. */
START_TEST(test_kernel_mode_faults_are_violations)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_page_np(e, ENV_LWPCB, true);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(lwp_model_violations(&e->m), 0);
	lwp_model_set_cpl(&e->m, 0);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(lwp_model_violations(&e->m), 1);
	ck_assert_str_eq(e->last_section, "43724 §5.1");
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* lwp_xop_execute: GNU as bytes through the model                       */
/* ===================================================================== */

/* §5: llwpcb %rax; lwpins $0x1234, (%rbx,%rcx,4), %r9d; lwpval; slwpcb. */
START_TEST(test_execute_gnu_as_sequence)
{
	/* llwpcb %rax */
	static const uint8_t llwpcb_rax[] = { 0x8f, 0xe9, 0xf8, 0x12, 0xc0 };
	/* lwpins $0x1234,(%rbx,%rcx,4),%r9d */
	static const uint8_t lwpins_m[] = { 0x8f, 0xea, 0x30, 0x12, 0x04, 0x8b,
					    0x34, 0x12, 0x00, 0x00 };
	/* lwpval $0x1,%r12d,%r8d */
	static const uint8_t lwpval_r[] = { 0x8f, 0xca, 0x38, 0x12, 0xcc, 0x01, 0x00, 0x00, 0x00 };
	/* slwpcb %r15 */
	static const uint8_t slwpcb_r15[] = { 0x8f, 0xc9, 0xf8, 0x12, 0xcf };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xop_regs regs;
	struct lwp_xop_insn_info info;
	struct lwp_event_record rec;

	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x401000;
	regs.rflags = LWP_XOP_RFLAGS_CF;
	regs.gpr[0] = ENV_LWPCB;
	regs.gpr[3] = ENV_DATA;
	regs.gpr[1] = 2;
	regs.gpr[9] = 0xFFFFFFFF99887766ull;
	regs.gpr[12] = 0x55;
	regs.gpr[8] = 0x66;
	env_put32(e, ENV_DATA + 8, 0x0BADCAFE);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);

	ck_assert_int_eq(lwp_xop_decode(llwpcb_rax, sizeof(llwpcb_rax), &regs, &info), 0);
	OK(lwp_xop_execute(&e->m, &info, &regs));
	ck_assert_uint_eq(regs.rip, 0x401005);
	ck_assert_int_eq(lwp_xop_decode(lwpins_m, sizeof(lwpins_m), &regs, &info), 0);
	OK(lwp_xop_execute(&e->m, &info, &regs));
	ck_assert_uint_eq(regs.rip, 0x40100F);
	ck_assert_uint_eq(regs.rflags & LWP_XOP_RFLAGS_CF, 0);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, 255);
	ck_assert_uint_eq(rec.flags, 0x1234);
	ck_assert_uint_eq(rec.data1, 0x0BADCAFE);
	ck_assert_uint_eq(rec.data2, 0x99887766);
	ck_assert_uint_eq(rec.ip, 0x401005);
	ck_assert_int_eq(lwp_xop_decode(lwpval_r, sizeof(lwpval_r), &regs, &info), 0);
	OK(lwp_xop_execute(&e->m, &info, &regs));
	rec = env_record(e, ENV_RING, 1);
	ck_assert_uint_eq(rec.event_id, 1);
	ck_assert_uint_eq(rec.data1, 0x55);
	ck_assert_uint_eq(rec.data2, 0x66);
	ck_assert_uint_eq(rec.flags, 1);
	ck_assert_uint_eq(rec.ip, 0x40100F);
	regs.gpr[15] = 0x1234;
	ck_assert_int_eq(lwp_xop_decode(slwpcb_r15, sizeof(slwpcb_r15), &regs, &info), 0);
	OK(lwp_xop_execute(&e->m, &info, &regs));
	ck_assert_uint_eq(regs.gpr[15], ENV_LWPCB);
	ck_assert_uint_eq(regs.rip, 0x40100F + 9 + 5);
	/* A faulting instruction leaves the registers alone. */
	OK(lwp_model_xsetbv(&e->m, 0));
	regs.gpr[15] = 7;
	IS(lwp_xop_execute(&e->m, &info, &regs), LWP_MODEL_EXC_UD);
	ck_assert_uint_eq(regs.gpr[15], 7);
	ck_assert_uint_eq(regs.rip, 0x40100F + 9 + 5);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* Issue 3 user profiles: requests beyond the profile are masked (§5.1 step
 * 6); user-exec produces the records of events 2 and 3. */
START_TEST(test_user_profiles_end_to_end)
{
	struct test_env *e = env_new(&lwp_model_profile_user);
	struct lwp_model_branch b = { .ip = 5, .target = 9, .kind = LWP_MODEL_BR_COND,
				       .taken = true };

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE,
		  64, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), LWP_LWPCB_FLAGS_VAL);
	ck_assert(!lwp_model_insn_retired(&e->m, 1).stored);
	ck_assert(!lwp_model_branch_retired(&e->m, &b).stored);
	env_free(e);
	e = env_new(&lwp_model_profile_user_exec);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE, 256, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE);
	ck_assert(lwp_model_insn_retired(&e->m, 1).stored);
	ck_assert(lwp_model_branch_retired(&e->m, &b).stored);
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).event_id, 3);
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).data2, 9);
	env_free(e);
}
END_TEST

/* CHOICE 8, 13, 14 (Documentation/lwp-model.rst): INT survives XSAVE/XRSTOR;
 * LWP_CFG.INT cleared later stops interrupts; CoreId/VECTOR read at use. */
START_TEST(test_cfg_changes_while_enabled)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;
	uint64_t bv = 0;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_xsave(&e->m, &a, LWP_XCR0_MASK, &bv));
	ck_assert_uint_eq(a.flags & LWP_LWPCB_FLAGS_INT, LWP_LWPCB_FLAGS_INT);
	OK(lwp_model_xrstor(&e->m, &a, LWP_XCR0_MASK, bv));
	OK(ins(e, 1, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 1);
	ck_assert_uint_eq(e->last_vector, 0xEC);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_INT | LWP_CFG_VAL |
			   (0x11ull << LWP_CFG_COREID_SHIFT) | (0x99ull << LWP_CFG_VECTOR_SHIFT)));
	OK(ins(e, 2, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 2);
	ck_assert_uint_eq(e->last_vector, 0x99);
	ck_assert_uint_eq(env_record(e, ENV_RING, 1).core_id, 0x11);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL));
	OK(ins(e, 3, 0, 0, 0));
	ck_assert_uint_eq(e->irqs, 2);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Robustness: random LWPCB contents, page states and operation sequences
 * never crash, and the internal head stays inside the ring, aligned to
 * LwpEventSize (Table 6-1 BufferHeadOffset). Run under SANITIZE=1. */
START_TEST(test_model_random_operations)
{
	const struct lwp_model_profile *profiles[] = { &lwp_model_profile_full,
						       &lwp_model_profile_fx8150 };
	uint64_t x = 0x2545F4914F6CDD1Dull + (uint64_t)_i;
	unsigned int round, op;

	for (round = 0; round < 40; round++) {
		struct test_env *e = env_new(profiles[round & 1]);
		struct lwp_xsave_area area;
		uint64_t bv = 0;

		memset(&area, 0, sizeof(area));
		for (op = 0; op < 300; op++) {
			uint64_t v = rnd(&x);
			uint64_t a = ENV_BASE + (rnd(&x) % ENV_SIZE);
			struct lwp_model_branch b = { .ip = v, .target = a,
						       .kind = (enum lwp_model_branch_kind)(v % 3),
						       .taken = v & 8,
						       .prediction = (enum lwp_model_prediction)(v % 3) };
			struct lwp_model_dcache_miss d = { .ip = v, .data_addr = a,
							   .latency = (uint32_t)v, .src = v & 7 };

			switch (rnd(&x) % 16) {
			case 0:
				env_lwpcb(e, ENV_LWPCB, (uint32_t)rnd(&x), (uint32_t)rnd(&x) % 8192,
					  ENV_RING + rnd(&x) % 0x20000);
				env_put32(e, ENV_LWPCB + 16, (uint32_t)rnd(&x) % 9000);
				env_put32(e, ENV_LWPCB + 32, (uint32_t)rnd(&x) % 9000);
				env_put32(e, ENV_LWPCB + 36, (uint32_t)rnd(&x));
				env_put32(e, ENV_LWPCB + 64, (uint32_t)rnd(&x) % 9000);
				for (unsigned int n = 1; n <= 6; n++)
					env_event(e, ENV_LWPCB, n, (uint32_t)rnd(&x) % 600,
						  (uint32_t)rnd(&x));
				lwp_model_llwpcb(&e->m, ENV_LWPCB, 64);
				break;
			case 1:
				lwp_model_llwpcb(&e->m, v & 1 ? 0 : a, 64);
				break;
			case 2:
				lwp_model_slwpcb(&e->m, 32);
				break;
			case 3:
				lwp_model_lwpins(&e->m, v, v, v & 1 ? env_mem_op(a) : env_reg_op(7),
						 (uint32_t)v, 64);
				break;
			case 4:
				lwp_model_lwpval(&e->m, v, v, v & 1 ? env_mem_op(a) : env_reg_op(7),
						 (uint32_t)v, 32);
				break;
			case 5:
				lwp_model_insn_retired(&e->m, v);
				break;
			case 6:
				lwp_model_branch_retired(&e->m, &b);
				break;
			case 7:
				lwp_model_dcache_miss(&e->m, &d);
				break;
			case 8:
				lwp_model_clocks(&e->m, v, v % 5000, v % 700);
				break;
			case 9:
				env_page_np(e, a, v & 1);
				break;
			case 10:
				env_page_ro(e, a, v & 1);
				break;
			case 11:
				lwp_model_xsave(&e->m, &area, LWP_XCR0_MASK, &bv);
				break;
			case 12:
				if (v & 1) {
					area.buffer_head_offset = (uint32_t)rnd(&x);
					area.buffer_size = (uint32_t)rnd(&x) % 9000;
					area.flags = (uint32_t)rnd(&x);
				}
				lwp_model_set_cpl(&e->m, v & 2 ? 0 : 3);
				lwp_model_xrstor(&e->m, &area, LWP_XCR0_MASK, bv);
				lwp_model_set_cpl(&e->m, 3);
				break;
			case 13:
				env_set_tail(e, (uint32_t)v % 9000);
				break;
			case 14:
				lwp_model_flush_pending(&e->m);
				break;
			default:
				lwp_model_set_head_flush(&e->m, (enum lwp_model_head_flush)(v & 1));
				break;
			}
			if (lwp_model_enabled(&e->m)) {
				ck_assert_uint_lt(e->m.head, e->m.buffer_size);
				ck_assert_uint_eq(e->m.head % 32, 0);
				ck_assert_uint_eq(e->m.buffer_size % 32, 0);
			}
		}
		env_free(e);
	}
}
END_TEST

/* §5.1 Notes: LLWPCB of the active LWPCB first flushes into it, overwriting
 * what the application changed; the flushed values are then loaded. */
START_TEST(test_llwpcb_same_lwpcb_overwrites_changes)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 100, 10);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(val(e, 1, 0, 0, 0));					/* counter 9 */
	env_event(e, ENV_LWPCB, 1, 100, 0);			/* app wants 0 */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1), 9);	/* flushed over it */
	OK(val(e, 2, 0, 0, 0));
	ck_assert(!val(e, 3, 0, 0, 0).stored);			/* 9 -> 7: none */
	/* The documented way: stop with 0, edit, restart. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_event(e, ENV_LWPCB, 1, 100, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert(val(e, 4, 0, 0, 0).stored);
	env_free(e);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("lwp_model");
	TCase *tc;

	tc = tcase_create("cpuid_s3");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cpuid_fx8150_every_field);
	tcase_add_test(tc, test_cpuid_eax_mirrors_xcr0_and_lwp_cfg);
	tcase_add_test(tc, test_cpuid_full_every_feature);
	tcase_add_test(tc, test_cpuid_user_profiles_honest);
	tcase_add_test(tc, test_profile_lookup_and_cap_names);
	tcase_add_test(tc, test_none_profile_no_lwp);
	suite_add_tcase(s, tc);

	tc = tcase_create("registers_s4");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_wrmsr_lwp_cfg_reserved_and_unsupported_gp);
	tcase_add_test(tc, test_wrmsr_int_without_vector_is_violation);
	tcase_add_test(tc, test_wrmsr_cbaddr);
	tcase_add_test(tc, test_rdmsr_cbaddr_no_flush);
	tcase_add_test(tc, test_xsetbv_clear_disables_and_ud);
	suite_add_tcase(s, tc);

	tc = tcase_create("llwpcb_slwpcb_s5");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_llwpcb_flags_masked_written_back);
	tcase_add_test(tc, test_llwpcb_no_event_still_enables_lwpins);
	tcase_add_test(tc, test_llwpcb_intervals_fixed_and_written_back);
	tcase_add_test(tc, test_llwpcb_negative_counter_is_zero);
	tcase_add_test(tc, test_llwpcb_min_buffer_size_gp);
	tcase_add_test(tc, test_llwpcb_noncanonical_gp);
	tcase_add_test(tc, test_llwpcb_page_faults);
	tcase_add_test(tc, test_llwpcb_flushes_old_first);
	tcase_add_test(tc, test_llwpcb_operand_size_truncation);
	tcase_add_test(tc, test_llwpcb_head_offset_rules);
	tcase_add_test(tc, test_llwpcb_same_lwpcb_overwrites_changes);
	tcase_add_test(tc, test_slwpcb_flush_counters_and_head);
	tcase_add_test(tc, test_slwpcb_writes_pending_record);
	suite_add_tcase(s, tc);

	tc = tcase_create("lwpval_lwpins_s5");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lwpval_record_fields);
	tcase_add_test(tc, test_lwpval_memory_operand_lazy);
	tcase_add_test(tc, test_lwpval_not_enabled_does_nothing);
	tcase_add_test(tc, test_lwpins_record_fields_cf_clear);
	tcase_add_test(tc, test_lwpins_not_enabled_cf_clear);
	tcase_add_test(tc, test_lwpins_ring_full_cf_set);
	tcase_add_test(tc, test_lwpval_ring_full_resets_counter);
	tcase_add_test(tc, test_random_bits_in_reset);
	suite_add_tcase(s, tc);

	tc = tcase_create("ring_s6_s8");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_threshold_interrupt);
	tcase_add_test(tc, test_threshold_zero_large_and_disabled);
	tcase_add_test(tc, test_head_flush_every_store_default);
	tcase_add_test(tc, test_head_flush_lazy);
	tcase_add_test(tc, test_xsave_drops_int);
	tcase_add_test(tc, test_llwpcb_reserved_fields_gp);
	suite_add_tcase(s, tc);

	tc = tcase_create("xsave_s7");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_xsave_layout);
	tcase_add_test(tc, test_xsave_xrstor_round_trip);
	tcase_add_test(tc, test_xrstor_rfbm_clear_no_change);
	tcase_add_test(tc, test_xrstor_rules);
	tcase_add_test(tc, test_xrstor_cpl3_validation);
	tcase_add_test(tc, test_xrstor_refreshes_cached_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("events_s2");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_insn_retired_records);
	tcase_add_test(tc, test_branch_retired_records);
	tcase_add_test(tc, test_branch_filters);
	tcase_add_test(tc, test_ip_filtering);
	tcase_add_test(tc, test_dcache_miss);
	tcase_add_test(tc, test_clock_events);
	tcase_add_test(tc, test_pending_record_retried);
	tcase_add_test(tc, test_kernel_mode_faults_are_violations);
	tcase_add_test(tc, test_execute_gnu_as_sequence);
	tcase_add_test(tc, test_user_profiles_end_to_end);
	tcase_add_test(tc, test_cfg_changes_while_enabled);
	tcase_add_loop_test(tc, test_model_random_operations, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(model_suite(), CK_NORMAL);
}
