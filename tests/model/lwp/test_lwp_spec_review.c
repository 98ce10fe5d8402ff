// SPDX-License-Identifier: GPL-2.0
/*
 * Independent review of the LWP model against AMD 43724 rev 3.04: one test
 * per spec rule, each naming the section and quoting the sentence it pins.
 * Expectations are derived from the spec text (and GNU as 2.40 for the XOP
 * bytes), not from the model. Choices are in Documentation/lwp-model.rst.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/lwp/lwp_model.h"
#include "model/lwp/lwp_xop.h"
#include "tests/model/lwp/lwp_test_check.h"
#include "tests/check_run.h"

#define XCR0		LWP_XCR0_MASK
#define EVOFF		LWP_LWPCB_EVENT_OFFSET_DEFAULT

/* LWP started with an LWPCB at ENV_LWPCB and a ring of `records` at ENV_RING. */

static struct lwp_model_result ins(struct test_env *e, uint64_t ip, uint32_t imm)
{
	return lwp_model_lwpins(&e->m, ip, 0, env_reg_op(0), imm, 64);
}

static struct lwp_model_result val(struct test_env *e, uint64_t ip, uint32_t imm)
{
	return lwp_model_lwpval(&e->m, ip, 0, env_reg_op(0), imm, 64);
}

/* ===================================================================== */
/* §5.3 LWPVAL                                                           */
/* ===================================================================== */

/*
 * §5.3: "LWPVAL does nothing if LWP is not enabled or if the Programmed Value
 * Sample event is not enabled in LWPCB.Flags." Nothing: no LWPCB or ring
 * access at all, even when the cached LWPCB fields would need a refresh
 * after XRSTOR (§8.2.5) and the LWPCB is not present.
 */
START_TEST(test_5_3_lwpval_event_disabled_touches_nothing)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_IRE, 32);
	struct lwp_xsave_area a;
	uint64_t bv = 0;
	unsigned int r0, w0;

	env_event(e, ENV_LWPCB, 1, 0, 0);
	r0 = e->reads;
	w0 = e->writes;
	OK(lwp_model_lwpval(&e->m, 0x400, 1, env_mem_op(ENV_DATA), 2, 64));
	ck_assert_uint_eq(e->reads, r0);
	ck_assert_uint_eq(e->writes, w0);
	/* After XSAVE/XRSTOR the cached fields are stale; LWPCB unmapped. */
	OK(lwp_model_xsave(&e->m, &a, XCR0, &bv));
	OK(lwp_model_xrstor(&e->m, &a, XCR0, bv));
	env_page_np(e, ENV_LWPCB, true);
	r0 = e->reads;
	w0 = e->writes;
	OK(lwp_model_lwpval(&e->m, 0x401, 1, env_mem_op(ENV_DATA), 2, 64));
	ck_assert_uint_eq(e->reads, r0);
	ck_assert_uint_eq(e->writes, w0);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §7.4 XRSTOR                                                           */
/* ===================================================================== */

static void xsave_area_for_ring(struct lwp_xsave_area *a, uint32_t size, uint32_t head)
{
	memset(a, 0, sizeof(*a));
	a->lwpcb_address = ENV_LWPCB;
	a->buffer_base = ENV_RING;
	a->buffer_size = size;
	a->buffer_head_offset = head;
	a->flags = LWP_XSAVE_FLAGS_COUNTER(1);
}

/*
 * §7.4 pseudo-code, CPL != 0: "if (XSAVE.BufferHeadOffset > XSAVE.BufferSize
 * - LwpEventSize) XSAVE.BufferHeadOffset = 0". A head inside the last record
 * (not a multiple of 32) restarts at 0 at CPL 3; at CPL 0 only the bullets
 * apply (>= BufferSize -> 0, else rounded down).
 */
START_TEST(test_7_4_xrstor_cpl3_head_in_last_record_is_zero)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);	/* min 1024 */
	struct lwp_xsave_area a;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	xsave_area_for_ring(&a, 1024, 1024 - 32 + 8);
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	ck_assert(lwp_model_enabled(&e->m));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 0);
	/* Exactly the last record is kept. */
	xsave_area_for_ring(&a, 1024, 1024 - 32);
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 1024 - 32);
	/* CPL 0: the bullets only: rounded down. */
	lwp_model_set_cpl(&e->m, 0);
	xsave_area_for_ring(&a, 1024, 1024 - 32 + 8);
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	lwp_model_set_cpl(&e->m, 3);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_head(e), 1024 - 32);
	ck_assert_uint_eq(e->violations, 0);
	env_free(e);
}
END_TEST

/*
 * §7.4: "If BufferSize is below the implementation minimum, LWP is disabled"
 * - disabled, not a fault, also for an empty ring restored at CPL 3.
 */
START_TEST(test_7_4_xrstor_small_ring_disables_without_fault)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	xsave_area_for_ring(&a, 0, 0);
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	ck_assert(!lwp_model_enabled(&e->m));
	xsave_area_for_ring(&a, 32, 0);
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	ck_assert(!lwp_model_enabled(&e->m));
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §3.3 CPUID, §4 LWP_CFG / LWP_CBADDR / XCR0                            */
/* ===================================================================== */

/*
 * §3.3: "Bit 0 of EAX is a copy of bit 62 from XFEATURE_ENABLED_MASK";
 * "Bits[31:1] returned in EAX are taken from the LWP_CFG MSR". EDX is the
 * constant supported set.
 */
