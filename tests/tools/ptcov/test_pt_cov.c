// SPDX-License-Identifier: GPL-2.0
/*
 * Exactness of libpt's coverage decoder (lwpt/pt_cov.h, issue 25 point 3).
 * Sources: the edge definition of Documentation/ptcov.rst; libipt 2.0.5's
 * instruction-flow decoder as the reference (tests/libpt/cov_ref.c);
 * libxdc's published hashes (../shared/testdata/pt/README.md); packet
 * layouts of SDM 33.4.2 for the synthetic traces.
 */
#include <check.h>
#include <elf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_chunk.h>
#include <lwpt/pt_cov.h>

#include "libpt/cov_internal.h"
#include "tests/check_run.h"
#include "tests/libpt/cov_ref.h"
#include "tests/libpt/real_traces.h"
#include "tools/ptcov/cov_flow.h"
#include "tools/ptcov/cov_merge.h"

static struct lpt_cov *new_cov_cpu(const struct lpt_cov_image *img, uint32_t flags,
				   uint64_t start, uint64_t end, int model)
{
	struct lpt_cov_config cfg;

	lpt_cov_config_init(&cfg);
	cfg.flags = flags;
	if (start || end) {
		cfg.nfilter = 1;
		cfg.filter[0].start = start;
		cfg.filter[0].end = end;
	}
	cfg.cpu.vendor = 1;
	cfg.cpu.family = 6;
	cfg.cpu.model = (uint8_t)model;
	cfg.cpu.stepping = 3;
	return lpt_cov_alloc(&cfg, img);
}

/* A decoder for Skylake 6/94/3, the CPU of kAFL's traces. */
static struct lpt_cov *new_cov(const struct lpt_cov_image *img, uint32_t flags,
			       uint64_t start, uint64_t end)
{
	return new_cov_cpu(img, flags, start, end, 94);
}

/* Our edges equal the reference's, element by element. */
static void same_edges(struct lpt_cov *cov, const struct cov_ref_edge *re, size_t rn,
		       const char *what)
{
	const struct lpt_cov_edge *e;
	long n = lpt_cov_edges(cov, &e);
	bool same = n == (long)rn;

	for (size_t i = 0; same && i < rn; i++)
		same = e[i].src == re[i].src && e[i].dst == re[i].dst &&
		       e[i].count == re[i].count;
	if (!same) {	/* both lists, for the log */
		for (long i = 0; i < n && i < 50; i++)
			printf("%s: ptcov  %lx %lx %lu\n", what, (unsigned long)e[i].src,
			       (unsigned long)e[i].dst, (unsigned long)e[i].count);
		for (size_t i = 0; i < rn && i < 50; i++)
			printf("%s: libipt %lx %lx %lu\n", what, (unsigned long)re[i].src,
			       (unsigned long)re[i].dst, (unsigned long)re[i].count);
	}
	ck_assert_msg(n == (long)rn, "%s: %ld distinct edges, libipt %zu", what, n, rn);
	for (size_t i = 0; i < rn; i++)
		ck_assert_msg(e[i].src == re[i].src && e[i].dst == re[i].dst &&
			      e[i].count == re[i].count,
			      "%s: edge %zu: %lx %lx %lu, libipt %lx %lx %lu", what, i,
			      (unsigned long)e[i].src, (unsigned long)e[i].dst,
			      (unsigned long)e[i].count, (unsigned long)re[i].src,
			      (unsigned long)re[i].dst, (unsigned long)re[i].count);
}

START_TEST(real_edges_and_hash)
{
	const struct real *r = &reals[_i];
	struct cov_ref_pages pc;
	struct cov_ref_edge *re;
	size_t rn, len;
	uint8_t *trace, *map = calloc(1, LPT_COV_MAP_SIZE);
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov, *xdc;

	trace = real_trace_read(r->file, &len);
	if (!trace) {
		free(map);
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load(r->name, &pc, img), 0);
	ck_assert_int_eq(cov_ref_edges(trace, len, &pc, r->start, r->end, 6, 94, 3,
				       &re, &rn, NULL), 0);
	ck_assert_uint_gt(rn, 0);

	cov = new_cov(img, LPT_COV_F_EDGES, r->start, r->end);
	ck_assert_ptr_nonnull(cov);
	/* cold, then warm (cached blocks and paths): the same edges */
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(lpt_cov_decode(cov, trace, len, map), 0);
		same_edges(cov, re, rn, r->name);
	}
	lpt_cov_free(cov);
	cov = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_NO_PATHS, r->start, r->end);
	ck_assert_int_eq(lpt_cov_decode(cov, trace, len, map), 0);
	same_edges(cov, re, rn, r->name);
	/* invalidation drops the cache; the next decode is the same */
	ck_assert_int_gt(lpt_cov_invalidate(cov, r->start, r->end), 0);
	ck_assert_int_eq(lpt_cov_decode(cov, trace, len, map), 0);
	same_edges(cov, re, rn, r->name);
	lpt_cov_free(cov);

	/* the libxdc map: its published hash, cold and warm */
	xdc = new_cov(img, LPT_COV_F_XDC, r->start, r->end);
	for (int k = 0; k < 3; k++) {
		memset(map, 0, LPT_COV_MAP_SIZE);
		lpt_cov_decode(xdc, trace, len, map);
		ck_assert_msg(lpt_cov_map_hash(map, LPT_COV_MAP_SIZE) == r->hash,
			      "%s: xdc hash %016lx, libxdc %016lx", r->name,
			      (unsigned long)lpt_cov_map_hash(map, LPT_COV_MAP_SIZE),
			      (unsigned long)r->hash);
	}
	lpt_cov_free(xdc);
	lpt_cov_image_free(img);
	cov_ref_free_pages(&pc);
	free(re);
	free(trace);
	free(map);
}
END_TEST

/* lpt_cov_blocks() and lpt_cov_block_at() give the cache's blocks as a
 * walk with lpt_cov_insn_at() sees them; every edge's destination has
 * one. */
struct blk_check {
	const struct lpt_cov *cov;
	const struct lpt_cov_image *img;
	long n;
};

static int check_block(void *ctx, const struct lpt_cov_block *b)
{
	struct blk_check *k = ctx;
	struct lpt_cov_block again;
	struct lpt_cov_insn in = { 0 };
	uint64_t a = b->start;

	k->n++;
	ck_assert_int_eq(lpt_cov_block_at(k->cov, b->start, b->mode, &again), 1);
	ck_assert_mem_eq(&again, b, sizeof(*b));
	if (b->mode != 64 || (b->flags & LPT_COV_BLOCK_F_UD))
		return 0;
	for (uint32_t i = 0; i < b->ninsn; i++, a += in.len) {
		ck_assert_int_eq(lpt_cov_insn_at(k->img, a, 64, &in), 0);
		if (i + 1 < b->ninsn)
			ck_assert_int_eq(in.kind, LPT_COV_INSN_OTHER);
	}
	if (b->stop == LPT_COV_STOP_BRANCH) {
		ck_assert_uint_eq(in.addr, b->branch);
		ck_assert_int_eq(in.kind, b->kind);
		ck_assert_uint_eq(in.target, b->target);
		ck_assert_uint_eq(a, b->end);
	} else {
		ck_assert_int_eq(b->kind, LPT_COV_INSN_OTHER);
		ck_assert_uint_eq(b->branch, 0);
		ck_assert_uint_eq(a, b->end);
		if (b->stop == LPT_COV_STOP_NOMAP)
			ck_assert_int_eq(lpt_cov_insn_at(k->img, a, 64, &in), LPT_ERR_COV_NOMAP);
	}
	return 0;
}

