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

/* A key and the index of its element (radix_idx()). */
struct kv {
	uint64_t k;
	uint64_t i;
};

/*
 * Sort the @n indices at @idx stably by the uint64_t at byte @off of
 * element idx[i] of @base (elements of @size bytes): LSD radix over
 * (key, index) pairs copied out once, a byte a pass, the histograms of all
 * eight bytes counted in one read, passes where every key has the same
 * byte skipped (addresses share their high bytes). Linear in @n: no
 * comparison sort on the way from edges to lines. Returns 0 or -1
 * (ENOMEM).
 */
static int radix_idx(uint32_t *idx, size_t n, const void *base, size_t size,
		     size_t off)
{
	struct kv *a = malloc((n ? n : 1) * 2 * sizeof(*a)), *b = a + n;
	const uint8_t *p = base;
	size_t (*cnt)[256] = calloc(8, sizeof(*cnt));

	if (!a || !cnt) {
		free(a);
		free(cnt);
		return -1;
	}
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
static void walk(const struct flow_in *w, uint64_t a, struct shape *s)
{
	struct lpt_cov_block b;
	struct lpt_cov_insn in;

	memset(s, 0, sizeof(*s));
	/* the decoder's block: the same walk, unless it would differ (a #UD
	 * in it, a longer block, another filter range adjoining) */
	if (w->cov && lpt_cov_block_at(w->cov, a, 64, &b) == 1 &&
	    b.ninsn <= COV_BLOCK_MAX && !(b.flags & LPT_COV_BLOCK_F_UD) &&
	    (b.stop != LPT_COV_STOP_FILTER || !in_filter(w->cfg, b.end))) {
		s->n = b.ninsn;
		s->end = b.end;
		s->nomap = b.stop == LPT_COV_STOP_NOMAP;
		if (b.stop == LPT_COV_STOP_BRANCH) {
			s->kind = b.kind;
			s->last = b.branch;
			s->len = (uint8_t)(b.end - b.branch);
		}
		return;
	}
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
			break;
		}
	}
	s->end = a;
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
							       .count = c, .ninsn = s.n }))
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

/* One distinct edge source, decoded once. */
struct src {
	uint64_t out;		/* the edges leaving it */
	struct lpt_cov_insn in;
	bool ok;		/* @in decoded */
};

/* Records of instructions, summed by address (insns()). */
struct recs {
	struct cov_insn *r;
	size_t n, cap;
};

