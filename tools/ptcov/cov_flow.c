// SPDX-License-Identifier: GPL-2.0
/*
 * Edges to instructions and blocks with execution counts (cov_flow.h).
 * The decode gives each distinct edge once with its count; the blocks are
 * the decoder's cached ones (lpt_cov_block_at()), decoded here only when
 * it lacks one; instructions (lcov) are decoded once per distinct address,
 * in one sweep of the blocks in address order, never per execution.
 */
#include "tools/ptcov/cov_flow.h"
#include "libpt/cov_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Longest block walked: straight-line code longer than this is cut. */
#define COV_BLOCK_MAX	65536u

/* A key and the index of its element (radix_idx()). */
struct kv {
	uint64_t k;
	uint64_t i;
};

/* A key less the smallest one, when they span less than 2^32, and the
 * index of its element (radix_idx32()). */
struct kv32 {
	uint32_t k;
	uint32_t i;
};

#define RADIX32_BITS	11u

/*
 * radix_idx() for keys spanning less than 2^32 (addresses of one program):
 * 8-byte pairs, 11-bit digits, only as many passes as the span's bits
 * need (two for a 4 MiB program). Returns 0 or -1 (ENOMEM).
 */
static int radix_idx32(uint32_t *idx, size_t n, const void *base, size_t size,
		       size_t off, uint64_t min, uint64_t span)
{
	struct kv32 *a = malloc((n ? n : 1) * 2 * sizeof(*a)), *b;
	const uint8_t *p = base;
	size_t cnt[1u << RADIX32_BITS];
	unsigned int bits = 0;

	if (!a)
		return -1;
	b = a + n;
	while (bits < 32 && (span >> bits))
		bits++;
	for (size_t i = 0; i < n; i++) {
		uint64_t k;

		memcpy(&k, p + (size_t)idx[i] * size + off, sizeof(k));
		a[i] = (struct kv32){ (uint32_t)(k - min), idx[i] };
	}
	for (unsigned int sh = 0; sh < bits; sh += RADIX32_BITS) {
		size_t pos = 0;

		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(a[i].k >> sh) & ((1u << RADIX32_BITS) - 1)]++;
		for (size_t v = 0; v < (1u << RADIX32_BITS); v++) {
			size_t c = cnt[v];

			cnt[v] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			b[cnt[(a[i].k >> sh) & ((1u << RADIX32_BITS) - 1)]++] = a[i];
		struct kv32 *t = a;

		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = a[i].i;
	free(a < b ? a : b);
	return 0;
}

/* The key of element @i (radix_idx()). */
static inline uint64_t key_at(const void *base, size_t size, size_t off, uint32_t i)
{
	uint64_t k;

	memcpy(&k, (const uint8_t *)base + (size_t)i * size + off, sizeof(k));
	return k;
}

static int radix_idx(uint32_t *idx, size_t n, const void *base, size_t size,
		     size_t off);

/*
 * radix_idx() for keys far apart (a program's code and the libraries its
 * calls leave to: kAFL's traces filter a program, some of its edges go to
 * libc): the keys within 2^31 of the middle element's, when they are most,
 * by radix_idx32() (two passes for a program); those below and those above
 * them (few) by radix_idx(); the three side by side: stable as a whole.
 * Returns 0; 1 when most keys are not near the middle one (nothing done);
 * -1 (ENOMEM).
 */
static int radix_idx_split(uint32_t *idx, size_t n, const void *base, size_t size,
			   size_t off)
{
	uint64_t piv = key_at(base, size, off, idx[n / 2]);
	uint64_t lo = piv > (1ull << 31) ? piv - (1ull << 31) : 0;
	uint64_t hi = lo > UINT64_MAX - UINT32_MAX ? UINT64_MAX : lo + UINT32_MAX;
	uint64_t min = UINT64_MAX, max = 0;
	size_t nb = 0, nin = 0, ib, ii, ia;
	uint32_t *t;
	int r;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(base, size, off, idx[i]);

		if (k < lo) {
			nb++;
		} else if (k <= hi) {
			nin++;
			min = k < min ? k : min;
			max = k > max ? k : max;
		}
	}
	if (2 * nin <= n)
		return 1;
	t = malloc(n * sizeof(*t));
	if (!t)
		return -1;
	ib = 0;
	ii = nb;
	ia = nb + nin;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(base, size, off, idx[i]);

		if (k < lo)
			t[ib++] = idx[i];
		else if (k <= hi)
			t[ii++] = idx[i];
		else
			t[ia++] = idx[i];
	}
	r = radix_idx32(t + nb, nin, base, size, off, min, max - min);
	if (!r && nb)
		r = radix_idx(t, nb, base, size, off);
	if (!r && n - nb - nin)
		r = radix_idx(t + nb + nin, n - nb - nin, base, size, off);
	if (!r)
		memcpy(idx, t, n * sizeof(*idx));
	free(t);
	return r;
}

/*
 * Sort the @n indices at @idx stably by the uint64_t at byte @off of
 * element idx[i] of @base (elements of @size bytes): LSD radix over
 * (key, index) pairs copied out once, a byte a pass, the histograms of all
 * eight bytes counted in one read, passes where every key has the same
 * byte skipped (addresses share their high bytes); keys spanning less
 * than 2^32 by radix_idx32(), most keys near each other by
 * radix_idx_split(). Linear in @n: no
 * comparison sort on the way from edges to lines. Returns 0 or -1
 * (ENOMEM).
 */