START_TEST(real_blocks)
{
	const struct real *r = &reals[_i];
	size_t len;
	uint8_t *trace;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov;
	struct lpt_cov_block b;
	const struct lpt_cov_edge *e;
	struct lpt_cov_stats st;
	long n;

	trace = real_trace_read(r->file, &len);
	if (!trace) {
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load(r->name, NULL, img), 0);
	cov = new_cov(img, LPT_COV_F_EDGES, r->start, r->end);
	ck_assert_int_eq(lpt_cov_block_at(cov, r->start, 64, &b), 0);	/* empty */
	ck_assert_int_eq(lpt_cov_decode(cov, trace, len, NULL), 0);
	struct blk_check k = { cov, img, 0 };

	n = lpt_cov_blocks(cov, check_block, &k);
	ck_assert_int_eq(n, k.n);
	ck_assert_int_eq(lpt_cov_stats(cov, &st), 0);
	ck_assert_int_eq(n, (long)st.blocks);
	n = lpt_cov_edges(cov, &e);
	ck_assert_int_gt(n, 0);
	for (long i = 0; i < n; i++)	/* those leaving the filter: no walk */
		if (e[i].dst >= r->start && e[i].dst < r->end)
			ck_assert_int_eq(lpt_cov_block_at(cov, e[i].dst, 64, &b), 1);
	uint64_t d0 = e[0].dst >= r->start && e[0].dst < r->end ? e[0].dst : e[0].src;

	ck_assert_int_eq(lpt_cov_block_at(NULL, 0, 64, &b), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_block_at(cov, 0, 8, &b), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_block_at(cov, 0, 64, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_blocks(cov, NULL, NULL), LPT_ERR_INVALID);
	/* a flush empties it */
	ck_assert_int_gt(lpt_cov_invalidate(cov, r->start, r->end), 0);
	ck_assert_int_eq(lpt_cov_block_at(cov, d0, 64, &b), 0);
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
	free(trace);
}
END_TEST

/* LPT_COV_F_LENS: every cached block's lengths (lpt_cov_block_lens())
 * are those lpt_cov_insns_at() reads for its code; the edges are the
 * same with and without the flag; without it no lengths. */
struct lens_check {
	const struct lpt_cov *cov, *plain;
	const struct lpt_cov_image *img;
	long n;
};

static int check_lens(void *ctx, const struct lpt_cov_block *b)
{
	struct lens_check *k = ctx;
	struct lpt_cov_block again;
	const uint8_t *lens = (const uint8_t *)1;
	struct lpt_cov_insn *in;
	long got;

	k->n++;
	ck_assert_int_eq(lpt_cov_block_lens(k->cov, b->start, b->mode, &again, &lens), 1);
	ck_assert_mem_eq(&again, b, sizeof(*b));
	if (!b->ninsn) {
		ck_assert_ptr_null(lens);
		return 0;
	}
	ck_assert_ptr_nonnull(lens);
	in = calloc(b->ninsn, sizeof(*in));
	got = lpt_cov_insns_at(k->img, b->start, b->mode, in, b->ninsn);
	ck_assert_int_eq(got, (long)b->ninsn);
	for (uint32_t i = 0; i < b->ninsn; i++)
		ck_assert_uint_eq(lens[i], in[i].len);
	free(in);
	/* the decoder without the flag: the block, no lengths */
	if (lpt_cov_block_lens(k->plain, b->start, b->mode, &again, &lens) == 1) {
		ck_assert_mem_eq(&again, b, sizeof(*b));
		ck_assert_ptr_null(lens);
	}
	return 0;
}

START_TEST(real_block_lens)
{
	const struct real *r = &reals[_i];
	size_t len;
	uint8_t *trace;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov, *plain;
	struct lpt_cov_block b;
	const struct lpt_cov_edge *e, *pe;
	const uint8_t *lens;
	long n, pn;

	trace = real_trace_read(r->file, &len);
	if (!trace) {
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load(r->name, NULL, img), 0);
	cov = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_LENS, r->start, r->end);
	plain = new_cov(img, LPT_COV_F_EDGES, r->start, r->end);
	ck_assert_ptr_nonnull(cov);
	ck_assert_int_eq(lpt_cov_block_lens(cov, r->start, 64, &b, &lens), 0);	/* empty */
	for (int round = 0; round < 2; round++) {	/* cold, then warm */
		ck_assert_int_eq(lpt_cov_decode(cov, trace, len, NULL), 0);
		ck_assert_int_eq(lpt_cov_decode(plain, trace, len, NULL), 0);
		n = lpt_cov_edges(cov, &e);
		pn = lpt_cov_edges(plain, &pe);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(n, pn);
		ck_assert_mem_eq(e, pe, (size_t)n * sizeof(*e));
		struct lens_check k = { cov, plain, img, 0 };

		ck_assert_int_eq(lpt_cov_blocks(cov, check_lens, &k), k.n);
		ck_assert_int_gt(k.n, 0);
	}
	ck_assert_int_eq(lpt_cov_block_lens(NULL, 0, 64, &b, &lens), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_block_lens(cov, 0, 8, &b, &lens), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_block_lens(cov, 0, 64, NULL, &lens), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_block_lens(cov, 0, 64, &b, NULL), LPT_ERR_INVALID);
	lpt_cov_free(cov);
	lpt_cov_free(plain);
	lpt_cov_image_free(img);
	free(trace);
}
END_TEST

/* A trace cut anywhere (a packet cut at the end: the trace ends there)
 * still has libipt's edges. */
START_TEST(truncated_edges)
{
	static const size_t cuts[] = { 1000, 5001, 7777, 12000, 16001 };
	struct cov_ref_pages pc;
	size_t len;
	uint8_t *trace;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov;

	trace = real_trace_read("foo__trace.pt", &len);
	if (!trace) {
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load("foo", &pc, img), 0);
	cov = new_cov(img, LPT_COV_F_EDGES, 0x7ffff7819000, 0x7ffff79ca000);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]) && cuts[i] < len; i++) {
		struct cov_ref_edge *re;
		size_t rn;

		ck_assert_int_eq(cov_ref_edges(trace, cuts[i], &pc, 0x7ffff7819000,
					       0x7ffff79ca000, 6, 94, 3, &re, &rn, NULL), 0);
		ck_assert_int_eq(lpt_cov_decode(cov, trace, cuts[i], NULL), 0);
		same_edges(cov, re, rn, "foo cut");
		free(re);
	}
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
	cov_ref_free_pages(&pc);
	free(trace);
}
END_TEST

/* ---- synthetic traces (SDM 33.4.2 packet layouts) ---------------------- */

struct tb {
	uint8_t b[512];
	size_t n;
};

static void put(struct tb *t, const void *p, size_t n)
{
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static void psb(struct tb *t)
{
	for (int i = 0; i < 8; i++)
		put(t, "\x02\x82", 2);
}

static void ipk(struct tb *t, uint8_t opc, uint64_t ip)	/* IPBytes 6: full */
{
	uint8_t h = opc | (6 << 5);

	put(t, &h, 1);
	put(t, &ip, 8);
}

static void tnt(struct tb *t, const char *bits)	/* "101": oldest first */
{
	unsigned int v = 1;

	for (const char *p = bits; *p; p++)
		v = v << 1 | (unsigned int)(*p - '0');
	uint8_t b = (uint8_t)(v << 1);

	put(t, &b, 1);
}

static void mode_exec(struct tb *t, int bits)
{
	uint8_t m[2] = { 0x99, (uint8_t)bits };

	put(t, m, 2);
}

static void mode_tsx(struct tb *t, int intx, int abrt)
{
	uint8_t m[2] = { 0x99, (uint8_t)(0x20 | intx | abrt << 1) };

	put(t, m, 2);
}

#define PSBEND(t) put(t, "\x02\x23", 2)

/* PSB+ with MODE.Exec @mode_bits (1: 64-bit, 2: 32-bit), then TIP.PGE @ip. */
static void start(struct tb *t, int mode_bits, uint64_t ip)
{
	psb(t);
	mode_exec(t, mode_bits);
	PSBEND(t);
	ipk(t, 0x11, ip);		/* TIP.PGE */
}
#define OVF(t) put(t, "\x02\xf3", 2)
#define PGD0(t) put(t, "\x01", 1)	/* TIP.PGD, IP suppressed */

/* Code: one 4 KiB page at 0x1000 and one at 0x2000 / 0x3000. */
struct code {
	uint64_t addr[3];
	uint8_t page[3][4096];
};

static void code_init(struct code *c)
{
	c->addr[0] = 0x1000;
	c->addr[1] = 0x2000;
	c->addr[2] = 0x3000;
	memset(c->page, 0x90, sizeof(c->page));	/* NOP */
}

static void code_put(struct code *c, uint64_t a, const char *bytes, size_t n)
{
	memcpy(&c->page[a / 4096 - 1][a & 0xfff], bytes, n);
}

/*
 * Decode @t over @c, filter [@fs, @fe) (0, 0: none), for CPU 6/@model/3
 * with ours and with libipt; same edges, at least @min. Returns whether
 * libipt's edges include (@src, @dst).
 */
static bool check_synth_cpu(const struct code *c, const struct tb *t, size_t min,
			    const char *what, int model, uint64_t fs, uint64_t fe,
			    uint64_t src, uint64_t dst)
{
	struct cov_ref_pages pc = { 3, (uint64_t *)c->addr, (uint8_t *)c->page };
	struct cov_ref_edge *re;
	size_t rn;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov;
	bool has = false;

	for (int i = 0; i < 3; i++)
		lpt_cov_image_add(img, c->addr[i], c->page[i], 4096);
	ck_assert_int_eq(cov_ref_edges(t->b, t->n, &pc, fs, fe, 6, model, 3, &re, &rn,
				       NULL), 0);
	ck_assert_msg(rn >= min, "%s: libipt finds %zu edges", what, rn);
	for (int f = 0; f < 2; f++) {	/* path cache on, off */
		cov = new_cov_cpu(img, LPT_COV_F_EDGES | (f ? LPT_COV_F_NO_PATHS : 0),
				  fs, fe, model);
		for (int k = 0; k < 2; k++) {
			lpt_cov_decode(cov, t->b, t->n, NULL);
			same_edges(cov, re, rn, what);
		}
		lpt_cov_free(cov);
	}
	for (size_t i = 0; i < rn; i++)
		has |= re[i].src == src && re[i].dst == dst;
	lpt_cov_image_free(img);
	free(re);
	return has;
}

/* Decode @t over @c with ours and with libipt; same edges, at least @min. */
static void check_synth(const struct code *c, const struct tb *t, size_t min,
			const char *what)
{
	check_synth_cpu(c, t, min, what, 94, 0, 0, 0, 0);
}

/*
 * The flow errata libipt 2.0.5 applies (pt_cpu_errata(), pt_config.c):
 * each trace decodes to libipt's edges on a CPU with the erratum and on
 * one without, and the two differ in the edge named.
 */
#define BDW 0x3d	/* Broadwell: BDM64, BDM70 */
#define SKL 0x5e	/* Skylake: SKD007, SKD010, SKD022, SKL014, ... */
#define APL 0x5c	/* Apollo Lake: APL11, APL12 */
#define ICL 0x7e	/* Ice Lake: SKD022, SKL014, BDM70 (no SKD010, APL11) */

START_TEST(erratum_bdm64)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\xff\xe0", 2);		/* jmp *rax */
	code_put(&c, 0x3000, "\x74\x02\xc3", 3);	/* abort handler */
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1100);		/* jmp *rax -> 0x1100 (NOPs) */
	mode_tsx(&t, 0, 1);		/* abort at 0x1400: 768 NOPs on */
	ipk(&t, 0x1d, 0x1400);
	ipk(&t, 0x0d, 0x3000);
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);		/* ret at 0x3002 */
	PGD0(&t);
	/* BDM64: the jump's trace counts as lost, it went to the FUP IP */
	ck_assert(check_synth_cpu(&c, &t, 2, "bdm64", BDW, 0, 0, 0x1000, 0x1400));
	ck_assert(!check_synth_cpu(&c, &t, 2, "no bdm64", SKL, 0, 0, 0x1000, 0x1400));
}
END_TEST

