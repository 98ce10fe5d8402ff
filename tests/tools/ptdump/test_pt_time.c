// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libpt's time tracking (lwpt/pt_time.h), SDM 33.8.3.
 *
 * Expected values are worked out by hand from the SDM formulas:
 *   33.8.3.1  TSC = CTC * P + AdjustedProcessorCycles, P = CPUID.15H EBX/EAX
 *   33.8.3.2  CTC_Delta = CTC_Next - TMA.CTC, CTC = MTC payload << MTCFreq;
 *             cycles scaled to TSC ticks by P1 / CBR
 *   33.8.3.4  TSC ticks per cycle = wall-clock ticks / CYC cycles
 * (They live here, next to ptdump's conformance test, because ptdump is
 * the tool that prints these numbers; the library code is libpt/time.c.)
 */
#include <lwpt/pt_time.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include "tests/check_run.h"

/* P = 4 / 1 TSC ticks per CTC tick, MTC every CTC tick. */
static const struct lpt_time_config cfg_p4 = {
	.mtc_freq = 0,
	.cpuid_0x15_eax = 1,
	.cpuid_0x15_ebx = 4,
};

static uint64_t query(const struct lpt_time *t)
{
	uint64_t tsc = 0xdeadbeef;

	ck_assert_int_eq(lpt_time_query_tsc(t, &tsc, NULL, NULL), 0);
	return tsc;
}

/* SDM 33.4.2.11: before any TSC packet there is no wall-clock time. */
START_TEST(test_no_time_before_tsc)
{
	struct lpt_time t;
	uint64_t tsc;

	lpt_time_init(&t);
	ck_assert_int_eq(lpt_time_query_tsc(&t, &tsc, NULL, NULL),
			 LPT_ERR_NO_TIME);
	ck_assert_int_eq(lpt_time_update_tsc(&t, 0x123456, &cfg_p4), 0);
	ck_assert_uint_eq(query(&t), 0x123456);
}
END_TEST

/*
 * SDM 33.8.3.2: TSC 0x1000 taken 4 fast-counter ticks after CTC edge 0x10
 * (TMA 0x10, 4). MTC 0x11 is one CTC tick = 4 TSC ticks after that edge:
 * TSC = 0x1000 - 4 + 4. MTC 0x13: two more ticks, + 8.
 */
START_TEST(test_tsc_tma_mtc)
{
	struct lpt_time t;

	lpt_time_init(&t);
	lpt_time_update_tsc(&t, 0x1000, &cfg_p4);
	ck_assert_int_eq(lpt_time_update_tma(&t, 0x10, 4, &cfg_p4), 0);
	ck_assert_uint_eq(query(&t), 0x1000);
	ck_assert_int_eq(lpt_time_update_mtc(&t, 0x11, &cfg_p4), 0);
	ck_assert_uint_eq(query(&t), 0x1000);
	ck_assert_int_eq(lpt_time_update_mtc(&t, 0x13, &cfg_p4), 0);
	ck_assert_uint_eq(query(&t), 0x1008);
}
END_TEST

/* SDM 33.4.2.12: the 8-bit MTC payload wraps; 0xff -> 0x01 is 2 ticks. */
START_TEST(test_mtc_wrap)
{
	struct lpt_time t;

	lpt_time_init(&t);
	lpt_time_update_tsc(&t, 0x5000, &cfg_p4);
	lpt_time_update_tma(&t, 0xfe, 0, &cfg_p4);
	lpt_time_update_mtc(&t, 0xff, &cfg_p4);
	ck_assert_uint_eq(query(&t), 0x5004);
	ck_assert_int_eq(lpt_time_update_mtc(&t, 0x01, &cfg_p4), 0);
	ck_assert_uint_eq(query(&t), 0x500c);
}
END_TEST

/* MTCFreq 3: CTC = payload << 3, so payload + 1 is 8 CTC ticks = 32 TSC. */
START_TEST(test_mtc_freq)
{
	struct lpt_time_config cfg = cfg_p4;
	struct lpt_time t;

	cfg.mtc_freq = 3;
	lpt_time_init(&t);
	lpt_time_update_tsc(&t, 0x100000, &cfg);
	lpt_time_update_tma(&t, 0x10 << 3, 0, &cfg);
	lpt_time_update_mtc(&t, 0x11, &cfg);
	ck_assert_uint_eq(query(&t), 0x100000 + 32);
}
END_TEST

