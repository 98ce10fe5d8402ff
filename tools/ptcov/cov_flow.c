// SPDX-License-Identifier: GPL-2.0
/*
 * Edges to instructions and blocks with execution counts (cov_flow.h).
 * The decode gives each distinct edge once with its count; the code is
 * decoded here once per block, never per execution.
 */
#include "tools/ptcov/cov_flow.h"

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Longest block walked: straight-line code longer than this is cut. */
#define COV_BLOCK_MAX	65536u

/*
 * Sort the @n indices at @idx stably by the uint64_t at byte @off of
 * element idx[i] of @base (elements of @size bytes): LSD radix, a byte a
 * pass, passes where every key has the same byte skipped (addresses share
 * their high bytes). Linear in @n: no comparison sort on the way from
 * edges to lines. Returns 0 or -1 (ENOMEM).
 */
static int radix_idx(uint32_t *idx, size_t n, const void *base, size_t size,
		     size_t off)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *a = idx, *b = tmp;
	const uint8_t *p = base;
	size_t cnt[256];

	if (!tmp)
		return -1;
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t pos = 0;
		bool one = false;

		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < n; i++) {
			uint64_t k;

			memcpy(&k, p + (size_t)a[i] * size + off, sizeof(k));
			cnt[(k >> shift) & 0xff]++;
		}
		for (unsigned int d = 0; d < 256; d++) {
			size_t c = cnt[d];

			one |= c == n;
			cnt[d] = pos;
			pos += c;
		}
		if (one)
			continue;
		for (size_t i = 0; i < n; i++) {
			uint64_t k;

			memcpy(&k, p + (size_t)a[i] * size + off, sizeof(k));
			b[cnt[(k >> shift) & 0xff]++] = a[i];
		}
		uint32_t *t = a;

		a = b;
		b = t;
	}
	if (a != idx)
		memcpy(idx, a, n * sizeof(*idx));
	free(tmp);
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

int cov_edges_add(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n)
{
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
	acc->n += n;
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
	return 0;
}

void cov_edges_free(struct cov_edges *acc)
{
	free(acc->e);
	memset(acc, 0, sizeof(*acc));
}

/* Instructions by address: open addressing, then sorted at the end. */
struct itab {
	struct cov_insn *slot;
	size_t mask, n;
};

static uint64_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