START_TEST(erratum_skd022)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\xff\xe0", 2);		/* jmp *rax */
	code_put(&c, 0x1100, "\x0f\x01\xc2", 3);	/* vmlaunch */
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1100);
	ipk(&t, 0x1d, 0x1100);		/* FUP + TIP.PGD at the VM entry */
	ipk(&t, 0x01, 0x2000);
	ipk(&t, 0x11, 0x1000);		/* again, the TIP.PGD's IP suppressed */
	ipk(&t, 0x0d, 0x1100);
	ipk(&t, 0x1d, 0x1100);
	PGD0(&t);
	ck_assert(check_synth_cpu(&c, &t, 1, "skd022", SKL, 0, 0, 0x1100, 0x2000));
	ck_assert(!check_synth_cpu(&c, &t, 1, "no skd022", BDW, 0, 0, 0x1100, 0x2000));
}
END_TEST

START_TEST(erratum_skl014)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\xff\xe0", 2);		/* jmp *rax */
	code_put(&c, 0x1100, "\xe9\xfb\x0e\x00\x00", 5); /* jmp 0x2000 */
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1100);
	PGD0(&t);			/* the jmp leaves the filter */
	ipk(&t, 0x11, 0x1000);
	ipk(&t, 0x0d, 0x10fe);		/* nop; nop; jmp 0x2000 */
	PGD0(&t);
	ck_assert(check_synth_cpu(&c, &t, 1, "skl014", SKL, 0x1000, 0x2000,
				  0x1000, 0x10fe));
	/* without: libipt decodes on at 0x2000 and fails at the PGE */
	ck_assert(!check_synth_cpu(&c, &t, 1, "no skl014", BDW, 0x1000, 0x2000,
				   0x1000, 0x10fe));
}
END_TEST

START_TEST(erratum_skd010)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	/*
	 * 1: nop; jne 1b. Without the workaround libipt fails on the OVF
	 * when it reads ahead after the last TNT bit, so the jne that took
	 * it is not decoded; the nop before it keeps the edge into the
	 * block (a branch alone there: not handled, see ptcov.rst).
	 */
	code_put(&c, 0x1000, "\x90\x75\xfd", 3);
	code_put(&c, 0x3000, "\x74\x02\xc3", 3);
	start(&t, 1, 0x1000);
	tnt(&t, "11");
	OVF(&t);			/* the FUP after it lost: a TIP */
	ipk(&t, 0x0d, 0x3000);
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);		/* ret at 0x3002 */
	PGD0(&t);
	/* SKD010: resume at the TIP; without it libipt fails at the OVF */
	ck_assert(check_synth_cpu(&c, &t, 1, "skd010", SKL, 0, 0, 0x3000, 0x3002));
	ck_assert(!check_synth_cpu(&c, &t, 0, "no skd010", ICL, 0, 0, 0x3000, 0x3002));
}
END_TEST

START_TEST(erratum_apl11)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\x75\xfe\xc3", 3);	/* 1: jne 1b; ret */
	code_put(&c, 0x3000, "\x74\x02\xc3", 3);
	start(&t, 1, 0x1000);
	tnt(&t, "1");
	OVF(&t);
	PGD0(&t);			/* APL11: a TIP.PGD after the OVF */
	ipk(&t, 0x11, 0x3000);
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);
	PGD0(&t);
	ck_assert(check_synth_cpu(&c, &t, 1, "apl11", APL, 0, 0, 0x3000, 0x3002));
	ck_assert(!check_synth_cpu(&c, &t, 0, "no apl11", ICL, 0, 0, 0x3000, 0x3002));
}
END_TEST

START_TEST(synth_ovf_in_tnt_run)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\x75\xfe\xc3", 3);	/* 1: jne 1b; ret */
	start(&t, 1, 0x1000);
	tnt(&t, "111");
	OVF(&t);			/* in the middle of the loop */
	ipk(&t, 0x1d, 0x1000);		/* FUP: resume */
	tnt(&t, "110");
	ipk(&t, 0x0d, 0x2000);		/* ret -> 0x2000 */
	PGD0(&t);
	check_synth(&c, &t, 3, "ovf in tnt run");
}
END_TEST

START_TEST(synth_tsx_abort)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\x75\x02", 2);		/* jne 0x1004 */
	code_put(&c, 0x1010, "\xc3", 1);
	code_put(&c, 0x3000, "\x74\x02\xc3", 3);	/* abort handler */
	start(&t, 1, 0x1000);
	mode_tsx(&t, 1, 0);		/* XBEGIN at 0x1000 */
	ipk(&t, 0x1d, 0x1000);
	tnt(&t, "1");
	mode_tsx(&t, 0, 1);		/* abort at 0x1008 */
	ipk(&t, 0x1d, 0x1008);
	ipk(&t, 0x0d, 0x3000);
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);		/* ret at 0x3002 */
	PGD0(&t);
	check_synth(&c, &t, 3, "tsx abort");
}
END_TEST

START_TEST(synth_32bit)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	/* 32-bit: dec eax; jne 0x1005 (64-bit would be one REX.W jne) */
	code_put(&c, 0x1000, "\x48\x75\x02", 3);
	code_put(&c, 0x1005, "\xff\xe0", 2);		/* jmp *eax */
	code_put(&c, 0x2000, "\xc3", 1);
	start(&t, 2, 0x1000);		/* CS.D=1, CS.L=0 */
	tnt(&t, "1");
	ipk(&t, 0x0d, 0x2000);
	ipk(&t, 0x0d, 0x1000);		/* ret */
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);		/* jmp *eax from 0x1003+... */
	PGD0(&t);
	check_synth(&c, &t, 3, "32-bit");
}
END_TEST

/* Warm (after @n decodes of the @na bytes @a) and cold (no paths) decodes
 * of @b: the same edges, at least @min. */