static int radix_idx(uint32_t *idx, size_t n, const void *base, size_t size,
		     size_t off)
{
	uint64_t min = UINT64_MAX, max = 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_at(base, size, off, idx[i]);

		min = k < min ? k : min;
		max = k > max ? k : max;
	}
	if (n && max - min <= UINT32_MAX)
		return radix_idx32(idx, n, base, size, off, min, max - min);
	r = n ? radix_idx_split(idx, n, base, size, off) : 0;
	if (r <= 0)
		return r;

	struct kv *a = malloc((n ? n : 1) * 2 * sizeof(*a)), *b;
	const uint8_t *p = base;
	size_t (*cnt)[256] = calloc(8, sizeof(*cnt));

	if (!a || !cnt) {
		free(a);
		free(cnt);
		return -1;
	}
	b = a + n;
	for (size_t i = 0; i < n; i++) {
		uint64_t k;

		memcpy(&k, p + (size_t)idx[i] * size + off, sizeof(k));
		a[i] = (struct kv){ k, idx[i] };
		for (unsigned int d = 0; d < 8; d++)
			cnt[d][(k >> (8 * d)) & 0xff]++;
	}
	for (unsigned int d = 0; d < 8; d++) {
		size_t pos = 0;
		bool one = false;

		for (unsigned int v = 0; v < 256; v++) {
			size_t c = cnt[d][v];

			one |= c == n;
			cnt[d][v] = pos;
			pos += c;
		}
		if (one)
			continue;
		for (size_t i = 0; i < n; i++)
			b[cnt[d][(a[i].k >> (8 * d)) & 0xff]++] = a[i];
		struct kv *t = a;

		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)a[i].i;
	free(a < b ? a : b);
	free(cnt);
	return 0;
}

/* @idx = 0..n-1 sorted by the keys at @off1, then (first) @off0. */
static uint32_t *sorted_idx(size_t n, const void *base, size_t size, size_t off0,
			    size_t off1)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if ((off1 != off0 && radix_idx(idx, n, base, size, off1)) ||
	    radix_idx(idx, n, base, size, off0)) {
		free(idx);
		return NULL;
	}
	return idx;
}

uint32_t *cov_sorted_idx(size_t n, const void *base, size_t size, size_t off)
{
	return sorted_idx(n, base, size, off, off);
}