/* SDM 33.8.3.2: cycles * P1 / CBR. P1 = 4, CBR = 2: 2 TSC ticks/cycle. */
START_TEST(test_cbr_calibration_and_cyc)
{
	struct lpt_time_config cfg = cfg_p4;
	struct lpt_time t;
	struct lpt_tcal c;
	uint64_t fcr;

	cfg.nom_freq = 4;
	lpt_time_init(&t);
	lpt_tcal_init(&c);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), LPT_ERR_NO_TIME);
	ck_assert_int_eq(lpt_tcal_header_cbr(&c, 2, &cfg), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), 0);
	ck_assert_uint_eq(fcr, 2u << LPT_TCAL_FCR_SHIFT);

	lpt_time_update_tsc(&t, 0x2000, &cfg);
	lpt_time_update_tma(&t, 0x20, 0, &cfg);
	ck_assert_int_eq(lpt_time_update_cyc(&t, 10, &cfg, fcr), 0);
	ck_assert_uint_eq(query(&t), 0x2000 + 20);
	ck_assert_int_eq(lpt_time_update_cyc(&t, 5, &cfg, fcr), 0);
	ck_assert_uint_eq(query(&t), 0x2000 + 30);
	/* The next MTC restarts from the crystal clock: 1 tick = 4. */
	lpt_time_update_mtc(&t, 0x21, &cfg);
	ck_assert_uint_eq(query(&t), 0x2000 + 4);
}
END_TEST

/* Without calibration a CYC cannot be applied: counted lost, time kept. */
START_TEST(test_cyc_uncalibrated)
{
	struct lpt_time t;
	uint32_t lost_cyc = 0;
	uint64_t tsc;

	lpt_time_init(&t);
	lpt_time_update_tsc(&t, 0x3000, &cfg_p4);
	ck_assert_int_eq(lpt_time_update_cyc(&t, 100, &cfg_p4, 0), 0);
	ck_assert_int_eq(lpt_time_query_tsc(&t, &tsc, NULL, &lost_cyc), 0);
	ck_assert_uint_eq(tsc, 0x3000);
	ck_assert_uint_eq(lost_cyc, 1);
}
END_TEST

/*
 * SDM 33.8.3.4: two MTC one CTC tick (4 TSC ticks) apart with 100 cycles
 * between them: 4/100 ticks per cycle, 4 * 256 / 100 = 10 in fixed point.
 */