static void same_warm_cold(const struct lpt_cov_image *img, uint64_t fs, uint64_t fe,
			   const uint8_t *a, size_t na, int n, const uint8_t *b,
			   size_t nb, long min, const char *what)
{
	struct lpt_cov *w = new_cov(img, LPT_COV_F_EDGES, fs, fe);
	struct lpt_cov *c = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_NO_PATHS, fs, fe);
	const struct lpt_cov_edge *ew, *ec;
	long kw, kc;
	int rw, rc;

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < n; i++)
		lpt_cov_decode(w, a, na, NULL);
	rw = lpt_cov_decode(w, b, nb, NULL);
	rc = lpt_cov_decode(c, b, nb, NULL);
	ck_assert_int_eq(rw, rc);
	kw = lpt_cov_edges(w, &ew);
	kc = lpt_cov_edges(c, &ec);
	for (long i = 0, j = 0, shown = 0; (i < kw || j < kc) && shown < 20;) {
		/* the differences, for the log (both sorted by src, dst) */
		int d = i >= kw ? 1 : j >= kc ? -1 :
			ew[i].src != ec[j].src ? (ew[i].src < ec[j].src ? -1 : 1) :
			ew[i].dst != ec[j].dst ? (ew[i].dst < ec[j].dst ? -1 : 1) : 0;

		if (d < 0 || (!d && ew[i].count != ec[j].count))
			printf("%s: warm %lx %lx %lu\n", what, (unsigned long)ew[i].src,
			       (unsigned long)ew[i].dst, (unsigned long)ew[i].count);
		if (d > 0 || (!d && ew[i].count != ec[j].count))
			printf("%s: cold %lx %lx %lu\n", what, (unsigned long)ec[j].src,
			       (unsigned long)ec[j].dst, (unsigned long)ec[j].count);
		shown += d || ew[i].count != ec[j].count;
		i += d <= 0;
		j += d >= 0;
	}
	ck_assert_msg(kw == kc, "%s: warm %ld edges, cold %ld", what, kw, kc);
	ck_assert_msg(kc >= min, "%s: %ld edges", what, kc);
	for (long i = 0; i < kc; i++)
		ck_assert_msg(ew[i].src == ec[i].src && ew[i].dst == ec[i].dst &&
			      ew[i].count == ec[i].count,
			      "%s: edge %ld: warm %lx %lx %lu, cold %lx %lx %lu", what, i,
			      (unsigned long)ew[i].src, (unsigned long)ew[i].dst,
			      (unsigned long)ew[i].count, (unsigned long)ec[i].src,
			      (unsigned long)ec[i].dst, (unsigned long)ec[i].count);
	lpt_cov_free(w);
	lpt_cov_free(c);
}

/*
 * A MODE.Exec in PSB+ unlike the mode the walk is in while tracing is on
 * (a corrupt trace; fuzz_cov found the warm decoder taking a path cached
 * by an earlier trace, its TIP's block built in 64-bit mode, where the
 * block-by-block decoder built it in 16-bit mode). With a PSBEND it is
 * libipt's -pte_bad_status_update: the same edges as libipt, warm and
 * cold. Without one (libipt: -pte_bad_context) the mode stays: warm and
 * cold the same.
 */
START_TEST(synth_mode_in_psb_cross_trace)
{
	struct code c;
	struct tb a = { .n = 0 }, b;
	struct lpt_cov_image *img = lpt_cov_image_alloc();

	code_init(&c);
	code_put(&c, 0x1001, "\xff\xe0", 2);		/* nop; jmp *rax */
	/* 64-bit: REX.W jne 0x2005; 16-bit: dec ax; jne 0x2005 */
	code_put(&c, 0x2000, "\x48\x75\x02", 3);
	code_put(&c, 0x2003, "\xff\xe0", 2);
	code_put(&c, 0x2005, "\xff\xe0", 2);
	for (int i = 0; i < 3; i++)
		lpt_cov_image_add(img, c.addr[i], c.page[i], 4096);
	/* the trace that fills the cache: all 64-bit */
	start(&a, 1, 0x1000);
	for (int i = 0; i < 2; i++) {
		ipk(&a, 0x0d, 0x2000);
		tnt(&a, i ? "0" : "1");
		ipk(&a, 0x0d, 0x1000);
	}
	PGD0(&a);
	static const char *const names[] = {
		"mode in PSB+, no PSBEND", "mode in PSB+", "mode in PSB+, FUP at block",
		"mode in PSB+, FUP in block",
	};

	for (int end = 0; end < 4; end++) {
		b.n = 0;
		start(&b, 1, 0x1000);
		ipk(&b, 0x0d, 0x2000);
		tnt(&b, "1");
		ipk(&b, 0x0d, 0x1000);
		psb(&b);
		mode_exec(&b, 0);	/* CS.L=0, CS.D=0: 16-bit */
		if (end >= 2)		/* where the walk is: the start of
					 * its block, its jmp */
			ipk(&b, 0x1d, end == 2 ? 0x1000 : 0x1001);
		if (end)
			PSBEND(&b);
		ipk(&b, 0x0d, 0x2000);
		tnt(&b, "1");
		ipk(&b, 0x0d, 0x1000);
		PGD0(&b);
		same_warm_cold(img, 0, 0, a.b, a.n, 2, b.b, b.n, 1,
			       names[end]);
		if (end)
			check_synth(&c, &b, 1, names[end]);
	}
	lpt_cov_image_free(img);
}
END_TEST

/*
 * The same in mruby's real trace (fuzz_cov's find): the trace fills the
 * cache, then the same bytes with the MODE.Exec of the PSB+ at 0xb50 made
 * 16-bit (CS.L cleared) decode warm and cold, to libipt's edges.
 */
START_TEST(real_mode_in_psb_cross_trace)
{
	const struct real *r = &reals[2];
	struct cov_ref_pages pc;
	size_t len, at;
	uint8_t *trace, *mut;
	struct lpt_cov_image *img;

	trace = real_trace_read(r->file, &len);
	if (!trace)
		return;
	ck_assert_uint_ge(len, 16384);
	at = 0xb65;	/* ptdump: "0xb65 mode.exec cs.l" in PSB+ */
	ck_assert_msg(trace[at] == 0x99 && trace[at + 1] == 0x01,
		      "mruby: no MODE.Exec 64-bit at 0xb65");
	mut = malloc(len);
	memcpy(mut, trace, len);
	mut[at + 1] = 0x00;
	img = lpt_cov_image_alloc();
	ck_assert_int_eq(real_code_load(r->name, &pc, img), 0);
	same_warm_cold(img, r->start, r->end, trace, len, 2, mut, len, 500, "mruby");
	{
		struct cov_ref_edge *re;
		size_t rn;
		struct lpt_cov *cov = new_cov(img, LPT_COV_F_EDGES, r->start, r->end);

		ck_assert_int_eq(cov_ref_edges(mut, len, &pc, r->start, r->end, 6, 94, 3,
					       &re, &rn, NULL), 0);
		lpt_cov_decode(cov, trace, len, NULL);
		ck_assert_int_eq(lpt_cov_decode(cov, mut, len, NULL), LPT_ERR_COV_DESYNC);
		same_edges(cov, re, rn, "mruby, 16-bit MODE.Exec in PSB+");
		lpt_cov_free(cov);
		free(re);
	}
	cov_ref_free_pages(&pc);
	lpt_cov_image_free(img);
	free(mut);
	free(trace);
}
END_TEST

/*
 * A TIP.PGD whose IP is 1 (a corrupt trace: page 0 runs no code) is a
 * disable at IP 1, not one with the IP suppressed: the path cache's key
 * for the suppressed one used to be IP 1 (fuzz_cov: warm and cold
 * differed). As libipt, cold and warm.
 */
START_TEST(synth_pgd_ip_1)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1001, "\xff\xe0", 2);		/* nop; jmp *rax */
	for (int i = 0; i < 2; i++) {
		start(&t, 1, 0x1000);
		ipk(&t, 0x0d, 0x1000);
		if (i)
			PGD0(&t);
		else
			ipk(&t, 0x01, 1);	/* TIP.PGD */
	}
	ck_assert(check_synth_cpu(&c, &t, 2, "TIP.PGD at 1", 94, 0, 0, 0x1001, 1));
}
END_TEST

START_TEST(synth_far)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\x0f\x05", 2);		/* syscall */
	code_put(&c, 0x2000, "\x74\x02\x48\xcf", 4);	/* je; iretq */
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x2000);		/* far: syscall */
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x1002);		/* far: iretq */
	PGD0(&t);
	check_synth(&c, &t, 3, "far transfer");
}
END_TEST

/* RET compression (SDM 33.4.2.1): a near RET as a TNT bit, its target
 * from the return stack. The decoder keeps the stack only after it met a
 * compressed return, so this also covers its decode-again. */
START_TEST(synth_compressed_ret)
{
	struct code c;
	struct tb t = { .n = 0 };

	code_init(&c);
	code_put(&c, 0x1000, "\xe8\x0b\x00\x00\x00\x74\x02\xc3", 8);
	code_put(&c, 0x1010, "\xc3", 1);
	start(&t, 1, 0x1000);
	tnt(&t, "10");			/* ret (compressed), je not taken */
	ipk(&t, 0x0d, 0x2000);		/* ret at 0x1007 */
	PGD0(&t);
	check_synth(&c, &t, 4, "compressed ret");
}
END_TEST

/*
 * Chunked against whole (issue 34 point 3, lwpt/pt_chunk.h): @t cut at
 * every PSB, each chunk given the next PSB+ through its PSBEND and decoded
 * with LPT_COV_F_CHUNK, the chunks' edges summed, are the whole decode's
 * edges (none lost, none doubled), with no error; and the whole decode is
 * libipt's (check_synth()).
 */