/* (src, dst) order. */
static int edge_cmp(const struct lpt_cov_edge *x, const struct lpt_cov_edge *y)
{
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* @e (@n of them) sorted by (src, dst) and distinct: a decode's edges
 * (lpt_cov_edges()). */
static bool edges_sorted(const struct lpt_cov_edge *e, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (edge_cmp(&e[i - 1], &e[i]) >= 0)
			return false;
	return true;
}

/* A sorted sum and a decode's sorted edges merged, equal edges summed:
 * linear in both (a test suite's captures repeat the same edges). 0, or
 * -1 without memory (nothing changed). */
static int edges_merge(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n)
{
	struct lpt_cov_edge *m = malloc((acc->n + n) * sizeof(*m));
	size_t i = 0, j = 0, o = 0;

	if (!m)
		return -1;
	while (i < acc->n || j < n) {
		int c = i == acc->n ? 1 : j == n ? -1 : edge_cmp(&acc->e[i], &e[j]);

		if (c < 0) {
			m[o++] = acc->e[i++];
		} else if (c > 0) {
			m[o++] = e[j++];
		} else {
			m[o] = acc->e[i++];
			m[o++].count += e[j++].count;
		}
	}
	free(acc->e);
	acc->e = m;
	acc->cap = acc->n + n;
	acc->n = acc->sorted = o;
	return 0;
}

int cov_edges_add(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n)
{
	acc->dblk = NULL;	/* a sum of decodes: no decoder's blocks */
	acc->dcov = NULL;
	if (acc->n && acc->sorted == acc->n && n && edges_sorted(e, n) &&
	    !edges_merge(acc, e, n))
		return 0;
	if (acc->n + n > acc->cap) {
		size_t cap = acc->cap ? acc->cap : 1024;
		struct lpt_cov_edge *ne;

		while (cap < acc->n + n)
			cap *= 2;
		/* compact first: many decodes of one program repeat edges */
		if (acc->n > 2 * acc->sorted && acc->n >= 4096 && !cov_edges_sort(acc) &&
		    acc->n + n <= acc->cap)
			goto copy;
		ne = realloc(acc->e, cap * sizeof(*ne));
		if (!ne) {
			errno = ENOMEM;
			return -1;
		}
		acc->e = ne;
		acc->cap = cap;
	}
copy:
	if (n)
		memcpy(acc->e + acc->n, e, n * sizeof(*e));
	/* the first decode's edges come sorted and distinct (lpt_cov_edges()) */
	if (acc->sorted == acc->n) {
		size_t i = acc->n ? acc->n : 1;

		for (; i < acc->n + n; i++) {
			const struct lpt_cov_edge *x = &acc->e[i - 1], *y = &acc->e[i];

			if (x->src > y->src || (x->src == y->src && x->dst >= y->dst))
				break;
		}
		if (i == acc->n + n)
			acc->sorted = acc->n + n;
	}
	acc->n += n;
	return 0;
}

int cov_edges_add_dst(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n,
		      const struct cov_blk *const *dst, const struct lpt_cov *c,
		      uint64_t gen)
{
	bool first = !acc->n;

	if (cov_edges_add(acc, e, n))
		return -1;
	if (first && acc->sorted == acc->n && dst && c) {
		acc->dblk = dst;
		acc->dcov = c;
		acc->dgen = gen;
	}
	return 0;
}

int cov_edges_sort(struct cov_edges *acc)
{
	struct lpt_cov_edge *s;
	uint32_t *idx;
	size_t o = 0;

	if (acc->sorted == acc->n)
		return 0;
	idx = sorted_idx(acc->n, acc->e, sizeof(*acc->e),
			 offsetof(struct lpt_cov_edge, src),
			 offsetof(struct lpt_cov_edge, dst));
	s = malloc(acc->cap * sizeof(*s));
	if (!idx || !s) {
		free(idx);
		free(s);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < acc->n; i++) {
		const struct lpt_cov_edge *e = &acc->e[idx[i]];

		if (o && s[o - 1].src == e->src && s[o - 1].dst == e->dst)
			s[o - 1].count += e->count;
		else
			s[o++] = *e;
	}
	free(idx);
	free(acc->e);
	acc->e = s;
	acc->n = acc->sorted = o;
	acc->dblk = NULL;
	acc->dcov = NULL;
	return 0;
}

void cov_edges_free(struct cov_edges *acc)
{
	free(acc->e);
	memset(acc, 0, sizeof(*acc));
}

static bool in_filter(const struct lpt_cov_config *cfg, uint64_t a)
{
	if (!cfg->nfilter)
		return true;
	for (uint32_t i = 0; i < cfg->nfilter; i++)
		if (a >= cfg->filter[i].start && a < cfg->filter[i].end)
			return true;
	return false;
}

/* What the code from an address to its first branch is. */
struct shape {
	uint64_t end;		/* the address after the last instruction */
	uint64_t last;		/* the branch (kind != OTHER) */
	uint32_t n;		/* instructions */
	uint8_t kind;		/* the last one's; OTHER: no branch ends it */
	uint8_t len;		/* the branch's length */
	bool nomap;		/* cut short by missing code */
	uint64_t target;	/* the branch's direct target, else 0 */
	const uint8_t *lens;	/* the decoder's lengths of the n
				 * instructions, or NULL */
};

struct flow_in {
	const struct lpt_cov_image *img;
	const struct lpt_cov_config *cfg;
	const struct lpt_cov *cov;
};

/*
 * Walk from @a to the first branch (or to missing code, an invalid
 * instruction, out of the filter ranges, COV_BLOCK_MAX instructions): the
 * decoder's cached block when it has one of that shape, else decoded here.
 */
static void walk_known(const struct flow_in *w, uint64_t a, struct shape *s,
		       bool known, const struct cov_blk *kb)
{
	struct lpt_cov_block b = { 0 };
	struct lpt_cov_insn in;
	int got;

	memset(s, 0, sizeof(*s));
	/* the decoder's block (@kb when @known: cov_edges_dst() found it,
	 * or found none: the cache is as it was then): the same walk, unless
	 * it would differ (a #UD in it, a longer block, another filter range
	 * adjoining) */
	if (known) {
		got = kb != NULL;
		if (kb)
			cov_blk_lens(kb, &b, &s->lens);
	} else {
		got = w->cov ? lpt_cov_block_lens(w->cov, a, 64, &b, &s->lens) : 0;
	}
	if (got == 1 && b.ninsn <= COV_BLOCK_MAX && !(b.flags & LPT_COV_BLOCK_F_UD) &&
	    (b.stop != LPT_COV_STOP_FILTER || !in_filter(w->cfg, b.end))) {
		s->n = b.ninsn;
		s->end = b.end;
		s->nomap = b.stop == LPT_COV_STOP_NOMAP;
		if (b.stop == LPT_COV_STOP_BRANCH) {
			s->kind = b.kind;
			s->last = b.branch;
			s->len = (uint8_t)(b.end - b.branch);
			s->target = b.target;
		}
		return;
	}
	s->lens = NULL;
	while (s->n < COV_BLOCK_MAX && in_filter(w->cfg, a)) {
		int err = lpt_cov_insn_at(w->img, a, 64, &in);

		if (err) {
			s->nomap = err == LPT_ERR_COV_NOMAP;
			break;
		}
		s->n++;
		a += in.len;
		if (in.kind != LPT_COV_INSN_OTHER) {
			s->kind = in.kind;
			s->last = in.addr;
			s->len = in.len;
			s->target = in.target;
			break;
		}
	}
	s->end = a;
}

static void walk(const struct flow_in *w, uint64_t a, struct shape *s)
{
	walk_known(w, a, s, false, NULL);
}

/* Branches (the last instructions of walks) with the counts walks gave
 * them: open addressing on the address. */
struct bent {
	uint64_t addr, count;
	uint8_t kind, len, used;
};

struct btab {
	struct bent *e;
	size_t mask, n;
};

static uint64_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

static const struct bent *btab_find(const struct btab *t, uint64_t addr)
{
	if (!t->e)
		return NULL;
	for (size_t j = hash64(addr) & t->mask; t->e[j].used; j = (j + 1) & t->mask)
		if (t->e[j].addr == addr)
			return &t->e[j];
	return NULL;
}

/* Add @c to the branch of @s; -1 when out of memory. */
static int btab_add(struct btab *t, const struct shape *s, uint64_t c)
{
	size_t j;

	if (!t->e || 2 * (t->n + 1) > t->mask + 1) {
		size_t cap = t->e ? 2 * (t->mask + 1) : 1024;
		struct bent *n = calloc(cap, sizeof(*n));

		if (!n)
			return -1;
		for (size_t i = 0; t->e && i <= t->mask; i++) {
			if (!t->e[i].used)
				continue;
			for (j = hash64(t->e[i].addr) & (cap - 1); n[j].used; j = (j + 1) & (cap - 1))
				;
			n[j] = t->e[i];
		}
		free(t->e);
		t->e = n;
		t->mask = cap - 1;
	}
	for (j = hash64(s->last) & t->mask; t->e[j].used && t->e[j].addr != s->last;
	     j = (j + 1) & t->mask)
		;
	if (!t->e[j].used) {
		t->e[j] = (struct bent){ .addr = s->last, .kind = s->kind, .len = s->len,
					 .used = 1 };
		t->n++;
	}
	t->e[j].count += c;
	return 0;
}

static int blk_push(struct cov_flow *f, size_t *cb, struct cov_block b)
{
	if (f->nblk == *cb) {
		size_t ncap = *cb ? 2 * *cb : 256;
		struct cov_block *nbk = realloc(f->blk, ncap * sizeof(*nbk));

		if (!nbk)
			return -1;
		f->blk = nbk;
		*cb = ncap;
	}
	f->blk[f->nblk++] = b;
	return 0;
}

/* The edges leaving @src: their count. */
static uint64_t out_count(const struct cov_edges *acc, uint64_t src)
{
	size_t lo = 0, hi = acc->n;
	uint64_t out = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (acc->e[mid].src < src)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < acc->n && acc->e[lo].src == src; lo++)
		out += acc->e[lo].count;
	return out;
}

