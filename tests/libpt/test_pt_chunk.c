// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lwpt/pt_chunk.h (issue 34 point 3): lpt_chunk_next() cuts
 * only at PSBs (SDM 33.4.2.17; the last 16 bytes of a run of "02 82"),
 * against a brute-force reference for every target size, around the
 * places a decoder carries state (an OVF, a TIP.PGD/TIP.PGE pair, a PSB+
 * with only a FUP, inside a call/return sequence), with no PSB (one chunk)
 * and tiny chunk sizes; lpt_chunk_psb_end(); lpt_par_run()'s order, its
 * window bound and its stops.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/pt_chunk.h>

#include "tests/check_run.h"

#define REQUIRE(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

/* A trace being built, with the offsets of its PSBs. */
struct tb {
	uint8_t b[8192];
	size_t n;
	size_t psb[256];
	size_t npsb;
};

static void put(struct tb *t, const uint8_t *p, size_t n)
{
	ck_assert_uint_le(t->n + n, sizeof(t->b));
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static void psb(struct tb *t)
{
	static const uint8_t p[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				       2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

	t->psb[t->npsb++] = t->n;
	put(t, p, sizeof(p));
}

static void psbend(struct tb *t)
{
	put(t, (const uint8_t[]){ 0x02, 0x23 }, 2);
}

/* FUP/TIP family with a 6-byte sign-extended IP (IPBytes 011). */
static void ip_pkt(struct tb *t, uint8_t opc, uint64_t ip)
{
	uint8_t p[7] = { (uint8_t)(opc | 3 << 5) };

	for (int i = 0; i < 6; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	put(t, p, sizeof(p));
}

#define FUP	0x1d
#define TIP	0x0d
#define PGE	0x11
#define PGD	0x01

static void mode_exec64(struct tb *t)
{
	put(t, (const uint8_t[]){ 0x99, 0x01 }, 2);
}

static void tnt(struct tb *t, uint8_t bits)	/* short TNT: 1..6 bits */
{
	put(t, &bits, 1);
}

static void ovf(struct tb *t)
{
	put(t, (const uint8_t[]){ 0x02, 0xf3 }, 2);
}

static void pads(struct tb *t, size_t n)
{
	while (n--)
		put(t, (const uint8_t[]){ 0 }, 1);
}

/* A PSB+ with MODE.Exec and a FUP (tracing on). */
static void psb_plus(struct tb *t, uint64_t ip)
{
	psb(t);
	mode_exec64(t);
	ip_pkt(t, FUP, ip);
	psbend(t);
}

/* The rule of lpt_chunk_next(), by brute force over the known PSBs. */
static size_t ref_next(const struct tb *t, size_t start, size_t target)
{
	size_t first = SIZE_MAX, from;

	if (!target)
		target = 1;
	for (size_t i = 0; i < t->npsb; i++)
		if (t->psb[i] >= start) {
			first = t->psb[i];
			break;
		}
	if (first == SIZE_MAX)
		return t->n;
	from = start + target;
	if (from <= first)
		from = first + 1;
	for (size_t i = 0; i < t->npsb; i++)
		if (t->psb[i] >= from)
			return t->psb[i];
	return t->n;
}

/* Every target size: the chunks tile the trace, start at PSBs, as ref. */
static void check_all_targets(const struct tb *t)
{
	for (size_t target = 0; target <= t->n + 1; target++) {
		size_t start = 0, nchunk = 0;

		while (start < t->n) {
			size_t next = lpt_chunk_next(t->b, t->n, start, target);

			REQUIRE(next == ref_next(t, start, target),
				"target %zu start %zu: %zu, want %zu", target, start,
				next, ref_next(t, start, target));
			REQUIRE(next > start, "no progress at %zu", start);
			if (next < t->n) {
				size_t i;

				for (i = 0; i < t->npsb && t->psb[i] != next; i++)
					;
				REQUIRE(i < t->npsb, "cut at %zu: no PSB", next);
			}
			start = next;
			nchunk++;
		}
		REQUIRE(start == t->n, "chunks end at %zu of %zu", start, t->n);
		if (target <= 1 && t->npsb)
			REQUIRE(nchunk == t->npsb, "target %zu: %zu chunks for %zu PSBs",
				target, nchunk, t->npsb);
	}
}

START_TEST(test_boundaries_at_psbs)
{
	struct tb t = { .n = 0 };

	pads(&t, 5);		/* bytes before the first PSB: chunk 0 */
	for (int i = 0; i < 20; i++) {
		psb_plus(&t, 0x401000 + (uint64_t)i * 16);
		tnt(&t, 0x0a);
		ip_pkt(&t, TIP, 0x402000);
		pads(&t, (size_t)i * 7 % 23);
	}
	check_all_targets(&t);
	/* chunk 0 holds the first PSB, even with a tiny target */
	ck_assert_uint_eq(lpt_chunk_next(t.b, t.n, 0, 1), t.psb[1]);
}
END_TEST

START_TEST(test_call_stack_ovf_pgd_pge_fup_only)
{
	struct tb t = { .n = 0 };

	psb_plus(&t, 0x401000);
	/* calls whose returns come after the next PSB (inside a call stack) */
	ip_pkt(&t, TIP, 0x402000);	/* an indirect call */
	tnt(&t, 0x0a);
	psb_plus(&t, 0x402010);
	tnt(&t, 0x06);			/* a compressed return */
	/* just after an OVF */
	ovf(&t);
	psb_plus(&t, 0x403000);
	/* a TIP.PGD, a PSB+ while tracing is off, then the TIP.PGE */
	ip_pkt(&t, PGD, 0x404000);
	psb(&t);
	mode_exec64(&t);
	psbend(&t);
	ip_pkt(&t, PGE, 0x405000);
	/* a PSB+ with only a FUP */
	psb(&t);
	ip_pkt(&t, FUP, 0x405010);
	psbend(&t);
	tnt(&t, 0x0a);
	check_all_targets(&t);
	/* and the ends of each PSB+ */
	for (size_t i = 0; i < t.npsb; i++) {
		size_t e = lpt_chunk_psb_end(t.b, t.n, t.psb[i]);

		REQUIRE(e > t.psb[i] && t.b[e - 2] == 0x02 && t.b[e - 1] == 0x23,
			"PSB %zu at %zu: PSB+ ends at %zu", i, t.psb[i], e);
	}
}
END_TEST

START_TEST(test_no_psb_one_chunk)
{
	struct tb t = { .n = 0 };

	pads(&t, 100);
	tnt(&t, 0x0a);
	ip_pkt(&t, TIP, 0x401000);
	for (size_t target = 0; target < 300; target += 7)
		ck_assert_uint_eq(lpt_chunk_next(t.b, t.n, 0, target), t.n);
	ck_assert_uint_eq(lpt_chunk_next(NULL, 10, 0, 1), 10);
	ck_assert_uint_eq(lpt_chunk_next(t.b, t.n, t.n, 1), t.n);
	ck_assert_uint_eq(lpt_chunk_next(t.b, 0, 0, 1), 0);
}
END_TEST

/* "02 82" pairs before a PSB (a payload ending in them) are not a PSB: a
 * cut landing inside the run goes to the run's last 16 bytes. */
START_TEST(test_psb_run)
{
	struct tb t = { .n = 0 };

	psb_plus(&t, 0x401000);
	/* TIP whose IP payload ends in 02 82 02 82 */
	put(&t, (const uint8_t[]){ 0x0d | 3 << 5, 0x11, 0x22, 2, 0x82, 2, 0x82 }, 7);
	psb_plus(&t, 0x401010);
	pads(&t, 3);
	check_all_targets(&t);
	/* not at a PSB; a PSB without PSBEND */
	ck_assert_uint_eq(lpt_chunk_psb_end(t.b, t.n, 3), 3);
	ck_assert_uint_eq(lpt_chunk_psb_end(t.b, t.psb[1] + 20, t.psb[1]), t.psb[1]);
}
END_TEST

/* ---- lpt_par_run() ------------------------------------------------------ */

struct pjob {
	size_t idx;
	size_t value;
	unsigned int worker;
};

struct pctx {
	size_t njobs, made, emitted, window, max_inflight;
	int stop_at, next_err_at;	/* emit/next error at that job, or -1 */
	size_t emitted_after_stop;
	int stopped;
	unsigned int nthreads;
	int bad_worker;
	pthread_mutex_t lock;
	int busy[64];
};

static int p_next(void *vctx, void *vjob)
{
	struct pctx *c = vctx;
	struct pjob *j = vjob;

	REQUIRE(!c->stopped, "next() after a stop");
	if (c->next_err_at >= 0 && c->made == (size_t)c->next_err_at)
		return -EIO;
	if (c->made == c->njobs)
		return 0;
	REQUIRE(j->idx == 0 && j->value == 0, "job not zeroed");
	j->idx = c->made++;
	if (c->made - c->emitted > c->max_inflight)
		c->max_inflight = c->made - c->emitted;
	return 1;
}

static void p_work(void *vctx, unsigned int worker, void *vjob)
{
	struct pctx *c = vctx;
	struct pjob *j = vjob;

	pthread_mutex_lock(&c->lock);
	if (worker >= c->nthreads || c->busy[worker])
		c->bad_worker = 1;
	else
		c->busy[worker] = 1;
	pthread_mutex_unlock(&c->lock);
	/* uneven work, so that jobs finish out of order */
	for (size_t i = 0; i < (j->idx * 7919 % 13) * 2000; i++)
		__atomic_fetch_add(&j->value, 1, __ATOMIC_RELAXED);
	j->value = j->idx * 3 + 1;
	j->worker = worker;
	pthread_mutex_lock(&c->lock);
	if (worker < c->nthreads)
		c->busy[worker] = 0;
	pthread_mutex_unlock(&c->lock);
}

static int p_emit(void *vctx, void *vjob)
{
	struct pctx *c = vctx;
	struct pjob *j = vjob;

	REQUIRE(j->idx == c->emitted, "emitted job %zu, want %zu", j->idx, c->emitted);
	REQUIRE(j->value == j->idx * 3 + 1, "job %zu not worked", j->idx);
	c->emitted++;
	if (c->stopped)
		c->emitted_after_stop++;
	if (c->stop_at >= 0 && j->idx == (size_t)c->stop_at) {
		c->stopped = 1;
		return -ECANCELED;
	}
	return 0;
}

static const struct lpt_par_ops pops = { p_next, p_work, p_emit };

static void run_pool(unsigned int nthreads, size_t window, size_t njobs)
{
	struct pctx c = { .njobs = njobs, .stop_at = -1, .next_err_at = -1,
			  .nthreads = nthreads };
	int r;

	pthread_mutex_init(&c.lock, NULL);
	r = lpt_par_run(&pops, &c, nthreads, sizeof(struct pjob), window);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(c.emitted, njobs);
	ck_assert_int_eq(c.bad_worker, 0);
	if (nthreads > 1)
		REQUIRE(c.max_inflight <= (window ? window : 2 * nthreads),
			"%zu jobs in flight, window %zu", c.max_inflight, window);
	pthread_mutex_destroy(&c.lock);
}

START_TEST(test_pool_order)
{
	run_pool(1, 0, 50);
	run_pool(2, 0, 200);
	run_pool(4, 0, 200);
	run_pool(7, 3, 100);
	run_pool(7, 1, 30);
	run_pool(3, 0, 0);
	run_pool(3, 0, 1);
}
END_TEST

START_TEST(test_pool_stops)
{
	for (unsigned int n = 1; n <= 5; n += 2) {
		struct pctx c = { .njobs = 100, .stop_at = 10, .next_err_at = -1,
				  .nthreads = n };
		int r;

		pthread_mutex_init(&c.lock, NULL);
		r = lpt_par_run(&pops, &c, n, sizeof(struct pjob), 0);
		ck_assert_int_eq(r, -ECANCELED);
		/* the jobs made before the stop are emitted, none more */
		ck_assert_uint_eq(c.emitted, c.made);
		ck_assert_uint_le(c.made, 11 + 2 * (size_t)n);
		pthread_mutex_destroy(&c.lock);
		c = (struct pctx){ .njobs = 100, .stop_at = -1, .next_err_at = 20,
				   .nthreads = n };
		pthread_mutex_init(&c.lock, NULL);
		r = lpt_par_run(&pops, &c, n, sizeof(struct pjob), 0);
		ck_assert_int_eq(r, -EIO);
		ck_assert_uint_eq(c.emitted, 20);
		pthread_mutex_destroy(&c.lock);
	}
	ck_assert_int_eq(lpt_par_run(NULL, NULL, 2, 8, 0), -EINVAL);
	ck_assert_int_eq(lpt_par_run(&pops, NULL, 2, 0, 0), -EINVAL);
	ck_assert_uint_ge(lpt_par_jobs(0), 1);
	ck_assert_uint_eq(lpt_par_jobs(5), 5);
}
END_TEST

static Suite *chunk_suite(void)
{
	Suite *s = suite_create("pt_chunk");
	TCase *tc = tcase_create("chunk");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_boundaries_at_psbs);
	tcase_add_test(tc, test_call_stack_ovf_pgd_pge_fup_only);
	tcase_add_test(tc, test_no_psb_one_chunk);
	tcase_add_test(tc, test_psb_run);
	tcase_add_test(tc, test_pool_order);
	tcase_add_test(tc, test_pool_stops);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(chunk_suite(), CK_ENV);
}