static void same_chunked(const struct code *c, const struct tb *t, size_t min,
			 const char *what)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *whole, *part;
	struct lpt_cov_edge sum[64];
	const struct lpt_cov_edge *e;
	size_t nsum = 0, start = 0, nchunk = 0;
	long n;

	check_synth(c, t, min, what);
	for (int i = 0; i < 3; i++)
		lpt_cov_image_add(img, c->addr[i], c->page[i], 4096);
	whole = new_cov(img, LPT_COV_F_EDGES, 0, 0);
	part = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_CHUNK, 0, 0);
	ck_assert_int_eq(lpt_cov_decode(whole, t->b, t->n, NULL), 0);
	while (start < t->n) {
		size_t next = lpt_chunk_next(t->b, t->n, start, 1);
		size_t end = lpt_chunk_psb_end(t->b, t->n, next);

		ck_assert_msg(next == t->n || end > next, "%s: PSB+ at %zu has no PSBEND",
			      what, next);
		ck_assert_msg(lpt_cov_decode(part, t->b + start, end - start, NULL) == 0,
			      "%s: chunk [%zu, %zu) fails", what, start, end);
		n = lpt_cov_edges(part, &e);
		ck_assert_int_ge(n, 0);
		for (long i = 0; i < n; i++) {
			size_t k;

			for (k = 0; k < nsum; k++)
				if (sum[k].src == e[i].src && sum[k].dst == e[i].dst)
					break;
			if (k == nsum) {
				ck_assert_uint_lt(nsum, 64);
				sum[nsum++] = (struct lpt_cov_edge){ e[i].src, e[i].dst, 0 };
			}
			sum[k].count += e[i].count;
		}
		start = next;
		nchunk++;
	}
	ck_assert_msg(nchunk >= 2, "%s: %zu chunks", what, nchunk);
	n = lpt_cov_edges(whole, &e);
	ck_assert_msg((size_t)n == nsum, "%s: whole %ld edges, chunks %zu", what, n, nsum);
	for (long i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < nsum; k++)
			if (sum[k].src == e[i].src && sum[k].dst == e[i].dst)
				break;
		ck_assert_msg(k < nsum && sum[k].count == e[i].count,
			      "%s: edge %" PRIx64 " -> %" PRIx64 " x%" PRIu64 " whole, x%" PRIu64
			      " chunked", what, e[i].src, e[i].dst, e[i].count,
			      k < nsum ? sum[k].count : 0);
	}
	lpt_cov_free(part);
	lpt_cov_free(whole);
	lpt_cov_image_free(img);
}

/* 0x1000 call 0x1010; 0x1005 je 0x1009; 0x1007 nop nop; 0x1009 jmp *%rax;
 * 0x1010 ret; 0x2000 jmp *%rax. */
static void chunk_code(struct code *c)
{
	code_init(c);
	code_put(c, 0x1000, "\xe8\x0b\x00\x00\x00\x74\x02\x90\x90\xff\xe0", 11);
	code_put(c, 0x1010, "\xc3", 1);
	code_put(c, 0x2000, "\xff\xe0", 2);	/* jmp *%rax: the TIP.PGD */
}

/* A PSB+ (@mode: with MODE.Exec 64-bit), FUP @ip if non-zero. */
static void psb_plus(struct tb *t, int mode, uint64_t ip)
{
	psb(t);
	if (mode)
		mode_exec(t, 1);
	if (ip)
		ipk(t, 0x1d, ip);
	PSBEND(t);
}

/* A chunk boundary inside a call stack: between a call and its return,
 * the call's edge pending before the PSB (counted once, by the chunk
 * before: its walk to the FUP). The RET after the PSB is a TIP: the
 * processor never compresses a RET across a PSB (SDM 33.4.2.2). */
START_TEST(chunk_in_call_stack)
{
	struct code c;
	struct tb t = { .n = 0 };

	chunk_code(&c);
	start(&t, 1, 0x1000);
	psb_plus(&t, 1, 0x1010);
	ipk(&t, 0x0d, 0x1005);		/* ret */
	tnt(&t, "1");			/* je taken */
	ipk(&t, 0x0d, 0x2000);		/* jmp *%rax */
	PGD0(&t);
	same_chunked(&c, &t, 3, "boundary in a call stack");
}
END_TEST

/* Just after an OVF: both resume at the PSB+'s FUP, no edge into it. */
START_TEST(chunk_after_ovf)
{
	struct code c;
	struct tb t = { .n = 0 };

	chunk_code(&c);
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1005);		/* ret */
	OVF(&t);
	psb_plus(&t, 1, 0x1005);
	tnt(&t, "0");			/* je not taken */
	ipk(&t, 0x0d, 0x2000);
	PGD0(&t);
	same_chunked(&c, &t, 2, "boundary after OVF");
}
END_TEST

/* Between a TIP.PGD and the TIP.PGE: the PSB+ has no FUP. */
START_TEST(chunk_between_pgd_pge)
{
	struct code c;
	struct tb t = { .n = 0 };

	chunk_code(&c);
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1005);		/* ret */
	tnt(&t, "1");
	ipk(&t, 0x01, 0x2000);		/* jmp *%rax leaves: TIP.PGD */
	psb_plus(&t, 1, 0);
	ipk(&t, 0x11, 0x1005);		/* TIP.PGE */
	tnt(&t, "0");
	ipk(&t, 0x0d, 0x2000);
	PGD0(&t);
	same_chunked(&c, &t, 5, "boundary between TIP.PGD and TIP.PGE");
}
END_TEST

/* A PSB+ with only a FUP, at a conditional branch whose bit comes after. */
START_TEST(chunk_psb_fup_only)
{
	struct code c;
	struct tb t = { .n = 0 };

	chunk_code(&c);
	start(&t, 1, 0x1000);
	ipk(&t, 0x0d, 0x1005);		/* ret */
	psb_plus(&t, 0, 0x1005);
	tnt(&t, "1");			/* je taken */
	psb_plus(&t, 0, 0x1009);
	ipk(&t, 0x0d, 0x2000);
	PGD0(&t);
	same_chunked(&c, &t, 3, "PSB+ with a FUP only");
}
END_TEST

START_TEST(missing_page)
{
	struct code c;
	struct tb t = { .n = 0 };
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov;

	code_init(&c);
	code_put(&c, 0x1000, "\xe9\xfb\x7f\x00\x00", 5);	/* jmp 0x9000 */
	lpt_cov_image_add(img, 0x1000, c.page[0], 4096);
	psb(&t);
	PSBEND(&t);
	ipk(&t, 0x11, 0x1000);
	tnt(&t, "1");
	cov = new_cov(img, 0, 0, 0);
	ck_assert_int_eq(lpt_cov_decode(cov, t.b, t.n, NULL), LPT_ERR_COV_NOMAP);
	ck_assert_uint_eq(lpt_cov_fault_addr(cov), 0x9000);
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
}
END_TEST

/* Every page missed, the first met first (lpt_cov_faults(), issue 35):
 * 0x9000, then 0xa000 (after a resync at the next PSB), then 0x9000 again. */
START_TEST(missing_pages_in_order)
{
	struct code c;
	struct tb t = { .n = 0 };
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	const uint64_t *a;
	unsigned long total = 0;
	struct lpt_cov *cov;
	const uint64_t starts[] = { 0x1000, 0x1010, 0x1000 };

	code_init(&c);
	code_put(&c, 0x1000, "\xe9\xfb\x7f\x00\x00", 5);	/* jmp 0x9000 */
	code_put(&c, 0x1010, "\xe9\xeb\x8f\x00\x00", 5);	/* jmp 0xa000 */
	lpt_cov_image_add(img, 0x1000, c.page[0], 4096);
	for (int i = 0; i < 3; i++) {
		psb(&t);
		PSBEND(&t);
		ipk(&t, 0x11, starts[i]);
		tnt(&t, "1");
	}
	cov = new_cov(img, 0, 0, 0);
	ck_assert_int_eq(lpt_cov_decode(cov, t.b, t.n, NULL), LPT_ERR_COV_NOMAP);
	ck_assert_int_eq(lpt_cov_faults(cov, &a, &total), 2);
	ck_assert_uint_eq(a[0], 0x9000);
	ck_assert_uint_eq(a[1], 0xa000);
	ck_assert_uint_eq(total, 2);
	ck_assert_uint_eq(lpt_cov_fault_addr(cov), 0x9000);	/* the last */
	ck_assert_int_eq(lpt_cov_faults(NULL, &a, NULL), LPT_ERR_INVALID);
	/* a clean decode forgets them */
	ck_assert_int_eq(lpt_cov_decode(cov, t.b, 0, NULL), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_cov_faults(cov, &a, &total), 0);
	ck_assert_uint_eq(total, 0);
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
}
END_TEST

