// SPDX-License-Identifier: GPL-2.0
/*
 * The emulation's fast path (liblwp/lwp_emu_fast.c) against the model: the
 * same random program of lwp_ins32/64(), lwp_val32() and lwp_read() runs
 * once with the fast path and once with every instruction on the model
 * (lwp_emu_fast_enable(0)); records, CF of every LWPINS, MissedEvents and
 * the final LWPCB must be identical (43724 §5.3, §5.4, §6 Table 6-1, §8.3),
 * over small rings that fill up, EventInterval1 with Random bits (§6
 * Random) and threshold interrupts. The thread is pinned to one CPU so that
 * CoreId is the same in both runs.
 */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/lwp.h>
#include "liblwp/lwp_emu.h"
#include "tests/check_run.h"

#define STEPS		20000u
#define MAX_OUT		(4 * STEPS)

struct trace {
	struct lwp_event ev[MAX_OUT];
	size_t n_ev;
	unsigned char cf[STEPS];
	uint64_t missed;
	uint8_t lwpcb[4096];
	size_t lwpcb_size;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void drain(struct lwp_session *s, struct trace *t, size_t max)
{
	ssize_t n;

	if (max > MAX_OUT - t->n_ev)
		max = MAX_OUT - t->n_ev;
	n = lwp_read(s, t->ev + t->n_ev, max);
	ck_assert_int_ge(n, 0);
	t->n_ev += (size_t)n;
}

static void run(uint64_t seed, int fast, struct trace *t)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_caps caps;
	uint64_t x = seed;
	unsigned int i;
	void *cb;

	memset(t, 0, sizeof(*t));
	ck_assert_int_eq(lwp_query_backend(&caps, LWP_BACKEND_EMU), 0);
	lwp_emu_fast_enable(fast);
	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = (caps.min_buffer_records > 4 ? caps.min_buffer_records : 4) +
			     (uint32_t)(rnd(&x) % 8);
	cfg.interval[LWP_EVENT_VAL] = (int32_t)(rnd(&x) % 6);
	cfg.random_bits = (uint32_t)(rnd(&x) % 4);
	if (rnd(&x) & 1) {
		cfg.flags |= LWP_FLAG_INT;
		cfg.threshold_records = 1 + (uint32_t)(rnd(&x) % (cfg.buffer_records - 1));
	}
	ck_assert_int_eq(lwp_open(&s, &cfg), 0);
	lwp_model_set_seed(&lwp__emu_thread->model, seed);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < STEPS; i++) {
		uint64_t r = rnd(&x);
		uint32_t v = (uint32_t)(r >> 32);

		switch (r % 10) {
		case 0: case 1: case 2: case 3:
			t->cf[i] = (unsigned char)lwp_ins32(v, i, 0x10001);
			break;
		case 4:
			t->cf[i] = (unsigned char)lwp_ins64(r, i, 7);
			break;
		case 5: case 6: case 7:
			lwp_val32(v, i, 0x1234);
			break;
		default:
			drain(s, t, (size_t)(v % 40));
			break;
		}
	}
	ck_assert_int_eq(lwp_stop(s), 0);
	drain(s, t, MAX_OUT);
	t->missed = lwp_missed(s);
	cb = lwp_lwpcb(s, &t->lwpcb_size);
	ck_assert_uint_le(t->lwpcb_size, sizeof(t->lwpcb));
	memcpy(t->lwpcb, cb, t->lwpcb_size);
	lwp_close(s);
	lwp_emu_fast_enable(1);
}

static struct trace a, b;

START_TEST(test_fast_matches_model)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	run(0x9E3779B97F4A7C15ull * (uint64_t)(_i + 1), 1, &a);
	run(0x9E3779B97F4A7C15ull * (uint64_t)(_i + 1), 0, &b);
	ck_assert_uint_gt(a.n_ev, 0);
	ck_assert_uint_eq(a.n_ev, b.n_ev);
	ck_assert_mem_eq(a.ev, b.ev, a.n_ev * sizeof(a.ev[0]));
	ck_assert_mem_eq(a.cf, b.cf, sizeof(a.cf));
	ck_assert_uint_eq(a.missed, b.missed);
	ck_assert_uint_eq(a.lwpcb_size, b.lwpcb_size);
	ck_assert_mem_eq(a.lwpcb, b.lwpcb, a.lwpcb_size);
}
END_TEST

static Suite *fast_suite(void)
{
	Suite *s = suite_create("lwp_fast");
	TCase *tc = tcase_create("differential");

	/* 16 x 2 x 20000 emulated instructions: well under a second. */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fast_matches_model, 0, 16);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(fast_suite(), CK_NORMAL);
}