START_TEST(test_3_3_cpuid_eax_tracks_xcr0_and_lwp_cfg)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_full);
	uint32_t r[4];
	uint32_t edx = lwp_model_profile_full.fn8000_001c_edx;

	lwp_model_cpuid(&e->m, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], 0);
	ck_assert_uint_eq(r[3], edx);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_IRE | LWP_CFG_INT |
			   (0x12ull << LWP_CFG_COREID_SHIFT) | (0x40ull << LWP_CFG_VECTOR_SHIFT)));
	lwp_model_cpuid(&e->m, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], LWP_CPUID_LWPIRE | LWP_CPUID_LWPINT);	/* no COREID */
	OK(lwp_model_xsetbv(&e->m, XCR0));
	lwp_model_cpuid(&e->m, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0], LWP_CPUID_LWPAVAIL | LWP_CPUID_LWPIRE | LWP_CPUID_LWPINT);
	ck_assert_uint_eq(r[3], edx);
	OK(lwp_model_xsetbv(&e->m, 0));
	lwp_model_cpuid(&e->m, LWP_CPUID_FN8000_001C, 0, r);
	ck_assert_uint_eq(r[0] & LWP_CPUID_LWPAVAIL, 0);
	env_free(e);
}
END_TEST

/*
 * §4.2: "Only bits for supported features ... can be turned on in LWP_CFG.
 * Attempting to set other bits causes a #GP fault." Bit 0 (reserved/MBZ),
 * bits 30:7, 63:48 and unsupported events (fx8150: no DME/CNH/RNH).
 */
START_TEST(test_4_2_lwp_cfg_gp_rules)
{
	struct test_env *e = env_new_bare(&lwp_model_profile_fx8150);
	static const uint64_t bad[] = {
		1ull << 4, 1ull << 5, 1ull << 6, 1ull << 7, 1ull << 30,
	};
	/* The letter; the real FX-8150 ignores these (issue 14, fx8150). */
	static const uint64_t letter[] = { 1ull << 0, 1ull << 48, 1ull << 63 };
	unsigned int i;

	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 0x2345ull << 32 | 0x8000000Eull));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, bad[i] | 2).exc,
				 LWP_MODEL_EXC_GP);
		/* The #GP leaves LWP_CFG unchanged. */
		ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CFG).value,
				  0x2345ull << 32 | 0x8000000Eull);
	}
	env_free(e);
	e = env_new_bare(&lwp_model_profile_full);
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, 0x2345ull << 32 | 0x8000000Eull));
	for (i = 0; i < sizeof(letter) / sizeof(letter[0]); i++)
		ck_assert_int_eq(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, letter[i] | 2).exc,
				 LWP_MODEL_EXC_GP);
	env_free(e);
}
END_TEST

/*
 * §4.3: "WRMSR to this register with a non-zero value generates a #GP";
 * "Writing a zero ... immediately disables LWP, discarding any internal
 * state" (no flush: the LWPCB is not written, the pending record is lost).
 */
START_TEST(test_4_3_cbaddr_zero_discards_without_flush)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	unsigned int w0;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 2, 100, 50);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_insn_retired(&e->m, 1));
	IS(lwp_model_wrmsr(&e->m, LWP_MSR_CBADDR, ENV_LWPCB), LWP_MODEL_EXC_GP);
	ck_assert(lwp_model_enabled(&e->m));
	w0 = e->writes;
	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CBADDR, 0));
	ck_assert_uint_eq(e->writes, w0);
	ck_assert(!lwp_model_enabled(&e->m));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 50);	/* not flushed */
	ck_assert_uint_eq(lwp_model_slwpcb(&e->m, 64).value, 0);
	env_free(e);
}
END_TEST

/*
 * §4.1: clearing XCR0[62] "has the effect of storing 0 into LWP_CBADDR";
 * §5: the instructions then raise #UD (LWP not available).
 */
START_TEST(test_4_1_xcr0_clear_zeroes_cbaddr)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);

	OK(lwp_model_xsetbv(&e->m, 0));
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, 0);
	IS(lwp_model_slwpcb(&e->m, 64), LWP_MODEL_EXC_UD);
	IS(lwp_model_llwpcb(&e->m, 0, 64), LWP_MODEL_EXC_UD);
	IS(ins(e, 1, 0), LWP_MODEL_EXC_UD);
	IS(val(e, 1, 0), LWP_MODEL_EXC_UD);
	OK(lwp_model_xsetbv(&e->m, XCR0));
	ck_assert(!lwp_model_enabled(&e->m));	/* stays disabled */
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5.1 LLWPCB, §5.2 SLWPCB                                              */
/* ===================================================================== */

/*
 * §5.1 step 2: "the flush is done before LWP attempts to access the new
 * LWPCB"; a #PF there leaves "LWP ... enabled with the old LWPCB". The new
 * LWPCB is not touched (its Flags are not written back).
 */
START_TEST(test_5_1_flush_before_new_lwpcb)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 5, 5);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(val(e, 1, 0));
	env_lwpcb(e, ENV_LWPCB2, 0xFFFFFFFFu, 1024, ENV_RING + 0x1000);
	env_page_ro(e, ENV_LWPCB, true);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB2, 64), LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB2), 0xFFFFFFFFu);	/* untouched */
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, ENV_LWPCB);
	env_page_ro(e, ENV_LWPCB, false);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB2, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1), 4);	/* old flushed */
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB2),
			  LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE |
			  LWP_LWPCB_FLAGS_INT);
	env_free(e);
}
END_TEST

/*
 * §5.1 step 6, Figure 6-2: Flags "and" the available features, reserved bit 0
 * and bits 30:7 cleared, result stored back; an event supported but not made
 * available in LWP_CFG is cleared too.
 */
START_TEST(test_5_1_flags_masked_by_available)
{
	struct test_env *e = env_new(&lwp_model_profile_full);

	OK(lwp_model_wrmsr(&e->m, LWP_MSR_CFG, LWP_CFG_VAL | LWP_CFG_DME));
	env_lwpcb(e, ENV_LWPCB, 0xFFFFFFFFu, 64 * 32, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_get32(e, ENV_LWPCB), LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_DME);
	env_free(e);
}
END_TEST