/* lpt_cov_insn_at() classifies as the decoder does. */
START_TEST(insn_at)
{
	static const uint8_t code[] = {
		0x74, 0x02,			/* 0x1000 je 0x1004 */
		0xe8, 0x00, 0x00, 0x00, 0x00,	/* 0x1002 call 0x1007 */
		0xc3,				/* 0x1007 ret */
		0x0f, 0x05,			/* 0x1008 syscall */
		0x90,				/* 0x100a nop */
		0xff, 0xe0,			/* 0x100b jmp *%rax */
	};
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov_insn in;

	lpt_cov_image_add(img, 0x1000, code, sizeof(code));
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x1000, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_JCC);
	ck_assert_uint_eq(in.len, 2);
	ck_assert_uint_eq(in.target, 0x1004);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x1002, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_CALL);
	ck_assert_uint_eq(in.target, 0x1007);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x1007, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_RET);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x1008, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_FAR);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x100a, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_OTHER);
	ck_assert_uint_eq(in.target, 0);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x100b, 64, &in), 0);
	ck_assert_int_eq(in.kind, LPT_COV_INSN_JMP_IND);
	/* an instruction running past the code; no code; bad mode */
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x100c, 64, &in), LPT_ERR_COV_NOMAP);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x2000, 64, &in), LPT_ERR_COV_NOMAP);
	ck_assert_int_eq(lpt_cov_insn_at(img, 0x1000, 8, &in), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_insn_at(NULL, 0x1000, 64, &in), LPT_ERR_INVALID);
	/* lpt_cov_insns_at(): the same, one after the other, to the end */
	struct lpt_cov_insn many[10], one;

	ck_assert_int_eq(lpt_cov_insns_at(img, 0x1000, 64, many, 10), 6);
	for (int i = 0; i < 6; i++) {
		ck_assert_int_eq(lpt_cov_insn_at(img, many[i].addr, 64, &one), 0);
		ck_assert_uint_eq(one.len, many[i].len);
		ck_assert_uint_eq(one.kind, many[i].kind);
		ck_assert_uint_eq(one.target, many[i].target);
		if (i)
			ck_assert_uint_eq(many[i].addr, many[i - 1].addr + many[i - 1].len);
	}
	ck_assert_int_eq(lpt_cov_insns_at(img, 0x1000, 64, many, 2), 2);
	ck_assert_uint_eq(many[1].addr, 0x1002);
	ck_assert_int_eq(lpt_cov_insns_at(img, 0x2000, 64, many, 10), 0);
	ck_assert_int_eq(lpt_cov_insns_at(img, 0x1000, 64, NULL, 0), 0);
	ck_assert_int_eq(lpt_cov_insns_at(img, 0x1000, 64, NULL, 1), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_insns_at(img, 0x1000, 8, many, 1), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_insns_at(NULL, 0x1000, 64, many, 1), LPT_ERR_INVALID);
	lpt_cov_image_free(img);
}
END_TEST

/* Corrupted and truncated traces never crash or hang (cf. ptdump's fuzz
 * smoke test); run under `make SANITIZE=1` this also checks memory. */
START_TEST(mutations)
{
	size_t len;
	uint8_t *orig, *m, *map = calloc(1, 4096);
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov *cov[4];
	/* no CPU, and CPUs with each flow erratum (see erratum_*) */
	static const int model[4] = { 0, SKL, BDW, APL };
	uint64_t seed = 0x2545f4914f6cdd1dull;

	orig = real_trace_read("Unzip__trace.pt", &len);
	if (!orig || real_code_load("Unzip", NULL, img)) {
		printf("test_pt_cov: Unzip missing: mutations skipped\n");
		free(orig);
		lpt_cov_image_free(img);
		free(map);
		return;
	}
	m = malloc(len);
	struct lpt_cov_config cfg;

	lpt_cov_config_init(&cfg);
	cfg.flags = LPT_COV_F_EDGES;
	cfg.map_size = 4096;
	cfg.nfilter = 1;
	cfg.filter[0].start = 0x400000;
	cfg.filter[0].end = 0x427000;
	for (int i = 0; i < 4; i++) {
		cfg.cpu.vendor = model[i] ? 1 : 0;
		cfg.cpu.family = model[i] ? 6 : 0;
		cfg.cpu.model = (uint8_t)model[i];
		cov[i] = lpt_cov_alloc(&cfg, img);
		ck_assert_ptr_nonnull(cov[i]);
	}
	for (int it = 0; it < 600; it++) {
		size_t n = len;

		memcpy(m, orig, len);
		for (int k = 0; k < 1 + it % 8; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			m[seed % len] = (uint8_t)(seed >> 24);
		}
		if (it % 3 == 0)
			n = (size_t)(seed >> 32) % len;
		int r = lpt_cov_decode(cov[it % 4], m, n, map);
		const struct lpt_cov_edge *e;

		ck_assert_int_le(r, 0);
		ck_assert_int_ge(lpt_cov_edges(cov[it % 4], &e), 0);
	}
	for (int i = 0; i < 4; i++)
		lpt_cov_free(cov[i]);
	lpt_cov_image_free(img);
	free(m);
	free(orig);
	free(map);
}
END_TEST

/* lpt_cov_image_add_elf(): the bytes at the entry point of an ELF file
 * (System V gABI: e_entry lies in an executable PT_LOAD segment). */
START_TEST(elf_image)
{
	const char *path = "/proc/self/exe";
	size_t len;
	uint8_t *f = cov_ref_slurp(path, &len), got[16];
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	Elf64_Ehdr eh;

	ck_assert_ptr_nonnull(f);
	memcpy(&eh, f, sizeof(eh));
	ck_assert_int_eq(lpt_cov_image_add_elf(img, path, 0x10000), 0);
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, f + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    eh.e_entry < ph.p_vaddr || eh.e_entry >= ph.p_vaddr + ph.p_filesz)
			continue;
		ck_assert_uint_eq(lpt_cov_image_read(img, eh.e_entry + 0x10000, got, 16), 16);
		ck_assert(!memcmp(got, f + ph.p_offset + (eh.e_entry - ph.p_vaddr), 16));
	}
	ck_assert_int_eq(lpt_cov_image_add_elf(img, "/proc/self/status", 0),
			 LPT_ERR_INVALID);
	lpt_cov_image_free(img);
	free(f);
}
END_TEST

START_TEST(api_errors)
{
	struct lpt_cov_config cfg;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	const struct lpt_cov_edge *e;
	struct lpt_cov *cov;

	lpt_cov_config_init(&cfg);
	cfg.map_size = 1000;
	ck_assert_ptr_null(lpt_cov_alloc(&cfg, img));
	cfg.map_size = 65536;
	cfg.flags = 0x80;
	ck_assert_ptr_null(lpt_cov_alloc(&cfg, img));
	cfg.flags = 0;
	cfg.nfilter = 1;
	cfg.filter[0].start = cfg.filter[0].end = 5;
	ck_assert_ptr_null(lpt_cov_alloc(&cfg, img));
	cfg.nfilter = 0;
	cov = lpt_cov_alloc(&cfg, img);
	ck_assert_ptr_nonnull(cov);
	ck_assert_int_eq(lpt_cov_edges(cov, &e), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_decode(cov, (const uint8_t *)"\x00\x00", 2, NULL),
			 LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_cov_invalidate(cov, 5, 5), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_cov_image_add(img, 0, "x", 0), LPT_ERR_INVALID);
	/* first added wins */
	ck_assert_int_eq(lpt_cov_image_add(img, 0x100, "ab", 2), 0);
	ck_assert_int_eq(lpt_cov_image_add(img, 0xff, "xyzw", 4), 0);
	uint8_t b[4];

	ck_assert_uint_eq(lpt_cov_image_read(img, 0xff, b, 4), 4);
	ck_assert(!memcmp(b, "xabw", 4));
	/* slot function: libxdc's mix of src and dst */
	ck_assert_uint_lt(lpt_cov_slot(0x401000, 0x401010, 65536), 65536);
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * cov_flow_build() (tools/ptcov/cov_flow.h) on @acc: the instructions
 * sorted, distinct and executed; every edge's e_src/e_dst the index of the
 * instruction at its source/destination (cov_flow_find()), COV_NO_INSN
 * where none ran; a branch runs at least as often as edges leave it.
 */
static void check_flow_indices(const struct cov_flow *f, const struct cov_edges *acc,
			       const char *what)
{
	for (size_t i = 0; i < f->ninsn; i++) {
		ck_assert_msg(f->insn[i].count > 0, "%s: insn %#" PRIx64 " ran 0 times", what,
			      f->insn[i].addr);
		ck_assert(!i || f->insn[i - 1].addr < f->insn[i].addr);
	}
	for (size_t i = 0; i < acc->n; i++) {
		const struct cov_insn *s = cov_flow_find(f, acc->e[i].src);
		const struct cov_insn *d = cov_flow_find(f, acc->e[i].dst);
		uint64_t out = 0;

		ck_assert_msg(f->e_src[i] == (s ? (uint32_t)(s - f->insn) : COV_NO_INSN),
			      "%s: edge %zu's source index", what, i);
		ck_assert_msg(f->e_dst[i] == (d ? (uint32_t)(d - f->insn) : COV_NO_INSN),
			      "%s: edge %zu's destination index", what, i);
		for (size_t j = 0; j < acc->n; j++)
			out += acc->e[j].src == acc->e[i].src ? acc->e[j].count : 0;
		ck_assert(!s || !out || s->count >= out);
	}
}

/* The edge indices cov_flow_build() finds without a search, on the real
 * traces: with the decoder's blocks and without, with entry points. */
START_TEST(real_flow_indices)
{
	const struct real *r = &reals[_i];
	size_t len;
	uint8_t *trace = real_trace_read(r->file, &len);
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov_config cfg;
	struct lpt_cov *cov;
	const struct lpt_cov_edge *e;
	long n;

	if (!trace) {
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load(r->name, NULL, img), 0);
	cov = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_LENS, r->start, r->end);
	ck_assert_ptr_nonnull(cov);
	ck_assert_int_eq(lpt_cov_decode(cov, trace, len, NULL), 0);
	n = lpt_cov_edges(cov, &e);
	ck_assert_int_gt(n, 0);
	lpt_cov_config_init(&cfg);
	cfg.nfilter = 1;
	cfg.filter[0] = (struct lpt_cov_range){ r->start, r->end };
	/* the edge counts are at most 2^32 here: the sums of the sources'
	 * out counts above stay exact */
	for (int k = 0; k < 4; k++) {
		struct cov_edges acc = { 0 };
		struct cov_flow f;
		uint64_t ent[2];

		ck_assert_int_eq(cov_edges_add(&acc, e, (size_t)n), 0);
		ck_assert_int_eq(cov_edges_sort(&acc), 0);
		ent[0] = acc.e[0].dst;
		ent[1] = acc.e[acc.n / 2].src + 1;	/* inside an instruction */
		ck_assert_int_eq(cov_flow_build(&f, img, &cfg, &acc, k & 2 ? ent : NULL,
						k & 2 ? 2 : 0, k & 1 ? cov : NULL, true), 0);
		ck_assert_uint_gt(f.ninsn, 0);
		check_flow_indices(&f, &acc, r->name);
		cov_flow_free(&f);
		cov_edges_free(&acc);
	}
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
	free(trace);
}
END_TEST