static int itab_grow(struct itab *t)
{
	size_t cap = t->slot ? 2 * (t->mask + 1) : 4096;
	struct cov_insn *s = calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; t->slot && i <= t->mask; i++) {
		if (!t->slot[i].len)
			continue;
		size_t j = hash64(t->slot[i].addr) & (cap - 1);

		while (s[j].len)
			j = (j + 1) & (cap - 1);
		s[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->mask = cap - 1;
	return 0;
}

/* The entry of @addr (len 0: new, to fill), or NULL when out of memory. */
static struct cov_insn *itab_get(struct itab *t, uint64_t addr)
{
	size_t j;

	if ((!t->slot || 2 * (t->n + 1) > t->mask + 1) && itab_grow(t))
		return NULL;
	j = hash64(addr) & t->mask;
	while (t->slot[j].len && t->slot[j].addr != addr)
		j = (j + 1) & t->mask;
	if (!t->slot[j].len)
		t->slot[j].addr = addr;
	return &t->slot[j];
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

/* The instruction at @addr in @t, decoded on first use; NULL: no code
 * (*@err says which), or out of memory (*@err = LPT_ERR_NOMEM). */
static struct cov_insn *insn_get(struct itab *t, const struct lpt_cov_image *img,
				 uint64_t addr, int *err)
{
	struct cov_insn *x = itab_get(t, addr);
	struct lpt_cov_insn in;

	if (!x) {
		*err = LPT_ERR_NOMEM;
		return NULL;
	}
	if (x->len)
		return x;
	*err = lpt_cov_insn_at(img, addr, 64, &in);
	if (*err)
		return NULL;
	x->len = in.len;
	x->kind = in.kind;
	x->target = in.target;
	t->n++;
	return x;
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

/* Walk from @a to the first branch (as cov_flow_build()); add @c to each
 * instruction when @c. Returns the instructions walked (0: none), the
 * address after the last in *@end and the last in *@last; -1 for ENOMEM. */
static long walk(struct itab *t, const struct lpt_cov_image *img,
		 const struct lpt_cov_config *cfg, uint64_t a, uint64_t c,
		 uint64_t *end, struct cov_insn **last, unsigned long *nomap)
{
	uint32_t n = 0;
	struct cov_insn *x;
	int err;

	*last = NULL;
	while (n < COV_BLOCK_MAX && in_filter(cfg, a)) {
		x = insn_get(t, img, a, &err);
		if (!x) {
			if (err == LPT_ERR_NOMEM)
				return -1;
			if (err == LPT_ERR_COV_NOMAP && n && nomap)
				(*nomap)++;
			break;
		}
		x->count += c;
		n++;
		a += x->len;
		*last = x;
		if (x->kind != LPT_COV_INSN_OTHER)
			break;
	}
	*end = a;
	return n;
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
static uint64_t need(struct itab *t, const struct lpt_cov_image *img,
		     const struct lpt_cov_config *cfg, const struct cov_edges *acc,
		     uint64_t a, unsigned int depth)
{
	struct cov_insn *last;
	uint64_t end, out;
	long k = walk(t, img, cfg, a, 0, &end, &last, NULL);

	if (k <= 0 || !last || last->kind == LPT_COV_INSN_OTHER)
		return 0;
	out = out_count(acc, last->addr);
	if (!out && last->kind == LPT_COV_INSN_FAR && depth < 8)
		return need(t, img, cfg, acc, last->addr + last->len, depth + 1);
	return out > last->count ? out - last->count : 0;
}

/*
 * Code entered without an edge: where tracing was enabled (TIP.PGE: the
 * start of the trace, the return from a system call when only user mode
 * is traced). A candidate entry (@entries: the programs' entry points;
 * and the instruction after every executed far transfer) whose walk
 * reaches a branch that edges leave more often than the walks reached it
 * gets a block with the difference (at most the far transfer's count).
 */
static int enable_entries(struct cov_flow *f, size_t *cb, struct itab *t,
			  const struct lpt_cov_image *img,
			  const struct lpt_cov_config *cfg, const struct cov_edges *acc,
			  const uint64_t *entries, size_t nentries)
{
	uint64_t *cand = NULL;
	uint64_t *cap = NULL;
	size_t n = 0;
	int ret = -1;

	cand = malloc((nentries + t->n + 1) * sizeof(*cand));
	cap = malloc((nentries + t->n + 1) * sizeof(*cap));
	if (!cand || !cap)
		goto out;
	for (size_t i = 0; i < nentries; i++) {
		cand[n] = entries[i];
		cap[n++] = UINT64_MAX;
	}
	for (size_t i = 0; t->slot && i <= t->mask; i++) {
		const struct cov_insn *x = &t->slot[i];

		if (x->len && x->count && x->kind == LPT_COV_INSN_FAR) {
			cand[n] = x->addr + x->len;
			cap[n++] = x->count;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct cov_insn *last;
		uint64_t end, c = need(t, img, cfg, acc, cand[i], 0);
		long k;

		if (c > cap[i])
			c = cap[i];
		if (!c)
			continue;
		k = walk(t, img, cfg, cand[i], c, &end, &last, NULL);
		if (k <= 0 || blk_push(f, cb, (struct cov_block){ .start = cand[i], .end = end,
								  .count = c,
								  .ninsn = (uint32_t)k }))
			goto out;
		/* a far transfer again (system call after system call): the
		 * instruction after it, entered as often */
		if (last && last->kind == LPT_COV_INSN_FAR) {
			uint64_t *nc = realloc(cand, (n + 1) * sizeof(*nc));
			uint64_t *np = nc ? realloc(cap, (n + 1) * sizeof(*np)) : NULL;

			if (nc)
				cand = nc;
			if (!np)
				goto out;
			cap = np;
			cand[n] = last->addr + last->len;
			cap[n++] = c;
		}
	}
	ret = 0;
out:
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

int cov_flow_build(struct cov_flow *f, const struct lpt_cov_image *img,
		   const struct lpt_cov_config *cfg, const struct cov_edges *acc,
		   const uint64_t *entries, size_t nentries)
{
	struct itab t = { 0 };
	size_t cb = 0;
	int err;

	memset(f, 0, sizeof(*f));
	/* room for some 4 instructions per edge without growing */
	while ((t.mask + 1) / 2 < 4 * acc->n && t.mask < (1u << 26))
		t.mask = t.mask ? 2 * t.mask + 1 : 4095;
	if (t.mask) {
		t.slot = calloc(t.mask + 1, sizeof(*t.slot));
		if (!t.slot)
			return -1;
	}
	/* edges by destination: one walk per distinct destination */
	uint32_t *bydst = sorted_idx(acc->n, acc->e, sizeof(*acc->e),
				     offsetof(struct lpt_cov_edge, dst),
				     offsetof(struct lpt_cov_edge, dst));

	if (!bydst) {
		free(t.slot);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < acc->n;) {
		uint64_t d = acc->e[bydst[i]].dst, c = 0, ccall = 0, cjump = 0, clabel = 0;
		size_t j;

		for (j = i; j < acc->n && acc->e[bydst[j]].dst == d; j++) {
			const struct lpt_cov_edge *e = &acc->e[bydst[j]];
			struct cov_insn *s = insn_get(&t, img, e->src, &err);

			if (!s && err == LPT_ERR_NOMEM)
				goto nomem;
			c += e->count;
			if (s && (s->kind == LPT_COV_INSN_CALL ||
				  s->kind == LPT_COV_INSN_CALL_IND))
				ccall += e->count;
			else if (!s || s->kind != LPT_COV_INSN_RET)
				cjump += e->count;
			if (!s || (s->kind != LPT_COV_INSN_RET && s->kind != LPT_COV_INSN_CALL &&
				   s->kind != LPT_COV_INSN_CALL_IND &&
				   !(s->kind == LPT_COV_INSN_JCC && s->addr + s->len == d)))
				clabel += e->count;
		}
		i = j;
		/* the walk: every instruction from d to the first branch */
		struct cov_insn *x = insn_get(&t, img, d, &err);
		struct cov_insn *last;
		uint64_t end;
		long n;

		if (!x) {
			if (err == LPT_ERR_NOMEM)
				goto nomem;
			continue;
		}
		x->in_call += ccall;
		x->in_jump += cjump;
		x->in_label += clabel;
		n = walk(&t, img, cfg, d, c, &end, &last, &f->nomap);
		if (n < 0)
			goto nomem;
		if (n && blk_push(f, &cb, (struct cov_block){ .start = d, .end = end,
							      .count = c,
							      .ninsn = (uint32_t)n }))
			goto nomem;
	}
	if (enable_entries(f, &cb, &t, img, cfg, acc, entries, nentries))
		goto nomem;
	if (f->nblk)
		qsort(f->blk, f->nblk, sizeof(*f->blk), blk_cmp);
	/* a branch runs at least as often as edges leave it */
	for (size_t i = 0; i < acc->n;) {
		uint64_t s = acc->e[i].src, out = 0;

		for (; i < acc->n && acc->e[i].src == s; i++)
			out += acc->e[i].count;
		struct cov_insn *x = insn_get(&t, img, s, &err);

		if (!x && err == LPT_ERR_NOMEM)
			goto nomem;
		if (x && x->count < out)
			x->count = out;
	}
	free(bydst);
	bydst = NULL;
	/* the table, dense and sorted */
	f->insn = malloc((t.n ? t.n : 1) * sizeof(*f->insn));
	if (!f->insn)
		goto nomem;
	for (size_t i = 0; t.slot && i <= t.mask; i++)
		if (t.slot[i].len && t.slot[i].count)
			f->insn[f->ninsn++] = t.slot[i];
	free(t.slot);
	t.slot = NULL;
	uint32_t *idx = sorted_idx(f->ninsn, f->insn, sizeof(*f->insn),
				   offsetof(struct cov_insn, addr),
				   offsetof(struct cov_insn, addr));
	struct cov_insn *sorted = malloc((f->ninsn ? f->ninsn : 1) * sizeof(*sorted));

	if (!idx || !sorted) {
		free(idx);
		free(sorted);
		goto nomem;
	}
	for (size_t i = 0; i < f->ninsn; i++)
		sorted[i] = f->insn[idx[i]];
	free(idx);
	free(f->insn);
	f->insn = sorted;
	return 0;
nomem:
	free(bydst);
	free(t.slot);
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
	free(f->insn);
	free(f->blk);
	memset(f, 0, sizeof(*f));
}