static struct cov_insn *rec_new(struct recs *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 4096;
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

/*
 * Every executed instruction with its counts (f->insn): the instructions
 * of every block with its count, the entries into each edge destination
 * (@rs holds them: count 0), the edge sources (count 0); summed by
 * address; a branch runs at least as often as edges leave it; those that
 * ran, sorted by address. Each block's code is decoded once here.
 */
static int insns(struct cov_flow *f, struct recs *rs, const struct flow_in *w,
		 const struct src *srcs, const uint64_t *saddr, size_t nsrc)
{
	struct lpt_cov_insn in;

	for (size_t i = 0; i < nsrc; i++) {
		struct cov_insn *x;

		if (!srcs[i].ok)
			continue;
		x = rec_new(rs);
		if (!x)
			return -1;
		rec_set(x, &srcs[i].in);
	}
	for (size_t i = 0; i < f->nblk; i++) {
		const struct cov_block *b = &f->blk[i];
		uint64_t a = b->start;

		for (uint32_t k = 0; k < b->ninsn; k++, a += in.len) {
			struct cov_insn *x;

			if (lpt_cov_insn_at(w->img, a, 64, &in))
				break;
			x = rec_new(rs);
			if (!x)
				return -1;
			rec_set(x, &in);
			x->count = b->count;
		}
	}
	uint32_t *idx = sorted_idx(rs->n, rs->r, sizeof(*rs->r), offsetof(struct cov_insn, addr),
				   offsetof(struct cov_insn, addr));
	size_t o = 0, s = 0;

	f->insn = malloc((rs->n ? rs->n : 1) * sizeof(*f->insn));
	if (!idx || !f->insn) {
		free(idx);
		return -1;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct cov_insn *x = &rs->r[idx[i]];
		struct cov_insn *y = o ? &f->insn[o - 1] : NULL;

		if (y && y->addr == x->addr) {
			y->count += x->count;
			y->in_call += x->in_call;
			y->in_jump += x->in_jump;
			y->in_label += x->in_label;
			if (!y->len) {
				y->len = x->len;
				y->kind = x->kind;
				y->target = x->target;
			}
			continue;
		}
		f->insn[o++] = *x;
	}
	free(idx);
	/* a branch runs at least as often as edges leave it; then only the
	 * instructions that ran */
	size_t k = 0;

	for (size_t i = 0; i < o; i++) {
		struct cov_insn *x = &f->insn[i];

		while (s < nsrc && saddr[s] < x->addr)
			s++;
		if (s < nsrc && saddr[s] == x->addr && x->count < srcs[s].out)
			x->count = srcs[s].out;
		if (x->count && x->len)
			f->insn[k++] = *x;
	}
	f->ninsn = k;
	return 0;
}

int cov_flow_build(struct cov_flow *f, const struct lpt_cov_image *img,
		   const struct lpt_cov_config *cfg, const struct cov_edges *acc,
		   const uint64_t *entries, size_t nentries, const struct lpt_cov *cov,
		   bool want_insns)
{
	const struct flow_in w = { .img = img, .cfg = cfg, .cov = cov };
	struct btab bt = { 0 };
	struct recs rs = { 0 };
	struct src *srcs = NULL;
	uint64_t *saddr = NULL;
	uint32_t *esrc = NULL, *bydst = NULL;
	size_t nsrc = 0, cb = 0;

	memset(f, 0, sizeof(*f));
	/* the sources, each decoded once (the edges come sorted by source) */
	srcs = malloc((acc->n ? acc->n : 1) * sizeof(*srcs));
	saddr = malloc((acc->n ? acc->n : 1) * sizeof(*saddr));
	esrc = malloc((acc->n ? acc->n : 1) * sizeof(*esrc));
	if (!srcs || !saddr || !esrc)
		goto nomem;
	for (size_t i = 0; i < acc->n; i++) {
		const struct lpt_cov_edge *e = &acc->e[i];

		if (!nsrc || saddr[nsrc - 1] != e->src) {
			saddr[nsrc] = e->src;
			srcs[nsrc].out = 0;
			srcs[nsrc].ok = !lpt_cov_insn_at(img, e->src, 64, &srcs[nsrc].in);
			nsrc++;
		}
		srcs[nsrc - 1].out += e->count;
		esrc[i] = (uint32_t)(nsrc - 1);
	}
	/* edges by destination: one walk per distinct destination */
	bydst = sorted_idx(acc->n, acc->e, sizeof(*acc->e), offsetof(struct lpt_cov_edge, dst),
			   offsetof(struct lpt_cov_edge, dst));
	if (!bydst)
		goto nomem;
	for (size_t i = 0; i < acc->n;) {
		uint64_t d = acc->e[bydst[i]].dst, c = 0, ccall = 0, cjump = 0, clabel = 0;
		struct lpt_cov_insn din;
		struct cov_insn *x;
		struct shape s;
		size_t j;

		for (j = i; j < acc->n && acc->e[bydst[j]].dst == d; j++) {
			const struct lpt_cov_edge *e = &acc->e[bydst[j]];
			const struct src *sr = &srcs[esrc[bydst[j]]];
			uint8_t k = sr->in.kind;

			c += e->count;
			if (sr->ok && (k == LPT_COV_INSN_CALL || k == LPT_COV_INSN_CALL_IND))
				ccall += e->count;
			else if (!sr->ok || k != LPT_COV_INSN_RET)
				cjump += e->count;
			if (!sr->ok || (k != LPT_COV_INSN_RET && k != LPT_COV_INSN_CALL &&
					k != LPT_COV_INSN_CALL_IND &&
					!(k == LPT_COV_INSN_JCC && sr->in.addr + sr->in.len == d)))
				clabel += e->count;
		}
		i = j;
		/* the walk: every instruction from d to the first branch */
		walk(&w, d, &s);
		if (!s.n && lpt_cov_insn_at(img, d, 64, &din))
			continue;	/* no instruction at d */
		if (want_insns) {
			x = rec_new(&rs);
			if (!x)
				goto nomem;
			x->addr = d;
			if (!s.n)
				rec_set(x, &din);
			x->in_call = ccall;
			x->in_jump = cjump;
			x->in_label = clabel;
		}
		if (!s.n)
			continue;
		f->nomap += s.nomap;
		if (blk_push(f, &cb, (struct cov_block){ .start = d, .end = s.end, .count = c,
							 .ninsn = s.n }))
			goto nomem;
		if (s.kind != LPT_COV_INSN_OTHER && btab_add(&bt, &s, c))
			goto nomem;
	}
	free(bydst);
	bydst = NULL;
	if (enable_entries(f, &cb, &bt, &w, acc, entries, nentries))
		goto nomem;
	if (f->nblk)
		qsort(f->blk, f->nblk, sizeof(*f->blk), blk_cmp);
	if (want_insns && insns(f, &rs, &w, srcs, saddr, nsrc))
		goto nomem;
	free(rs.r);
	free(bt.e);
	free(srcs);
	free(saddr);
	free(esrc);
	return 0;
nomem:
	free(rs.r);
	free(bt.e);
	free(srcs);
	free(saddr);
	free(esrc);
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
	free(f->insn);
	free(f->blk);
	memset(f, 0, sizeof(*f));
}