/* Two flows of the same edges are the same: instructions, blocks, edge
 * indices. */
static void flows_equal(const struct cov_flow *a, const struct cov_flow *b, size_t nedge)
{
	ck_assert_uint_eq(a->ninsn, b->ninsn);
	ck_assert_uint_eq(a->nblk, b->nblk);
	ck_assert_uint_eq(a->nomap, b->nomap);
	ck_assert_mem_eq(a->insn, b->insn, a->ninsn * sizeof(*a->insn));
	ck_assert_mem_eq(a->blk, b->blk, a->nblk * sizeof(*a->blk));
	ck_assert_mem_eq(a->e_src, b->e_src, nedge * sizeof(*a->e_src));
	ck_assert_mem_eq(a->e_dst, b->e_dst, nedge * sizeof(*a->e_dst));
}

/*
 * cov_edges_dst() (libpt's cov_internal.h): lpt_cov_edges()' edges (in
 * (src, dst) order, distinct; the real traces' edges into libc span more
 * than 2^32: every byte's pass), each
 * with the block lpt_cov_block_lens() finds at its destination, cold and
 * warm; cov_gen() new at each decode; the flow built with those blocks
 * (cov_edges_add_dst()) the flow built with lookups, and with the blocks
 * of a decode since replaced (not used: the generation differs).
 */
START_TEST(real_edges_dst)
{
	const struct real *r = &reals[_i];
	size_t len;
	uint8_t *trace = real_trace_read(r->file, &len);
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov_config cfg;
	struct lpt_cov *cov;
	const struct lpt_cov_edge *e, *de;
	const struct cov_blk *const *dst;
	uint64_t gen, gen0 = 0;

	if (!trace) {
		lpt_cov_image_free(img);
		return;
	}
	ck_assert_int_eq(real_code_load(r->name, NULL, img), 0);
	cov = new_cov(img, LPT_COV_F_EDGES | LPT_COV_F_LENS, r->start, r->end);
	ck_assert_ptr_nonnull(cov);
	lpt_cov_config_init(&cfg);
	cfg.nfilter = 1;
	cfg.filter[0] = (struct lpt_cov_range){ r->start, r->end };
	for (int round = 0; round < 3; round++) {	/* cold, warm, warm */
		struct cov_edges plain = { 0 }, with = { 0 };
		struct cov_flow fp, fw;
		long n, dn;
		size_t nblk = 0;

		ck_assert_int_eq(lpt_cov_decode(cov, trace, len, NULL), 0);
		ck_assert_uint_ne(cov_gen(cov), gen0);
		n = lpt_cov_edges(cov, &e);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(cov_edges_add(&plain, e, (size_t)n), 0);
		dn = cov_edges_dst(cov, &de, &dst, &gen);
		ck_assert_int_eq(dn, n);
		ck_assert_uint_eq(gen, cov_gen(cov));
		gen0 = gen;
		ck_assert_mem_eq(de, plain.e, (size_t)n * sizeof(*de));
		/* by (src, dst), distinct: libpt's radix sort of the export */
		for (long i = 1; i < n; i++)
			ck_assert(e[i - 1].src < e[i].src ||
				  (e[i - 1].src == e[i].src && e[i - 1].dst < e[i].dst));
		for (long i = 0; i < n; i++) {
			struct lpt_cov_block want, got;
			const uint8_t *wl, *gl;

			if (lpt_cov_block_lens(cov, de[i].dst, 64, &want, &wl) != 1) {
				ck_assert_ptr_null(dst[i]);
				continue;
			}
			ck_assert_ptr_nonnull(dst[i]);
			cov_blk_lens(dst[i], &got, &gl);
			ck_assert_mem_eq(&got, &want, sizeof(got));
			ck_assert_ptr_eq(gl, wl);
			nblk++;
		}
		ck_assert_uint_gt(nblk, 0);
		ck_assert_int_eq(cov_edges_add_dst(&with, de, (size_t)dn, dst, cov, gen), 0);
		ck_assert_ptr_eq(with.dblk, dst);
		ck_assert_int_eq(cov_flow_build(&fp, img, &cfg, &plain, NULL, 0, cov, true), 0);
		ck_assert_int_eq(cov_flow_build(&fw, img, &cfg, &with, NULL, 0, cov, true), 0);
		flows_equal(&fp, &fw, plain.n);
		cov_flow_free(&fw);
		if (round == 2) {
			/* decoded again: the blocks it kept are not trusted */
			ck_assert_int_eq(lpt_cov_decode(cov, trace, len, NULL), 0);
			ck_assert_uint_ne(cov_gen(cov), with.dgen);
			ck_assert_int_eq(cov_flow_build(&fw, img, &cfg, &with, NULL, 0, cov,
							true), 0);
			flows_equal(&fp, &fw, plain.n);
			cov_flow_free(&fw);
		}
		/* a second decode's edges added: a sum, no blocks */
		ck_assert_int_eq(cov_edges_add_dst(&with, de, (size_t)dn, dst, cov, gen), 0);
		ck_assert_ptr_null(with.dblk);
		cov_flow_free(&fp);
		cov_edges_free(&plain);
		cov_edges_free(&with);
	}
	ck_assert_int_eq(cov_edges_dst(NULL, &de, &dst, &gen), LPT_ERR_INVALID);
	ck_assert_int_eq(cov_edges_dst(cov, NULL, &dst, &gen), LPT_ERR_INVALID);
	ck_assert_int_eq(cov_edges_dst(cov, &de, NULL, &gen), LPT_ERR_INVALID);
	ck_assert_int_eq(cov_edges_dst(cov, &de, &dst, NULL), LPT_ERR_INVALID);
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
	free(trace);
}
END_TEST

/*
 * Edges whose count is 0 (a sum of captures may carry them): the block
 * they enter runs 0 times and its instructions are not executed; the
 * other edges' indices stay right.
 *   0x1000: NOP x4, RET           entered 2 times (from 0x1100)
 *   0x1100: RET                   entered 0 times (from 0x1004), left 2
 *   0x1200: NOP x3, RET           entered 0 times (from 0x1004)
 *   0x1300: RET                   out of the code: a destination outside
 */