/*
 * §5.1 step 7, Table 6-1: "EventInterval1 ... If it is negative, LLWPCB will
 * use zero and will store zero"; 0 is kept (no minimum for LWPVAL).
 * EventInterval2: "negative or ... below the implementation minimum, LLWPCB
 * will use the minimum and will store that value". Counters: "LLWPCB treats
 * a negative value as zero" (the first event then stores a record).
 */
START_TEST(test_5_1_intervals_and_counters)
{
	struct test_env *e = env_new(&lwp_model_profile_full);	/* minimum 256 */
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 64 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0x03FFFFFFu, 0x03FFFFF0u);	/* -1, -16 */
	env_event(e, ENV_LWPCB, 2, 0x02000000u, 0x02000000u);	/* -2^25 */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 1), 0);
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 2), 256);
	r = val(e, 0x10, 0);
	ck_assert(r.stored);
	r = val(e, 0x11, 0);			/* interval 0: every LWPVAL */
	ck_assert(r.stored);
	r = lwp_model_insn_retired(&e->m, 0x12);
	ck_assert(r.stored);			/* counter -2^25 -> 0 */
	r = lwp_model_insn_retired(&e->m, 0x13);
	ck_assert(!r.stored);			/* then 256 + 1 instructions */
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 2), 255);
	/* An interval of 0 for LWPVAL is kept as is. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_event(e, ENV_LWPCB, 1, 0, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert_uint_eq(env_interval(e, ENV_LWPCB, 1), 0);
	env_free(e);
}
END_TEST

/*
 * §5.1 step 4 and Table 6-1 BufferSize: "rounded down if not" a multiple of
 * LwpEventSize; "must be at least (32 * LwpMinBufferSize * LwpEventSize)"
 * else #GP and LWP left disabled. The full profile's minimum is 64 records.
 */
START_TEST(test_5_1_buffer_size_minimum_after_rounding)
{
	struct test_env *e = env_new(&lwp_model_profile_full);

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 64 * 32 - 1, ENV_RING);
	IS(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64), LWP_MODEL_EXC_GP);
	ck_assert(!lwp_model_enabled(&e->m));
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 64 * 32 + 31, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	ck_assert(lwp_model_enabled(&e->m));
	env_free(e);
}
END_TEST

/*
 * §5.2: "If LWP is not currently active, SLWPCB sets the specified register
 * to zero"; the flush writes "an unwritten event record pending" to the ring.
 * Via the decoder: slwpcb %eax zero-extends into RAX (32-bit operand).
 */
START_TEST(test_5_2_slwpcb_register_results)
{
	static const uint8_t slwpcb_eax[] = { 0x8f, 0xe9, 0x78, 0x12, 0xc8 };
	static const uint8_t slwpcb_rax[] = { 0x8f, 0xe9, 0xf8, 0x12, 0xc8 };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xop_insn_info d;
	struct lwp_xop_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.gpr[0] = 0xDEADBEEFDEADBEEFull;
	ck_assert_int_eq(lwp_xop_decode(slwpcb_rax, sizeof(slwpcb_rax), &regs, &d), LWP_XOP_OK);
	OK(lwp_xop_execute(&e->m, &d, &regs));
	ck_assert_uint_eq(regs.gpr[0], 0);
	env_lwpcb(e, ENV_LWPCB, 0, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	regs.gpr[0] = 0xDEADBEEFDEADBEEFull;
	ck_assert_int_eq(lwp_xop_decode(slwpcb_eax, sizeof(slwpcb_eax), &regs, &d), LWP_XOP_OK);
	OK(lwp_xop_execute(&e->m, &d, &regs));
	ck_assert_uint_eq(regs.gpr[0], ENV_LWPCB & 0xFFFFFFFFull);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5.3 LWPVAL, §5.4 LWPINS                                              */
/* ===================================================================== */

/*
 * Figures 2-2, 2-8, §5.3/§5.4: Data2 = vvvv register "zero extended if the
 * operand size is less than 64"; Data1 = reg/mem32; Flags = imm "truncated
 * to 16 bits"; CoreId from LWP_CFG; bytes 31-24 reserved = 0.
 */
START_TEST(test_5_4_record_fields_and_sizes)
{
	struct test_env *e = env_started(&lwp_model_profile_fx8150, LWP_LWPCB_FLAGS_VAL, 32);
	struct lwp_event_record rec;

	memset(env_ptr(e, ENV_RING), 0xEE, 64);
	env_put32(e, ENV_DATA, 0xCAFEF00Du);
	OK(lwp_model_lwpins(&e->m, 0x401000, 0xFFFFFFFF87654321ull, env_mem_op(ENV_DATA),
			    0xABCD1234u, 32));
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, 255);
	ck_assert_uint_eq(rec.core_id, 0x5A);
	ck_assert_uint_eq(rec.flags, 0x1234);
	ck_assert_uint_eq(rec.data1, 0xCAFEF00Du);
	ck_assert_uint_eq(rec.ip, 0x401000);
	ck_assert_uint_eq(rec.data2, 0x87654321ull);
	ck_assert_uint_eq(rec.reserved, 0);
	OK(lwp_model_lwpval(&e->m, 0x401010, 0xFFFFFFFF87654321ull, env_reg_op(7), 0xFFFF0001u, 64));
	rec = env_record(e, ENV_RING, 1);
	ck_assert_uint_eq(rec.event_id, 1);
	ck_assert_uint_eq(rec.flags, 1);
	ck_assert_uint_eq(rec.data1, 7);
	ck_assert_uint_eq(rec.data2, 0xFFFFFFFF87654321ull);
	ck_assert_uint_eq(rec.reserved, 0);
	env_free(e);
}
END_TEST

/*
 * §5.3: "If the counter is not negative and the modrm operand specifies a
 * memory location, that location is not accessed" - an unmapped operand
 * does not fault until the LWPVAL that stores.
 */
START_TEST(test_5_3_memory_operand_only_when_storing)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 2, 2);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_page_np(e, ENV_DATA, true);
	OK(lwp_model_lwpval(&e->m, 1, 0, env_mem_op(ENV_DATA), 0, 64));
	OK(lwp_model_lwpval(&e->m, 2, 0, env_mem_op(ENV_DATA), 0, 64));
	r = lwp_model_lwpval(&e->m, 3, 0, env_mem_op(ENV_DATA), 0, 64);
	IS(r, LWP_MODEL_EXC_PF);
	ck_assert_uint_eq(r.pf_addr, ENV_DATA);
	ck_assert(!r.pf_write);
	/* Restartable: the same LWPVAL stores once the page is present. */
	env_page_np(e, ENV_DATA, false);
	r = lwp_model_lwpval(&e->m, 3, 0, env_mem_op(ENV_DATA), 0, 64);
	ck_assert(r.stored);
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).ip, 3);
	env_free(e);
}
END_TEST