/* How often code entered at @a without an edge must have run: the times
 * edges leave the branch its walk reaches beyond the times walks reached
 * it; through far transfers without edges (system calls) to the
 * instruction after them. */
static uint64_t need(const struct flow_in *w, const struct btab *bt,
		     const struct cov_edges *acc, uint64_t a, unsigned int depth)
{
	const struct bent *x;
	struct shape s;
	uint64_t out, have;

	walk(w, a, &s);
	if (!s.n || s.kind == LPT_COV_INSN_OTHER)
		return 0;
	out = out_count(acc, s.last);
	if (!out && s.kind == LPT_COV_INSN_FAR && depth < 8)
		return need(w, bt, acc, s.last + s.len, depth + 1);
	x = btab_find(bt, s.last);
	have = x ? x->count : 0;
	return out > have ? out - have : 0;
}

static int bent_cmp(const void *a, const void *b)
{
	const struct bent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Code entered without an edge: where tracing was enabled (TIP.PGE: the
 * start of the trace, the return from a system call when only user mode
 * is traced). A candidate entry (@entries: the programs' entry points;
 * and the instruction after every executed far transfer, in address
 * order) whose walk reaches a branch that edges leave more often than the
 * walks reached it gets a block with the difference (at most the far
 * transfer's count).
 */
static int enable_entries(struct cov_flow *f, size_t *cb, struct btab *bt,
			  const struct flow_in *w, const struct cov_edges *acc,
			  const uint64_t *entries, size_t nentries)
{
	struct bent *far = malloc((bt->n + 1) * sizeof(*far));
	uint64_t *cand = NULL, *cap = NULL;
	size_t n = 0, nfar = 0;
	int ret = -1;

	if (!far)
		return -1;
	for (size_t i = 0; bt->e && i <= bt->mask; i++)
		if (bt->e[i].used && bt->e[i].count && bt->e[i].kind == LPT_COV_INSN_FAR)
			far[nfar++] = bt->e[i];
	if (nfar > 1)
		qsort(far, nfar, sizeof(*far), bent_cmp);
	cand = malloc((nentries + nfar + 1) * sizeof(*cand));
	cap = malloc((nentries + nfar + 1) * sizeof(*cap));
	if (!cand || !cap)
		goto out;
	for (size_t i = 0; i < nentries; i++) {
		cand[n] = entries[i];
		cap[n++] = UINT64_MAX;
	}
	for (size_t i = 0; i < nfar; i++) {
		cand[n] = far[i].addr + far[i].len;
		cap[n++] = far[i].count;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t c = need(w, bt, acc, cand[i], 0);
		struct shape s;

		if (c > cap[i])
			c = cap[i];
		if (!c)
			continue;
		walk(w, cand[i], &s);
		if (!s.n || blk_push(f, cb, (struct cov_block){ .start = cand[i], .end = s.end,
							       .count = c, .ninsn = s.n,
							       .kind = s.kind, .blen = s.len,
							       .target = s.target,
							       .lens = s.lens }))
			goto out;
		if (s.kind != LPT_COV_INSN_OTHER && btab_add(bt, &s, c))
			goto out;
		/* a far transfer again (system call after system call): the
		 * instruction after it, entered as often */
		if (s.kind == LPT_COV_INSN_FAR) {
			uint64_t *nc = realloc(cand, (n + 1) * sizeof(*nc));
			uint64_t *np = nc ? realloc(cap, (n + 1) * sizeof(*np)) : NULL;

			if (nc)
				cand = nc;
			if (!np)
				goto out;
			cap = np;
			cand[n] = s.last + s.len;
			cap[n++] = c;
		}
	}
	ret = 0;
out:
	free(far);
	free(cand);
	free(cap);
	return ret;
}

static int blk_cmp(const void *a, const void *b)
{
	const struct cov_block *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * f->blk in blk_cmp()'s order, stably, when the blocks from @p on (those
 * of trace-enable entries: few) broke it: those sorted alone, then
 * merged with the first @p (in start order: one per edge destination,
 * walked in order) from the end, a linear pass, not a sort of all. 0, or
 * -1 (ENOMEM).
 */
static int blk_order(struct cov_flow *f, size_t p)
{
	size_t nt = f->nblk - p, a = p, b = nt, n = f->nblk;
	struct cov_block *t;
	bool sorted = true;

	for (size_t i = 1; i < f->nblk && sorted; i++)
		sorted = blk_cmp(&f->blk[i - 1], &f->blk[i]) <= 0;
	if (sorted)
		return 0;
	t = malloc(nt * sizeof(*t));
	if (!t)
		return -1;
	if (nt <= 32) {		/* by insertion */
		memcpy(t, &f->blk[p], nt * sizeof(*t));
		for (size_t i = 1; i < nt; i++) {
			struct cov_block x = t[i];
			size_t j = i;

			for (; j > 0 && blk_cmp(&t[j - 1], &x) > 0; j--)
				t[j] = t[j - 1];
			t[j] = x;
		}
	} else {		/* many system call sites: a radix sort */
		uint32_t *idx = sorted_idx(nt, &f->blk[p], sizeof(*t),
					   offsetof(struct cov_block, start),
					   offsetof(struct cov_block, end));

		if (!idx) {
			free(t);
			return -1;
		}
		for (size_t i = 0; i < nt; i++)
			t[i] = f->blk[p + idx[i]];
		free(idx);
	}
	/* the first @p may be out of order only if blocks overlap there:
	 * then all of them, as before */
	for (size_t i = 1; i < p; i++) {
		if (blk_cmp(&f->blk[i - 1], &f->blk[i]) > 0) {
			free(t);
			qsort(f->blk, f->nblk, sizeof(*f->blk), blk_cmp);
			return 0;
		}
	}
	while (b) {		/* on equal blocks the first @p first */
		if (a && blk_cmp(&f->blk[a - 1], &t[b - 1]) > 0)
			f->blk[--n] = f->blk[--a];
		else
			f->blk[--n] = t[--b];
	}
	free(t);
	return 0;
}

/* Instructions, growing (struct cov_flow's insn). */
struct recs {
	struct cov_insn *r;
	size_t n, cap;
};

static struct cov_insn *rec_new(struct recs *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 256;
		struct cov_insn *n = realloc(rs->r, cap * sizeof(*n));

		if (!n)
			return NULL;
		rs->r = n;
		rs->cap = cap;
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	return &rs->r[rs->n++];
}

static void rec_set(struct cov_insn *x, const struct lpt_cov_insn *in)
{
	x->addr = in->addr;
	x->len = in->len;
	x->kind = in->kind;
	x->target = in->target;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct cov_insn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index of @addr in the @n sorted instructions at @x, or -1. */
static long insn_index(const struct cov_insn *x, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && x[lo].addr == addr ? (long)lo : -1;
}

/*
 * The instructions of the blocks (f->blk, in start order) with their
 * counts, sorted and distinct, into @rs, without a sort in the usual case:
 * blocks either follow each other or one starts on an instruction of one
 * before it and runs on with the instructions there (code entered in the
 * middle of a block: the same instructions, to the same branch); a
 * block's code is decoded once (lpt_cov_insns_at()). Returns 1, with @rs
 * empty, when blocks overlap in another way (a jump into the middle of an
 * instruction); 0 done; -1 out of memory. @first[i] and @last[i] (0 done):
 * the index of block i's first and last instruction (COV_NO_INSN: none).
 */
static int block_insns_sweep(const struct cov_flow *f, struct recs *rs,
			     const struct flow_in *w, uint32_t *first, uint32_t *last)
{
	struct lpt_cov_insn *code = NULL;
	size_t total = 1, o = 0, ncode = 0;
	struct cov_insn *out;

	for (size_t i = 0; i < f->nblk; i++)
		total += f->blk[i].ninsn;
	out = malloc(total * sizeof(*out));
	if (!out)
		return -1;
	for (size_t i = 0; i < f->nblk; i++) {
		const struct cov_block *b = &f->blk[i];
		uint64_t a = b->start;
		uint32_t k = 0;

		first[i] = (uint32_t)o;
		last[i] = COV_NO_INSN;
		if (o && a < out[o - 1].addr + out[o - 1].len) {
			long p = insn_index(out, o, a);

			if (p < 0)
				goto other;
			first[i] = (uint32_t)p;
			for (; k < b->ninsn && (size_t)p < o; k++, p++) {
				if (out[p].addr != a)
					goto other;
				out[p].count += b->count;
				a += out[p].len;
				last[i] = (uint32_t)p;
			}
		}
		if (k == b->ninsn)
			continue;
		if (b->lens) {
			/* the decoder's lengths: nothing decoded again; a
			 * block's instructions but its last are no branch
			 * (walk() takes no block with a #UD inside) */
			for (; k < b->ninsn; k++) {
				out[o] = (struct cov_insn){ .addr = a, .len = b->lens[k],
							    .count = b->count };
				a += b->lens[k];
				o++;
			}
			out[o - 1].kind = b->kind;
			out[o - 1].target = b->target;
			last[i] = (uint32_t)(o - 1);
			continue;
		}
		/* the rest of the block, its code read once */
		if (b->ninsn - k > ncode) {
			struct lpt_cov_insn *nc = realloc(code, (b->ninsn - k) * sizeof(*nc));

			if (!nc)
				goto nomem;
			code = nc;
			ncode = b->ninsn - k;
		}
		long got = lpt_cov_insns_at(w->img, a, 64, code, b->ninsn - k);

		for (long j = 0; j < got; j++) {
			memset(&out[o], 0, sizeof(out[o]));
			rec_set(&out[o], &code[j]);
			out[o++].count = b->count;
		}
		if (got > 0)
			last[i] = (uint32_t)(o - 1);
	}
	free(code);
	rs->r = out;
	rs->n = o;
	rs->cap = total;
	return 0;
other:
	free(code);
	free(out);
	return 1;
nomem:
	free(code);
	free(out);
	return -1;
}

/* block_insns_sweep() for any overlap: every block's instructions, sorted
 * and summed by address. */
static int block_insns_sorted(const struct cov_flow *f, struct recs *rs,
			      const struct flow_in *w)
{
	struct recs all = { 0 };
	struct lpt_cov_insn in;
	uint32_t *idx;

	for (size_t i = 0; i < f->nblk; i++) {
		const struct cov_block *b = &f->blk[i];
		uint64_t a = b->start;

		for (uint32_t k = 0; k < b->ninsn; k++, a += in.len) {
			struct cov_insn *x;

			if (lpt_cov_insn_at(w->img, a, 64, &in))
				break;
			x = rec_new(&all);
			if (!x)
				goto nomem;
			rec_set(x, &in);
			x->count = b->count;
		}
	}
	idx = sorted_idx(all.n, all.r, sizeof(*all.r), offsetof(struct cov_insn, addr),
			 offsetof(struct cov_insn, addr));
	if (!idx)
		goto nomem;
	for (size_t i = 0; i < all.n; i++) {
		const struct cov_insn *x = &all.r[idx[i]];
		struct cov_insn *y = rs->n ? &rs->r[rs->n - 1] : NULL;

		if (y && y->addr == x->addr) {
			y->count += x->count;
			continue;
		}
		y = rec_new(rs);
		if (!y) {
			free(idx);
			goto nomem;
		}
		*y = *x;
	}
	free(idx);
	free(all.r);
	return 0;
nomem:
	free(all.r);
	return -1;
}

/* f->e_src and f->e_dst: the edges (sorted by source; @bydst by
 * destination) met with the instructions in address order. 0 or -1
 * (ENOMEM). */
static int edge_insns(struct cov_flow *f, const struct cov_edges *acc,
		      const uint32_t *bydst)
{
	size_t q = 0;

	f->e_src = malloc((acc->n ? acc->n : 1) * sizeof(*f->e_src));
	f->e_dst = malloc((acc->n ? acc->n : 1) * sizeof(*f->e_dst));
	if (!f->e_src || !f->e_dst)
		return -1;
	for (size_t i = 0; i < acc->n; i++) {
		uint64_t a = acc->e[i].src;

		while (q < f->ninsn && f->insn[q].addr < a)
			q++;
		f->e_src[i] = q < f->ninsn && f->insn[q].addr == a ? (uint32_t)q : COV_NO_INSN;
	}
	q = 0;
	for (size_t j = 0; j < acc->n; j++) {
		uint32_t i = bydst[j];
		uint64_t a = acc->e[i].dst;

		while (q < f->ninsn && f->insn[q].addr < a)
			q++;
		f->e_dst[i] = q < f->ninsn && f->insn[q].addr == a ? (uint32_t)q : COV_NO_INSN;
	}
	return 0;
}

/* One distinct edge source. */
struct src {
	uint64_t addr;
	uint64_t out;		/* the edges leaving it */
	uint8_t len, kind;	/* its instruction's */
	bool ok;		/* @len, @kind known */
	bool found;		/* among the blocks' instructions */
	uint32_t idx;		/* @found: its index among them */
};

/* insns(): a destination decoded apart (not among the blocks'
 * instructions); its index is found by address once all are in place */
#define COV_APART	(COV_NO_INSN - 1)

/*
 * The index in the final instructions of the one at @q among the blocks'
 * ones, the @m instructions decoded apart now at @fin (ascending) merged
 * in: @q plus those of them before it. *@t: how many of @fin are before
 * the last @q asked (start at 0, ask in ascending @q).
 */
static inline uint32_t remap(uint32_t q, const size_t *fin, size_t m, size_t *t)
{
	while (*t < m && fin[*t] <= q + *t)
		(*t)++;
	return (uint32_t)(q + *t);
}

/*
 * The index of the instruction at @a among the blocks' ones (@rs, swept
 * from f->blk in start order), through the blocks rather than a walk
 * over the records: the block that starts last at or before @a (*@bi, a
 * cursor: ask in ascending @a) names its instruction @at[block] (its
 * first, for a block's start; its last, for its branch); when that is not
 * the one at @a, a binary search. rs->n when none is at @a.
 */
static size_t rec_by_block(const struct recs *rs, const struct cov_flow *f,
			   const uint32_t *at, size_t *bi, uint64_t a)
{
	long p;

	while (*bi + 1 < f->nblk && f->blk[*bi + 1].start <= a)
		(*bi)++;
	if (*bi < f->nblk && f->blk[*bi].start <= a) {
		uint32_t q = at[*bi];

		if (q < rs->n && rs->r[q].addr == a)
			return q;
	}
	p = insn_index(rs->r, rs->n, a);
	return p < 0 ? rs->n : (size_t)p;
}

/* The index of @addr among @f's instructions, or COV_NO_INSN. */
static uint32_t insn_idx(const struct cov_flow *f, uint64_t addr)
{
	const struct cov_insn *x = cov_flow_find(f, addr);

	return x ? (uint32_t)(x - f->insn) : COV_NO_INSN;
}

/*
 * Every executed instruction with its counts (f->insn, sorted by address,
 * distinct): the blocks' instructions with the blocks' counts; on each edge
 * destination the entries by calls, jumps and labels (the edge sources'
 * kinds); the edge sources (code no block reached: the first branch of a
 * trace); a branch runs at least as often as edges leave it; those that
 * ran. Each instruction is decoded once; edges, sources and destinations
 * meet the instructions in address order, never through a hash table.
 */
static int insns(struct cov_flow *f, const struct flow_in *w, const struct cov_edges *acc,
		 const uint32_t *bydst)
{
	struct recs rs = { 0 }, extra = { 0 };
	struct src *srcs = malloc((acc->n ? acc->n : 1) * sizeof(*srcs));
	uint32_t *esrc = malloc((acc->n ? acc->n : 1) * sizeof(*esrc));
	/* per edge: its destination's index among the blocks' instructions
	 * (COV_APART, COV_NO_INSN); f->e_dst once remapped */
	uint32_t *pdst = malloc((acc->n ? acc->n : 1) * sizeof(*pdst));
	/* per block: the index of its first and of its last instruction */
	uint32_t *bfirst = malloc((f->nblk ? f->nblk : 1) * 2 * sizeof(*bfirst));
	uint32_t *blast = bfirst ? bfirst + f->nblk : NULL;
	size_t *fin = NULL;
	size_t nsrc = 0, q = 0, m = 0, bi = 0;
	bool zero = false, byblk;
	int r;

	if (!srcs || !esrc || !pdst || !bfirst)
		goto nomem;
	r = block_insns_sweep(f, &rs, w, bfirst, blast);
	byblk = !r;
	if (r > 0)
		r = block_insns_sorted(f, &rs, w);
	if (r < 0)
		goto nomem;
	/* the sources (the edges come sorted by source): their kinds from
	 * the instructions, decoded apart where no block reached them */
	for (size_t i = 0; i < acc->n; i++) {
		const struct lpt_cov_edge *e = &acc->e[i];

		if (!nsrc || srcs[nsrc - 1].addr != e->src) {
			struct src *s = &srcs[nsrc++];

			memset(s, 0, sizeof(*s));
			s->addr = e->src;
			if (byblk) {
				q = rec_by_block(&rs, f, blast, &bi, e->src);
			} else {
				while (q < rs.n && rs.r[q].addr < e->src)
					q++;
			}
			if (q < rs.n && rs.r[q].addr == e->src) {
				s->found = s->ok = true;
				s->idx = (uint32_t)q;
				s->len = rs.r[q].len;
				s->kind = rs.r[q].kind;
			} else {
				struct lpt_cov_insn in;

				s->ok = !lpt_cov_insn_at(w->img, e->src, 64, &in);
				s->len = in.len;
				s->kind = in.kind;
			}
		}
		srcs[nsrc - 1].out += e->count;
		esrc[i] = (uint32_t)(nsrc - 1);
	}
	/* the entries into each destination, in address order */
	q = 0;
	bi = 0;
	for (size_t i = 0; i < acc->n;) {
		uint64_t d = acc->e[bydst[i]].dst, ccall = 0, cjump = 0, clabel = 0;
		struct lpt_cov_insn din;
		struct cov_insn *x;
		size_t j;

		for (j = i; j < acc->n && acc->e[bydst[j]].dst == d; j++) {
			const struct lpt_cov_edge *e = &acc->e[bydst[j]];
			const struct src *sr = &srcs[esrc[bydst[j]]];
			uint8_t k = sr->kind;

			if (sr->ok && (k == LPT_COV_INSN_CALL || k == LPT_COV_INSN_CALL_IND))
				ccall += e->count;
			else if (!sr->ok || k != LPT_COV_INSN_RET)
				cjump += e->count;
			if (!sr->ok || (k != LPT_COV_INSN_RET && k != LPT_COV_INSN_CALL &&
					k != LPT_COV_INSN_CALL_IND &&
					!(k == LPT_COV_INSN_JCC && sr->addr + sr->len == d)))
				clabel += e->count;
		}
		if (byblk) {
			q = rec_by_block(&rs, f, bfirst, &bi, d);
		} else {
			while (q < rs.n && rs.r[q].addr < d)
				q++;
		}
		if (q < rs.n && rs.r[q].addr == d) {
			x = &rs.r[q];
			for (; i < j; i++)
				pdst[bydst[i]] = (uint32_t)q;
		} else {
			/* no block from here (out of the filter ranges): an
			 * instruction still, if one is there */
			int err = lpt_cov_insn_at(w->img, d, 64, &din);

			for (; i < j; i++)
				pdst[bydst[i]] = err ? COV_NO_INSN : COV_APART;
			if (err)
				continue;
			x = rec_new(&extra);
			if (!x)
				goto nomem;
			rec_set(x, &din);
		}
		x->in_call += ccall;
		x->in_jump += cjump;
		x->in_label += clabel;
	}
	for (size_t i = 0; i < nsrc; i++) {
		struct lpt_cov_insn in;
		struct cov_insn *x;

		/* no block reached it (the first branch of a trace): few,
		 * decoded again here for the target */
		if (srcs[i].found || !srcs[i].ok ||
		    lpt_cov_insn_at(w->img, srcs[i].addr, 64, &in))
			continue;
		x = rec_new(&extra);
		if (!x)
			goto nomem;
		rec_set(x, &in);
	}
	/* a branch runs at least as often as edges leave it: the sources
	 * among the blocks' instructions by their index */
	for (size_t i = 0; i < nsrc; i++)
		if (srcs[i].found && rs.r[srcs[i].idx].count < srcs[i].out)
			rs.r[srcs[i].idx].count = srcs[i].out;
	/* a block entered 0 times leaves instructions that did not run */
	for (size_t i = 0; i < f->nblk && !zero; i++)
		zero = !f->blk[i].count;
	if (extra.n) {
		/* few: sorted, summed, merged in */
		size_t a, b, n, s = 0;

		qsort(extra.r, extra.n, sizeof(*extra.r), rec_cmp);
		for (size_t i = 0; i < extra.n; i++) {
			struct cov_insn *y = m ? &extra.r[m - 1] : NULL;

			if (y && y->addr == extra.r[i].addr) {
				y->in_call += extra.r[i].in_call;
				y->in_jump += extra.r[i].in_jump;
				y->in_label += extra.r[i].in_label;
				continue;
			}
			extra.r[m++] = extra.r[i];
		}
		/* the sources among them */
		for (size_t i = 0; i < m; i++) {
			struct cov_insn *y = &extra.r[i];

			while (s < nsrc && srcs[s].addr < y->addr)
				s++;
			if (s < nsrc && srcs[s].addr == y->addr && y->count < srcs[s].out)
				y->count = srcs[s].out;
			zero |= !y->count;
		}
		fin = malloc(m * sizeof(*fin));
		if (!fin)
			goto nomem;
		if (rs.n + m > rs.cap) {
			struct cov_insn *nr = realloc(rs.r, (rs.n + m) * sizeof(*nr));

			if (!nr)
				goto nomem;
			rs.r = nr;
			rs.cap = rs.n + m;
		}
		a = rs.n;
		b = m;
		n = rs.n + m;
		while (b) {
			if (a && rs.r[a - 1].addr > extra.r[b - 1].addr) {
				rs.r[--n] = rs.r[--a];
			} else {
				rs.r[--n] = extra.r[--b];
				fin[b] = n;
			}
		}
		rs.n += m;
	}
	if (!zero) {
		/* every instruction ran: the indices of the edges' sources
		 * and destinations from those found above, without a search
		 * (but for the few decoded apart) */
		size_t t = 0;

		f->insn = rs.r;
		f->ninsn = rs.n;
		f->e_src = malloc((acc->n ? acc->n : 1) * sizeof(*f->e_src));
		if (!f->e_src)
			goto nomem_kept;
		for (size_t i = 0; i < acc->n; i++) {
			const struct src *sr = &srcs[esrc[i]];

			f->e_src[i] = sr->found ? remap(sr->idx, fin, m, &t) : insn_idx(f, sr->addr);
		}
		t = 0;
		for (size_t j = 0; j < acc->n; j++) {
			uint32_t i = bydst[j];

			if (pdst[i] == COV_APART)
				pdst[i] = insn_idx(f, acc->e[i].dst);
			else if (pdst[i] != COV_NO_INSN)
				pdst[i] = remap(pdst[i], fin, m, &t);
		}
		f->e_dst = pdst;
		free(fin);
		free(extra.r);
		free(srcs);
		free(esrc);
		free(bfirst);
		return 0;
	}
	/* a branch runs at least as often as edges leave it; then only the
	 * instructions that ran */
	size_t k = 0, s = 0;

	for (size_t i = 0; i < rs.n; i++) {
		struct cov_insn *x = &rs.r[i];

		while (s < nsrc && srcs[s].addr < x->addr)
			s++;
		if (s < nsrc && srcs[s].addr == x->addr && x->count < srcs[s].out)
			x->count = srcs[s].out;
		if (!x->count)
			continue;
		if (k != i)
			rs.r[k] = *x;
		k++;
	}
	f->insn = rs.r;
	f->ninsn = k;
	if (edge_insns(f, acc, bydst))
		goto nomem_kept;
	free(pdst);
	free(fin);
	free(extra.r);
	free(srcs);
	free(esrc);
	free(bfirst);
	return 0;
nomem:
	free(rs.r);
nomem_kept:			/* f->insn is the caller's to free */
	free(pdst);
	free(fin);
	free(extra.r);
	free(srcs);
	free(esrc);
	free(bfirst);
	return -1;
}

int cov_flow_build(struct cov_flow *f, const struct lpt_cov_image *img,
		   const struct lpt_cov_config *cfg, const struct cov_edges *acc,
		   const uint64_t *entries, size_t nentries, const struct lpt_cov *cov,
		   bool want_insns)
{
	const struct flow_in w = { .img = img, .cfg = cfg, .cov = cov };
	struct btab bt = { 0 };
	uint32_t *bydst = NULL;
	size_t cb = 0, nedge;
	bool far = false;

	memset(f, 0, sizeof(*f));
	/* room for a block per distinct destination and entry: nothing
	 * grown on the way in the usual case */
	cb = acc->n + nentries + 1;
	f->blk = malloc(cb * sizeof(*f->blk));
	if (!f->blk)
		goto nomem;
	/* the destinations' blocks as the decoder handed them over, while
	 * its cache is as it was then */
	const struct cov_blk *const *dblk = acc->dblk && cov && acc->dcov == cov &&
					    cov_gen(cov) == acc->dgen ? acc->dblk : NULL;

	/* edges by destination: one walk per distinct destination */
	bydst = sorted_idx(acc->n, acc->e, sizeof(*acc->e), offsetof(struct lpt_cov_edge, dst),
			   offsetof(struct lpt_cov_edge, dst));
	if (!bydst)
		goto nomem;
	for (size_t i = 0; i < acc->n;) {
		uint64_t d = acc->e[bydst[i]].dst, c = 0;
		struct shape s;

		for (; i < acc->n && acc->e[bydst[i]].dst == d; i++)
			c += acc->e[bydst[i]].count;
		/* the walk: every instruction from d to the first branch */
		walk_known(&w, d, &s, dblk != NULL, dblk ? dblk[bydst[i - 1]] : NULL);
		if (!s.n)
			continue;
		f->nomap += s.nomap;
		if (blk_push(f, &cb, (struct cov_block){ .start = d, .end = s.end, .count = c,
							 .ninsn = s.n, .kind = s.kind,
							 .blen = s.len, .target = s.target,
							 .lens = s.lens }))
			goto nomem;
		far |= s.kind == LPT_COV_INSN_FAR;
	}
	nedge = f->nblk;
	/* code entered without an edge: only from an entry point or after a
	 * far transfer; the branches the blocks reached, with their counts,
	 * only then (sized for them all: nothing grown in the usual case) */
	if (nentries || far) {
		for (bt.mask = 1023; bt.mask + 1 < cb; bt.mask = 2 * bt.mask + 1)
			;
		bt.e = calloc(bt.mask + 1, sizeof(*bt.e));
		if (!bt.e)
			goto nomem;
		for (size_t i = 0; i < f->nblk; i++) {
			const struct cov_block *b = &f->blk[i];
			const struct shape s = { .last = b->end - b->blen, .kind = b->kind,
						 .len = b->blen };

			if (b->kind != LPT_COV_INSN_OTHER && btab_add(&bt, &s, b->count))
				goto nomem;
		}
		if (enable_entries(f, &cb, &bt, &w, acc, entries, nentries))
			goto nomem;
	}
	/* in start order already unless trace-enable entries added some */
	if (blk_order(f, nedge))
		goto nomem;
	if (want_insns && insns(f, &w, acc, bydst))
		goto nomem;
	for (size_t i = 0; i < f->nblk; i++)
		f->blk[i].lens = NULL;	/* the decoder's: may not live on */
	free(bt.e);
	free(bydst);
	return 0;
nomem:
	free(bt.e);
	free(bydst);
	cov_flow_free(f);
	errno = ENOMEM;
	return -1;
}

struct cov_insn *cov_flow_find(const struct cov_flow *f, uint64_t addr)
{
	size_t lo = 0, hi = f->ninsn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->insn[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->ninsn && f->insn[lo].addr == addr ? &f->insn[lo] : NULL;
}

void cov_flow_free(struct cov_flow *f)
{
	free(f->e_src);
	free(f->e_dst);
	free(f->insn);
	free(f->blk);
	memset(f, 0, sizeof(*f));
}