START_TEST(flow_zero_count_edges)
{
	static uint8_t page[4096];
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov_config cfg;
	struct lpt_cov_edge e[] = {
		{ 0x1004, 0x1100, 0 },
		{ 0x1004, 0x1200, 0 },
		{ 0x1100, 0x1000, 2 },
		{ 0x1100, 0x9000, 1 },	/* no code there */
	};
	struct cov_edges acc = { 0 };
	struct cov_flow f;

	memset(page, 0x90, sizeof(page));
	page[0x004] = 0xc3;
	page[0x100] = 0xc3;
	page[0x203] = 0xc3;
	ck_assert_int_eq(lpt_cov_image_add(img, 0x1000, page, sizeof(page)), 0);
	lpt_cov_config_init(&cfg);
	ck_assert_int_eq(cov_edges_add(&acc, e, 4), 0);
	ck_assert_int_eq(cov_edges_sort(&acc), 0);
	ck_assert_int_eq(cov_flow_build(&f, img, &cfg, &acc, NULL, 0, NULL, true), 0);
	check_flow_indices(&f, &acc, "zero");
	ck_assert_uint_eq(f.ninsn, 6);		/* 0x1000-0x1004, 0x1100 */
	ck_assert_ptr_null(cov_flow_find(&f, 0x1200));
	ck_assert_uint_eq(cov_flow_find(&f, 0x1100)->count, 3);
	ck_assert_uint_eq(cov_flow_find(&f, 0x1004)->count, 2);
	ck_assert_uint_eq(f.e_dst[1], COV_NO_INSN);
	ck_assert_uint_eq(f.e_dst[3], COV_NO_INSN);
	cov_flow_free(&f);
	cov_edges_free(&acc);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * cov_sorted_idx(): stable by key (equal keys in index order) for keys of
 * one program (within 2^32), of a program and far libraries (most near
 * each other: a split), spread over 2^64 (the byte radix), at both ends
 * of the address space, with many equal keys; against a comparison sort.
 */
struct skey {
	uint64_t pad, k;
};

static const struct skey *skeys;

static int sidx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (skeys[x].k != skeys[y].k)
		return skeys[x].k < skeys[y].k ? -1 : 1;
	return x < y ? -1 : x > y;
}

START_TEST(sorted_idx_stable)
{
	enum { N = 3000 };
	static struct skey k[N];
	static uint32_t ref[N];
	uint64_t rnd = 0x9e3779b97f4a7c15ull;

	for (int shape = 0; shape < 6; shape++) {
		uint32_t *idx;

		for (uint32_t i = 0; i < N; i++) {
			uint64_t r;

			rnd ^= rnd << 13;
			rnd ^= rnd >> 7;
			rnd ^= rnd << 17;
			r = rnd;
			switch (shape) {
			case 0:		/* one program */
				k[i].k = 0x400000 + r % 0x100000;
				break;
			case 1:		/* and a few calls to libc */
				k[i].k = r % 50 ? 0x400000 + r % 0x100000 :
					 0x7ffff7000000 + (r >> 8) % 0x800000;
				break;
			case 2:		/* below and above the program */
				k[i].k = r % 20 ? 0x555555554000 + r % 0x80000 :
					 r % 40 ? r >> 20 : UINT64_MAX - (r >> 30);
				break;
			case 3:		/* all over */
				k[i].k = r;
				break;
			case 4:		/* near 0 and near the top */
				k[i].k = r % 3 ? r % 4096 : UINT64_MAX - r % 4096;
				break;
			default:	/* few distinct keys: stability */
				k[i].k = (r % 7) << 40;
				break;
			}
			ref[i] = i;
		}
		skeys = k;
		qsort(ref, N, sizeof(*ref), sidx_cmp);
		idx = cov_sorted_idx(N, k, sizeof(*k), offsetof(struct skey, k));
		ck_assert_ptr_nonnull(idx);
		for (uint32_t i = 0; i < N; i++)
			ck_assert_msg(idx[i] == ref[i], "shape %d: at %u %u, want %u", shape,
				      i, idx[i], ref[i]);
		free(idx);
	}
}
END_TEST

/*
 * cov_merge (lcov -a): records of two groups summed per file, function
 * name and line (FN: the largest line, FNDA: the sum), branch ("-" only
 * while every record says so and the sum is 0) and line; files by path,
 * a file's functions by line then name, totals recomputed; a group's
 * functions out of name order too.
 */
START_TEST(merge_records)
{
	struct cov_merge *m = cov_merge_alloc();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	long b, a, b2;
	static const char want[] =
		"TN:t\nSF:/a.c\nFN:3,zeta\nFN:7,alpha\nFNDA:0,zeta\nFNDA:5,alpha\n"
		"FNF:2\nFNH:1\nBRDA:4,0,0,-\nBRDA:4,0,1,2\nBRF:2\nBRH:1\n"
		"DA:3,0\nDA:7,5\nLF:2\nLH:1\nend_of_record\n"
		"TN:t\nSF:/b.c\nFN:9,main\nFNDA:3,main\nFNF:1\nFNH:1\nBRF:0\nBRH:0\n"
		"DA:9,3\nLF:1\nLH:1\nend_of_record\n";

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(out);
	/* group 1: /b.c, then /a.c (its functions by address: zeta first) */
	b = cov_merge_file(m, "/b.c");
	ck_assert_int_ge(b, 0);
	ck_assert_int_eq(cov_merge_fn(m, b, 9, "main", 1), 0);
	ck_assert_int_eq(cov_merge_da(m, b, 9, 1), 0);
	a = cov_merge_file(m, "/a.c");
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(cov_merge_fn(m, a, 3, "zeta", 0), 0);
	ck_assert_int_eq(cov_merge_fn(m, a, 6, "alpha", 2), 0);
	ck_assert_int_eq(cov_merge_br(m, a, 4, 0, 0, 0, true), 0);
	ck_assert_int_eq(cov_merge_br(m, a, 4, 0, 1, 0, true), 0);
	ck_assert_int_eq(cov_merge_da(m, a, 3, 0), 0);
	ck_assert_int_eq(cov_merge_da(m, a, 7, 2), 0);
	/* group 2: the same files again */
	b2 = cov_merge_file(m, "/b.c");
	ck_assert_int_eq(b2, b);
	ck_assert_int_eq(cov_merge_fn(m, b2, 9, "main", 2), 0);
	ck_assert_int_eq(cov_merge_da(m, b2, 9, 2), 0);
	ck_assert_int_eq(cov_merge_fn(m, a, 7, "alpha", 3), 0);
	ck_assert_int_eq(cov_merge_br(m, a, 4, 0, 0, 0, true), 0);
	ck_assert_int_eq(cov_merge_br(m, a, 4, 0, 1, 2, false), 0);
	ck_assert_int_eq(cov_merge_da(m, a, 7, 3), 0);
	ck_assert_int_eq(cov_merge_write(m, out, NULL, "t", true), 0);
	fclose(out);
	ck_assert_str_eq(text, want);
	free(text);
	cov_merge_free(m);

	/* one group whose file has a name twice (a static inline function
	 * of a header, at two addresses): one function, the larger line */
	m = cov_merge_alloc();
	text = NULL;
	out = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(out);
	a = cov_merge_file(m, "/h.h");
	ck_assert_int_eq(cov_merge_fn(m, a, 3, "zeta", 1), 0);
	ck_assert_int_eq(cov_merge_fn(m, a, 7, "alpha", 0), 0);
	ck_assert_int_eq(cov_merge_fn(m, a, 5, "zeta", 2), 0);
	ck_assert_int_eq(cov_merge_write(m, out, NULL, "", true), 0);
	fclose(out);
	ck_assert_str_eq(text, "TN:\nSF:/h.h\nFN:5,zeta\nFN:7,alpha\nFNDA:3,zeta\n"
			 "FNDA:0,alpha\nFNF:2\nFNH:1\nBRF:0\nBRH:0\nLF:0\nLH:0\n"
			 "end_of_record\n");
	free(text);
	cov_merge_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt_cov");
	TCase *tc = tcase_create("cov");

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, real_edges_and_hash, 0, REAL_NTRACES);
	tcase_add_loop_test(tc, real_blocks, 0, REAL_NTRACES);
	tcase_add_loop_test(tc, real_block_lens, 0, REAL_NTRACES);
	tcase_add_test(tc, truncated_edges);
	tcase_add_test(tc, synth_ovf_in_tnt_run);
	tcase_add_test(tc, synth_tsx_abort);
	tcase_add_test(tc, synth_32bit);
	tcase_add_test(tc, synth_far);
	tcase_add_test(tc, synth_mode_in_psb_cross_trace);
	tcase_add_test(tc, synth_pgd_ip_1);
	tcase_add_test(tc, real_mode_in_psb_cross_trace);
	tcase_add_test(tc, synth_compressed_ret);
	tcase_add_test(tc, erratum_bdm64);
	tcase_add_test(tc, erratum_skd022);
	tcase_add_test(tc, erratum_skl014);
	tcase_add_test(tc, erratum_skd010);
	tcase_add_test(tc, erratum_apl11);
	tcase_add_test(tc, chunk_in_call_stack);
	tcase_add_test(tc, chunk_after_ovf);
	tcase_add_test(tc, chunk_between_pgd_pge);
	tcase_add_test(tc, chunk_psb_fup_only);
	tcase_add_test(tc, missing_page);
	tcase_add_test(tc, missing_pages_in_order);
	tcase_add_test(tc, insn_at);
	tcase_add_test(tc, mutations);
	tcase_add_test(tc, elf_image);
	tcase_add_test(tc, api_errors);
	tcase_add_loop_test(tc, real_flow_indices, 0, REAL_NTRACES);
	tcase_add_loop_test(tc, real_edges_dst, 0, REAL_NTRACES);
	tcase_add_test(tc, flow_zero_count_edges);
	tcase_add_test(tc, sorted_idx_stable);
	tcase_add_test(tc, merge_records);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