/*
 * §5.4: ring not full -> head advanced, CF cleared; full -> "the event record
 * overwrites the last record in the buffer, the MissedEvents counter ... is
 * incremented, the head pointer is not advanced, and the CF flag is set";
 * not enabled -> "simply clears CF". Through the decoder (RFLAGS.CF).
 */
START_TEST(test_5_4_lwpins_cf_via_decoder)
{
	/* lwpins $0x7, %eax, %ecx (GNU as 2.40) */
	static const uint8_t lwpins[] = { 0x8f, 0xea, 0x70, 0x12, 0xc0, 0x07, 0, 0, 0 };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xop_insn_info d;
	struct lwp_xop_regs regs;
	unsigned int i;

	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x1000;
	regs.rflags = LWP_XOP_RFLAGS_CF;
	ck_assert_int_eq(lwp_xop_decode(lwpins, sizeof(lwpins), &regs, &d), LWP_XOP_OK);
	OK(lwp_xop_execute(&e->m, &d, &regs));		/* not enabled */
	ck_assert_uint_eq(regs.rflags & LWP_XOP_RFLAGS_CF, 0);
	ck_assert_uint_eq(regs.rip, 0x1000 + sizeof(lwpins));
	env_lwpcb(e, ENV_LWPCB, 0, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	for (i = 0; i < 31; i++) {
		regs.rip = 0x2000 + i;
		regs.rflags = LWP_XOP_RFLAGS_CF;
		OK(lwp_xop_execute(&e->m, &d, &regs));
		ck_assert_uint_eq(regs.rflags & LWP_XOP_RFLAGS_CF, 0);
	}
	ck_assert_uint_eq(env_head(e), 31 * 32);
	regs.rip = 0x3000;
	OK(lwp_xop_execute(&e->m, &d, &regs));
	ck_assert_uint_eq(regs.rflags & LWP_XOP_RFLAGS_CF, LWP_XOP_RFLAGS_CF);
	ck_assert_uint_eq(env_head(e), 31 * 32);
	ck_assert_uint_eq(env_missed(e), 1);
	ck_assert_uint_eq(env_record(e, ENV_RING, 31).ip, 0x3000);
	ck_assert_uint_eq(env_record(e, ENV_RING, 30).ip, 0x2000 + 30);
	/* §8.3: the tail is re-read when the ring appears full. */
	env_set_tail(e, 32);
	regs.rip = 0x3001;
	OK(lwp_xop_execute(&e->m, &d, &regs));
	ck_assert_uint_eq(regs.rflags & LWP_XOP_RFLAGS_CF, 0);
	ck_assert_uint_eq(env_head(e), 0);
	ck_assert_uint_eq(env_missed(e), 1);
	env_free(e);
}
END_TEST

/*
 * §5.3 / §5.4 Notes, §2.2 ("All user mode instructions are counted,
 * including LWPVAL and LWPINS"): with EventInterval2 = 0, each executed
 * LWPVAL/LWPINS stores its own record and then an instructions-retired
 * record with the same InstructionAddress.
 */
START_TEST(test_5_4_two_records_same_ip)
{
	/* lwpval $0x1, %eax, %ecx ; lwpins $0x2, %eax, %ecx (GNU as 2.40) */
	static const uint8_t lwpval[] = { 0x8f, 0xea, 0x70, 0x12, 0xc8, 0x01, 0, 0, 0 };
	static const uint8_t lwpins[] = { 0x8f, 0xea, 0x70, 0x12, 0xc0, 0x02, 0, 0, 0 };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xop_insn_info d;
	struct lwp_xop_regs regs;
	struct lwp_event_record a, b;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0, 0);
	env_event(e, ENV_LWPCB, 2, 0, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x5000;
	ck_assert_int_eq(lwp_xop_decode(lwpval, sizeof(lwpval), &regs, &d), LWP_XOP_OK);
	ck_assert_int_eq(d.insn, LWP_XOP_LWPVAL);
	OK(lwp_xop_execute(&e->m, &d, &regs));
	ck_assert_int_eq(lwp_xop_decode(lwpins, sizeof(lwpins), &regs, &d), LWP_XOP_OK);
	ck_assert_int_eq(d.insn, LWP_XOP_LWPINS);
	OK(lwp_xop_execute(&e->m, &d, &regs));
	a = env_record(e, ENV_RING, 0);
	b = env_record(e, ENV_RING, 1);
	ck_assert_uint_eq(a.event_id, 1);
	ck_assert_uint_eq(b.event_id, 2);
	ck_assert_uint_eq(a.ip, 0x5000);
	ck_assert_uint_eq(b.ip, 0x5000);
	a = env_record(e, ENV_RING, 2);
	b = env_record(e, ENV_RING, 3);
	ck_assert_uint_eq(a.event_id, 255);
	ck_assert_uint_eq(b.event_id, 2);
	ck_assert_uint_eq(a.ip, 0x5000 + sizeof(lwpval));
	ck_assert_uint_eq(b.ip, 0x5000 + sizeof(lwpval));
	ck_assert_uint_eq(env_head(e), 4 * 32);
	env_free(e);
}
END_TEST

/* ===================================================================== */
/* §5 XOP encodings: edge cases, truth from GNU as / objdump 2.40        */
/* ===================================================================== */

static int xdec(const uint8_t *b, size_t n, struct lwp_xop_insn_info *d)
{
	struct lwp_xop_regs regs;
	unsigned int i;

	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < 16; i++)
		regs.gpr[i] = 0xFFFFFFFF80000000ull | (0x1000ull * (i + 1));
	regs.rip = 0x00007FFFF0000000ull;
	regs.fs_base = 0x100000000ull;
	regs.gs_base = 0x200000000ull;
	return lwp_xop_decode(b, n, &regs, d);
}