START_TEST(test_mtc_calibration)
{
	struct lpt_tcal c;
	uint64_t fcr;

	lpt_tcal_init(&c);
	ck_assert_int_eq(lpt_tcal_update_mtc(&c, 0x40, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_update_cyc(&c, 60, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_update_cyc(&c, 40, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_update_mtc(&c, 0x41, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), 0);
	ck_assert_uint_eq(fcr, (4u << LPT_TCAL_FCR_SHIFT) / 100);
}
END_TEST

/* TSC-to-TSC calibration in PSB+ (no MTC): 0x400 ticks over 0x200 cycles. */
START_TEST(test_tsc_calibration)
{
	struct lpt_tcal c;
	uint64_t fcr;

	lpt_tcal_init(&c);
	ck_assert_int_eq(lpt_tcal_header_tsc(&c, 0x1000, &cfg_p4), 0);
	lpt_tcal_update_cyc(&c, 0x200, &cfg_p4);
	ck_assert_int_eq(lpt_tcal_header_tsc(&c, 0x1400, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), 0);
	ck_assert_uint_eq(fcr, 2u << LPT_TCAL_FCR_SHIFT);

	/* OVF keeps the ratio but restarts the measurement. */
	ck_assert_int_eq(lpt_tcal_update_ovf(&c, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), 0);
	ck_assert_uint_eq(fcr, 2u << LPT_TCAL_FCR_SHIFT);
	/* A CBR outside PSB+ (frequency change) drops it (nom_freq 0). */
	ck_assert_int_eq(lpt_tcal_update_cbr(&c, 20, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), LPT_ERR_NO_TIME);
}
END_TEST

/* The documented errors. */
START_TEST(test_errors)
{
	struct lpt_time_config nocpuid = { .mtc_freq = 0 };
	struct lpt_time t;
	struct lpt_tcal c;
	uint64_t tsc;
	uint32_t cbr;

	lpt_time_init(&t);
	lpt_tcal_init(&c);
	/* SDM 33.4.2.13: TMA comes with a TSC. */
	ck_assert_int_eq(lpt_time_update_tma(&t, 1, 1, &cfg_p4),
			 LPT_ERR_BAD_CONTEXT);
	lpt_time_update_tsc(&t, 0x100, &cfg_p4);
	ck_assert_int_eq(lpt_time_update_tma(&t, 1, 1, &cfg_p4), 0);
	ck_assert_int_eq(lpt_time_update_tma(&t, 1, 1, &cfg_p4),
			 LPT_ERR_BAD_CONTEXT);
	/* P unknown: CPUID.15H not given. */
	ck_assert_int_eq(lpt_time_update_mtc(&t, 2, &nocpuid),
			 LPT_ERR_BAD_CONFIG);
	/* CBR 0 is not a ratio. */
	ck_assert_int_eq(lpt_time_query_cbr(&t, &cbr), LPT_ERR_NO_CBR);
	ck_assert_int_eq(lpt_time_update_cbr(&t, 0, &cfg_p4),
			 LPT_ERR_BAD_PACKET);
	ck_assert_int_eq(lpt_time_update_cbr(&t, 0x20, &cfg_p4), 0);
	ck_assert_int_eq(lpt_time_query_cbr(&t, &cbr), 0);
	ck_assert_uint_eq(cbr, 0x20);
	nocpuid.nom_freq = 4;
	ck_assert_int_eq(lpt_tcal_header_cbr(&c, 0, &nocpuid),
			 LPT_ERR_BAD_PACKET);
	/* NULL arguments. */
	ck_assert_int_eq(lpt_time_query_tsc(NULL, &tsc, NULL, NULL),
			 LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_time_query_tsc(&t, NULL, NULL, NULL),
			 LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_time_update_mtc(&t, 1, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_tcal_fcr(NULL, &tsc), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_tcal_update_cyc(NULL, 1, &cfg_p4),
			 LPT_ERR_INVALID);
	lpt_time_init(NULL);
	lpt_tcal_init(NULL);
}
END_TEST

/*
 * Calibration across a payload wrap: 0x80 -> 0x10 with MTCFreq 0 is
 * 0x110 - 0x80 = 0x90 CTC ticks = 0x240 TSC ticks, over 10 cycles.
 */
START_TEST(test_calibration_wrap)
{
	struct lpt_tcal c;
	uint64_t fcr;

	lpt_tcal_init(&c);
	lpt_tcal_update_mtc(&c, 0x80, &cfg_p4);
	lpt_tcal_update_cyc(&c, 10, &cfg_p4);
	ck_assert_int_eq(lpt_tcal_update_mtc(&c, 0x10, &cfg_p4), 0);
	ck_assert_int_eq(lpt_tcal_fcr(&c, &fcr), 0);
	ck_assert_uint_eq(fcr, (0x240u << LPT_TCAL_FCR_SHIFT) / 10);
}
END_TEST

static Suite *time_suite(void)
{
	Suite *s = suite_create("pt_time");
	TCase *tc = tcase_create("sdm-33.8.3");

	tcase_add_test(tc, test_no_time_before_tsc);
	tcase_add_test(tc, test_tsc_tma_mtc);
	tcase_add_test(tc, test_mtc_wrap);
	tcase_add_test(tc, test_mtc_freq);
	tcase_add_test(tc, test_cbr_calibration_and_cyc);
	tcase_add_test(tc, test_cyc_uncalibrated);
	tcase_add_test(tc, test_mtc_calibration);
	tcase_add_test(tc, test_tsc_calibration);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_calibration_wrap);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(time_suite(), CK_NORMAL);
}