/*
 * Memory forms GNU as does not emit for any source the table generator
 * uses, disassembled by objdump 2.40: SIB index 100b without XOP.X is "no
 * index" whatever the scale ((%rax,%riz,2)); with XOP.X = 0 (inverted) it is
 * r12; r12 as base needs a SIB, r13 as base a disp8; SIB base 101b with
 * mod 00 is disp32 without base even with XOP.B; rm 101b mod 00 is
 * RIP-relative even with XOP.B.
 */
START_TEST(test_5_xop_sib_edge_cases)
{
	/* lwpins $0x1,(%rax,%riz,2),%eax */
	static const uint8_t riz2[] = { 0x8f, 0xea, 0x78, 0x12, 0x04, 0x60, 1, 0, 0, 0 };
	/* lwpins $0x1,(%rax,%r12,2),%eax */
	static const uint8_t r12i[] = { 0x8f, 0xaa, 0x78, 0x12, 0x04, 0x60, 1, 0, 0, 0 };
	/* lwpins $0x1,(%r12),%eax */
	static const uint8_t r12b[] = { 0x8f, 0xca, 0x78, 0x12, 0x04, 0x24, 1, 0, 0, 0 };
	/* lwpins $0x1,0x0(%r13),%eax */
	static const uint8_t r13b[] = { 0x8f, 0xca, 0x78, 0x12, 0x45, 0x00, 1, 0, 0, 0 };
	/* lwpins $0x1,0x12345678,%eax (XOP.B set: still no base) */
	static const uint8_t nob[] = { 0x8f, 0xca, 0x78, 0x12, 0x04, 0x25,
				       0x78, 0x56, 0x34, 0x12, 1, 0, 0, 0 };
	/* lwpins $0x1,0x12345678(%rip),%eax (XOP.B set: still RIP) */
	static const uint8_t ripb[] = { 0x8f, 0xca, 0x78, 0x12, 0x05,
					0x78, 0x56, 0x34, 0x12, 1, 0, 0, 0 };
	struct lwp_xop_insn_info d;

	ck_assert_int_eq(xdec(riz2, sizeof(riz2), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.base, 0);
	ck_assert_int_eq(d.index, -1);
	ck_assert_uint_eq(d.mem_addr, 0xFFFFFFFF80001000ull);
	ck_assert_int_eq(xdec(r12i, sizeof(r12i), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.index, 12);
	ck_assert_uint_eq(d.scale, 2);
	ck_assert_int_eq(xdec(r12b, sizeof(r12b), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.base, 12);
	ck_assert_int_eq(d.index, -1);
	ck_assert_int_eq(xdec(r13b, sizeof(r13b), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.base, 13);
	ck_assert_int_eq(d.disp, 0);
	ck_assert_uint_eq(d.length, sizeof(r13b));
	ck_assert_int_eq(xdec(nob, sizeof(nob), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.base, -1);
	ck_assert_int_eq(d.index, -1);
	ck_assert_uint_eq(d.mem_addr, 0x12345678u);
	ck_assert_int_eq(xdec(ripb, sizeof(ripb), &d), LWP_XOP_OK);
	ck_assert(d.rip_relative);
	ck_assert_uint_eq(d.mem_addr, 0x00007FFFF0000000ull + sizeof(ripb) + 0x12345678u);
}
END_TEST

/*
 * RIP-relative with the largest displacements (GNU as: lwpval $0x1234,
 * 0x7fffffff(%rip),%rax / -0x80000000(%rip)), and 67h forms: EIP-relative
 * and r12d/r13d bases truncate the address to 32 bits; FS/GS add their base
 * after truncation; ES/CS/SS/DS add 0 in 64-bit mode.
 */
START_TEST(test_5_xop_rip_and_addr32)
{
	static const uint8_t ripmax[] = { 0x8f, 0xea, 0xf8, 0x12, 0x0d, 0xff, 0xff, 0xff, 0x7f,
					  0x34, 0x12, 0, 0 };
	static const uint8_t ripmin[] = { 0x8f, 0xea, 0xf8, 0x12, 0x0d, 0x00, 0x00, 0x00, 0x80,
					  0x34, 0x12, 0, 0 };
	/* lwpins $0x1,%gs:0x10(%eip),%eax */
	static const uint8_t gseip[] = { 0x65, 0x67, 0x8f, 0xea, 0x78, 0x12, 0x05,
					 0x10, 0, 0, 0, 1, 0, 0, 0 };
	/* lwpins $0x1,0x0(%r13d,%r12d,8),%eax */
	static const uint8_t a32[] = { 0x67, 0x8f, 0x8a, 0x78, 0x12, 0x44, 0xe5, 0x00,
				       1, 0, 0, 0 };
	/* lwpins $0x1,(%eax),%rcx */
	static const uint8_t eax64[] = { 0x67, 0x8f, 0xea, 0xf0, 0x12, 0x00, 1, 0, 0, 0 };
	/* ss lwpins $0x1,(%rax),%eax ; cs ... */
	static const uint8_t ss[] = { 0x36, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	static const uint8_t cs[] = { 0x2e, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	/* fs lwpins $0x1,%gs:(%rax),%eax: the last segment prefix wins */
	static const uint8_t fsgs[] = { 0x64, 0x65, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	struct lwp_xop_insn_info d;

	ck_assert_int_eq(xdec(ripmax, sizeof(ripmax), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.insn, LWP_XOP_LWPVAL);
	ck_assert_uint_eq(d.opsize, 64);
	ck_assert_uint_eq(d.mem_addr, 0x00007FFFF0000000ull + 13 + 0x7FFFFFFFull);
	ck_assert_int_eq(xdec(ripmin, sizeof(ripmin), &d), LWP_XOP_OK);
	ck_assert_uint_eq(d.mem_addr, 0x00007FFFF0000000ull + 13 - 0x80000000ull);
	ck_assert_int_eq(xdec(gseip, sizeof(gseip), &d), LWP_XOP_OK);
	ck_assert_uint_eq(d.length, 15);
	ck_assert_uint_eq(d.addrsize, 32);
	ck_assert_uint_eq(d.mem_addr, 0x200000000ull + ((0xF0000000ull + 15 + 0x10) & 0xFFFFFFFF));
	ck_assert_int_eq(xdec(a32, sizeof(a32), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.base, 13);
	ck_assert_int_eq(d.index, 12);
	ck_assert_uint_eq(d.scale, 8);
	ck_assert_uint_eq(d.mem_addr, (0x8000E000ull + 8 * 0x8000D000ull) & 0xFFFFFFFF);
	ck_assert_int_eq(xdec(eax64, sizeof(eax64), &d), LWP_XOP_OK);
	ck_assert_uint_eq(d.opsize, 64);
	ck_assert_uint_eq(d.vvvv, 1);
	ck_assert_uint_eq(d.mem_addr, 0x80001000u);
	ck_assert_int_eq(xdec(ss, sizeof(ss), &d), LWP_XOP_OK);
	ck_assert_uint_eq(d.mem_addr, 0xFFFFFFFF80001000ull);
	ck_assert_int_eq(xdec(cs, sizeof(cs), &d), LWP_XOP_OK);
	ck_assert_uint_eq(d.mem_addr, 0xFFFFFFFF80001000ull);
	ck_assert_int_eq(xdec(fsgs, sizeof(fsgs), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.seg, LWP_XOP_SEG_GS);
	ck_assert_uint_eq(d.mem_addr, 0xFFFFFFFF80001000ull + 0x200000000ull);
}
END_TEST

/*
 * Prefixes before 8Fh (AMD APM vol. 3: LOCK, 66h, F2h, F3h or REX with XOP
 * is #UD). GNU as refuses to emit them (data16/rex/lock/rep "invalid with
 * lwpins"). A REX that is followed by another prefix does not immediately
 * precede the escape and is ignored: objdump 2.40 decodes 48 64 8F ... as
 * an unused rex.W and a valid "lwpins $0x1,%fs:(%rax),%eax". XOP.R (no
 * ModRM.reg register here) is ignored: objdump decodes 8F 69 78 12 C0 as
 * "llwpcb %eax".
 */
START_TEST(test_5_xop_prefix_rules)
{
	static const uint8_t rex_fs[] = { 0x48, 0x64, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	static const uint8_t fs_rex[] = { 0x64, 0x48, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	static const uint8_t p66_67[] = { 0x66, 0x67, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	static const uint8_t f3_64[] = { 0xf3, 0x64, 0x8f, 0xea, 0x78, 0x12, 0x00, 1, 0, 0, 0 };
	static const uint8_t rex40[] = { 0x40, 0x8f, 0xe9, 0x78, 0x12, 0xc0 };
	static const uint8_t rbit[] = { 0x8f, 0x69, 0x78, 0x12, 0xc0 };
	struct lwp_xop_insn_info d;

	ck_assert_int_eq(xdec(rex_fs, sizeof(rex_fs), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.seg, LWP_XOP_SEG_FS);
	ck_assert_uint_eq(d.opsize, 32);
	ck_assert_uint_eq(d.length, sizeof(rex_fs));
	ck_assert_int_eq(xdec(fs_rex, sizeof(fs_rex), &d), LWP_XOP_INVALID);
	ck_assert_int_eq(xdec(p66_67, sizeof(p66_67), &d), LWP_XOP_INVALID);
	ck_assert_int_eq(xdec(f3_64, sizeof(f3_64), &d), LWP_XOP_INVALID);
	ck_assert_int_eq(xdec(rex40, sizeof(rex40), &d), LWP_XOP_INVALID);
	ck_assert_int_eq(xdec(rbit, sizeof(rbit), &d), LWP_XOP_OK);
	ck_assert_int_eq(d.insn, LWP_XOP_LLWPCB);
	ck_assert_uint_eq(d.reg, 0);
}
END_TEST

/*
 * §7.3: "If LWP is not currently enabled ... XSAVE sets bit 62 in
 * XSAVE.HEADER.XSTATE_BV to 0" - and stores nothing (the area is untouched).
 * §7.5, §8.4: XRSTOR with RFBM[62] = 1 and XSTATE_BV[62] = 0 sets
 * LWP_CBADDR to 0 and discards the internal state, pending record included.
 */
START_TEST(test_7_3_7_5_disabled_save_and_processor_values)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a, poison;
	uint64_t bv = ~0ull;
	unsigned int w0;

	memset(&a, 0x5C, sizeof(a));
	memcpy(&poison, &a, sizeof(a));
	OK(lwp_model_xsave(&e->m, &a, XCR0, &bv));
	ck_assert_uint_eq(bv, ~0ull & ~XCR0);
	ck_assert_int_eq(memcmp(&a, &poison, sizeof(a)), 0);
	/* Enabled, with a pending record (its store faulted). */
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE, 1024, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	env_page_np(e, ENV_RING, true);
	lwp_model_insn_retired(&e->m, 0x77);
	env_page_np(e, ENV_RING, false);
	bv = 0;
	OK(lwp_model_xsave(&e->m, &a, XCR0, &bv));
	ck_assert_uint_eq(a.saved_event_record.event_id, 2);
	ck_assert_uint_eq(a.saved_event_record.ip, 0x77);
	/* RFBM[62] = 0: no change. */
	OK(lwp_model_xrstor(&e->m, NULL, 0, 0));
	ck_assert(lwp_model_enabled(&e->m));
	/* Processor-supplied values. */
	w0 = e->writes;
	OK(lwp_model_xrstor(&e->m, NULL, XCR0, 0));
	ck_assert(!lwp_model_enabled(&e->m));
	ck_assert_uint_eq(lwp_model_rdmsr(&e->m, LWP_MSR_CBADDR).value, 0);
	ck_assert_uint_eq(e->writes, w0);
	/* Nothing of the old thread leaks into the next LWPCB. */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_record(e, ENV_RING, 0).event_id, 0);
	ck_assert_uint_eq(env_head(e), 0);
	env_free(e);
}
END_TEST

/*
 * §7.4: "No interrupt is generated by XRSTOR if the restored value of
 * BufferHeadOffset results in a buffer that is filled beyond the threshold.
 * The interrupt will occur the next time an event record is stored."
 */
START_TEST(test_7_4_xrstor_no_interrupt_until_next_store)
{
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xsave_area a;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_INT, 1024, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_THRESHOLD, 64);
	memset(&a, 0, sizeof(a));
	a.lwpcb_address = ENV_LWPCB;
	a.buffer_base = ENV_RING;
	a.buffer_size = 1024;
	a.buffer_head_offset = 512;		/* tail 0: 512 used >= 64 */
	a.flags = LWP_LWPCB_FLAGS_INT;
	OK(lwp_model_xrstor(&e->m, &a, XCR0, XCR0));
	ck_assert(lwp_model_enabled(&e->m));
	ck_assert_uint_eq(e->irqs, 0);
	OK(ins(e, 0x10, 0));
	ck_assert_uint_eq(e->irqs, 1);
	ck_assert_uint_eq(e->last_vector, 0xEC);
	ck_assert_uint_eq(env_record(e, ENV_RING, 16).ip, 0x10);
	env_free(e);
}
END_TEST

/*
 * §2: "Reserved fields and fields that are not defined for a particular
 * event are set to zero when LWP writes an event record" (Figures 2-3, 2-6,
 * 2-7: generic records); CoreId from LWP_CFG (Figure 2-1).
 */
START_TEST(test_2_generic_records_zero_undefined_fields)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	struct lwp_event_record rec;
	unsigned int i;

	memset(env_ptr(e, ENV_RING), 0xEE, 4096);
	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_CNH | LWP_LWPCB_FLAGS_RNH,
		  64 * 32, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	OK(lwp_model_insn_retired(&e->m, 0x1111));
	OK(lwp_model_clocks(&e->m, 0x2222, 1, 1));
	for (i = 0; i < 3; i++) {
		rec = env_record(e, ENV_RING, i);
		ck_assert_uint_eq(rec.event_id, i == 0 ? 2 : i == 1 ? 5 : 6);
		ck_assert_uint_eq(rec.core_id, 0x5A);
		ck_assert_uint_eq(rec.flags, 0);
		ck_assert_uint_eq(rec.data1, 0);
		ck_assert_uint_eq(rec.ip, i == 0 ? 0x1111 : 0x2222);
		ck_assert_uint_eq(rec.data2, 0);
		ck_assert_uint_eq(rec.reserved, 0);
	}
	env_free(e);
}
END_TEST

/*
 * §1.1 step 5: "If the event counter went below -1 ... that overrun value
 * reduces the reset value". Interval 10, three clocks at once from counter
 * 0: counter -3, record stored, reset to 10 + (-3 + 1) = 8.
 */
START_TEST(test_1_1_overrun_reduces_reset)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_CNH, 64 * 32, ENV_RING);
	env_event(e, ENV_LWPCB, 5, 300, 0);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	r = lwp_model_clocks(&e->m, 0x10, 3, 0);
	ck_assert(r.stored);
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 5), 300 - 2);
	env_free(e);
}
END_TEST

/*
 * Figure 2-4: TKN "Always 1 for unconditional branches", 0 for a not-taken
 * conditional branch whose TargetAddress is the fall-through; PRV = 0 when
 * prediction information is not available, and then PRD (ignored) is 0.
 * Table 6-2: NAB drops FF /2, FF /4 only; with NRB | NCB | NAB nothing is
 * counted.
 */
START_TEST(test_2_3_branch_fields_and_filters)
{
	struct test_env *e = env_new(&lwp_model_profile_full);
	struct lwp_model_branch b = { 0 };
	struct lwp_event_record rec;
	struct lwp_model_result r;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_BRE, 64 * 32, ENV_RING);
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, LWP_LWPCB_FILTERS_NAB);
	env_event(e, ENV_LWPCB, 3, 0, 0);	/* raised to the minimum */
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	b.ip = 0x500;
	b.target = 0x502;
	b.kind = LWP_MODEL_BR_COND;
	b.taken = false;
	r = lwp_model_branch_retired(&e->m, &b);
	ck_assert(r.stored);
	rec = env_record(e, ENV_RING, 0);
	ck_assert_uint_eq(rec.event_id, 3);
	ck_assert_uint_eq(rec.flags, 0);
	ck_assert_uint_eq(rec.data2, 0x502);
	/* An indirect branch is not even counted with NAB. */
	OK(lwp_model_slwpcb(&e->m, 64));
	b.kind = LWP_MODEL_BR_INDIRECT;
	OK(lwp_model_branch_retired(&e->m, &b));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 3), 256);
	b.kind = LWP_MODEL_BR_UNCOND_REL;
	OK(lwp_model_branch_retired(&e->m, &b));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 3), 255);
	/* NRB | NCB | NAB: no branch at all. */
	OK(lwp_model_llwpcb(&e->m, 0, 64));
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_FILTERS, LWP_LWPCB_FILTERS_NAB |
		  LWP_LWPCB_FILTERS_NCB | LWP_LWPCB_FILTERS_NRB);
	env_event(e, ENV_LWPCB, 3, 256, 5);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	b.kind = LWP_MODEL_BR_COND;
	OK(lwp_model_branch_retired(&e->m, &b));
	b.kind = LWP_MODEL_BR_UNCOND_REL;
	OK(lwp_model_branch_retired(&e->m, &b));
	b.kind = LWP_MODEL_BR_INDIRECT;
	OK(lwp_model_branch_retired(&e->m, &b));
	OK(lwp_model_slwpcb(&e->m, 64));
	ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 3), 5);
	env_free(e);
}
END_TEST

/*
 * Table 6-1 Random: "Each time a counter is loaded from an interval ... the
 * bottom Random bits are set to a random value". LLWPCB loads the counter
 * from EventCounter1, not from an interval: the first record comes after
 * exactly EventCounter1 + 1 LWPVALs whatever the seed; the reloads keep the
 * interval's bits above the Random ones.
 */
START_TEST(test_6_random_not_applied_to_initial_counter)
{
	uint64_t seed;

	for (seed = 1; seed <= 8; seed++) {
		struct test_env *e = env_new(&lwp_model_profile_fx8150);
		unsigned int i;

		lwp_model_set_seed(&e->m, seed * 0x9E3779B97F4A7C15ull);
		env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL, (15u << LWP_LWPCB_RANDOM_SHIFT) | 1024,
			  ENV_RING);
		env_event(e, ENV_LWPCB, 1, 0x123456, 3);
		OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
		for (i = 0; i < 3; i++)
			ck_assert(!val(e, i, 0).stored);
		ck_assert(val(e, 3, 0).stored);
		OK(lwp_model_slwpcb(&e->m, 64));
		ck_assert_uint_eq(env_counter(e, ENV_LWPCB, 1) & ~0x7FFFu, 0x123456 & ~0x7FFFu);
		env_free(e);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lwp_spec_review");
	TCase *tc;

	tc = tcase_create("cpuid_msr");
	tcase_add_test(tc, test_3_3_cpuid_eax_tracks_xcr0_and_lwp_cfg);
	tcase_add_test(tc, test_4_2_lwp_cfg_gp_rules);
	tcase_add_test(tc, test_4_3_cbaddr_zero_discards_without_flush);
	tcase_add_test(tc, test_4_1_xcr0_clear_zeroes_cbaddr);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("instructions");
	tcase_add_test(tc, test_5_1_flush_before_new_lwpcb);
	tcase_add_test(tc, test_5_1_flags_masked_by_available);
	tcase_add_test(tc, test_5_1_intervals_and_counters);
	tcase_add_test(tc, test_5_1_buffer_size_minimum_after_rounding);
	tcase_add_test(tc, test_5_2_slwpcb_register_results);
	tcase_add_test(tc, test_5_3_lwpval_event_disabled_touches_nothing);
	tcase_add_test(tc, test_5_3_memory_operand_only_when_storing);
	tcase_add_test(tc, test_5_4_record_fields_and_sizes);
	tcase_add_test(tc, test_5_4_lwpins_cf_via_decoder);
	tcase_add_test(tc, test_5_4_two_records_same_ip);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("xop");
	tcase_add_test(tc, test_5_xop_sib_edge_cases);
	tcase_add_test(tc, test_5_xop_rip_and_addr32);
	tcase_add_test(tc, test_5_xop_prefix_rules);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("xsave");
	tcase_add_test(tc, test_7_4_xrstor_cpl3_head_in_last_record_is_zero);
	tcase_add_test(tc, test_7_4_xrstor_small_ring_disables_without_fault);
	tcase_add_test(tc, test_7_3_7_5_disabled_save_and_processor_values);
	tcase_add_test(tc, test_7_4_xrstor_no_interrupt_until_next_store);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("events");
	tcase_add_test(tc, test_2_generic_records_zero_undefined_fields);
	tcase_add_test(tc, test_1_1_overrun_reduces_reset);
	tcase_add_test(tc, test_2_3_branch_fields_and_filters);
	tcase_add_test(tc, test_6_random_not_applied_to_initial_counter);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(suite(), CK_NORMAL);
}
