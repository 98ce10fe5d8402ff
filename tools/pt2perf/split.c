// SPDX-License-Identifier: GPL-2.0
/* pt2perf: a system-wide capture as one trace per thread (split.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split.h"
#include "tools/ptflow/ptflow_resume.h"
#include "tools/ptflow/ptflow_split.h"

/* A span kept: where it is and whose it is. */
struct item {
	size_t piece, span;
	size_t level;
	uint32_t pid, tid;
	uint64_t lo;
};

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->piece != y->piece)
		return x->piece < y->piece ? -1 : 1;
	return x->span < y->span ? -1 : x->span > y->span;
}

/* A growing byte buffer. */
struct buf {
	uint8_t *b;
	size_t n, cap;
};

static bool put(struct buf *o, const uint8_t *p, size_t n)
{
	if (o->n + n > o->cap) {
		size_t nc = o->cap ? o->cap : 4096;
		uint8_t *nb;

		while (nc < o->n + n)
			nc *= 2;
		nb = realloc(o->b, nc);
		if (!nb)
			return false;
		o->b = nb;
		o->cap = nc;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
	return true;
}

/*
 * Append span @s of the piece at @buf (@len bytes) to @o, made decodable
 * on its own (split.h). Returns 1 when written, 0 when the span cannot
 * start a trace (counted in @st), -1 when out of memory.
 */
static int put_span(struct buf *o, const uint8_t *buf, size_t len,
		    const struct ptflow_span *s, struct p2p_split_stats *st)
{
	struct ptflow_resume r;
	int ret;

	if (s->end > len || s->end <= s->offset)
		return 0;
	switch (s->start) {
	case PTFLOW_START_PSB:	/* a PSB+ with tracing on: decodable as is */
		return put(o, buf + s->offset, s->end - s->offset) ? 1 : -1;
	case PTFLOW_START_OVF:	/* resuming needs the trace before the OVF */
		st->after_ovf++;
		return 0;
	case PTFLOW_START_PGE:
		break;
	}
	ret = ptflow_resume_build(buf, len, s->offset, 0, &r);
	if (ret < 0)
		return -1;
	if (!ret || r.target != s->offset || r.skip > s->end) {
		if (!ret)
			st->unsynced++;
		ptflow_resume_free(&r);
		return 0;
	}
	ret = put(o, r.buf, r.body) && put(o, buf + r.skip, s->end - r.skip) ? 1 : -1;
	ptflow_resume_free(&r);
	return ret;
}

/* The spans of every piece, their owners and generations. */
static int scan_all(const struct p2p_capture *cap, struct ptflow_spans *sp)
{
	struct lpt_time_config tc;
	size_t i, first;

	memset(&tc, 0, sizeof(tc));
	tc.mtc_freq = cap->cfg.mtc_freq;
	tc.nom_freq = cap->cfg.nom_freq;
	tc.cpuid_0x15_eax = cap->cfg.cpuid_15_eax;
	tc.cpuid_0x15_ebx = cap->cfg.cpuid_15_ebx;
	for (i = 0; i < cap->npieces; i++) {
		const struct p2p_piece *pc = &cap->pieces[i];
		const struct p2p_file *f = &cap->files[pc->file];
		size_t j;

		if (ptflow_spans_scan(f->data + pc->off, pc->len, &tc, &sp[i]))
			return -ENOMEM;
		for (j = 0; j < sp[i].n; j++)
			ptflow_split_owner(&cap->lv[f->level].sws, f->cpu, &sp[i].s[j]);
	}
	/* Exec generations, per level (its pieces are consecutive). */
	for (first = 0; first < cap->npieces; first = i) {
		const struct p2p_level *lv = &cap->lv[cap->files[cap->pieces[first].file].level];

		for (i = first; i < cap->npieces &&
		     cap->files[cap->pieces[i].file].level == cap->files[cap->pieces[first].file].level;
		     i++)
			;
		if (lv->procs.n && ptflow_split_gens(&lv->procs, sp + first, i - first))
			return -ENOMEM;
	}
	return 0;
}

int p2p_split_threads(struct p2p_capture *cap, struct p2p_split_stats *st, const char *prog)
{
	size_t nsp = cap->npieces;
	struct ptflow_spans *sp = calloc(nsp ? nsp : 1, sizeof(*sp));
	struct p2p_file *nf = NULL;
	struct p2p_piece *np = NULL;
	struct item *it = NULL;
	size_t nit = 0, nnf = 0, nnp = 0, i, j;
	int err = -ENOMEM;

	memset(st, 0, sizeof(*st));
	if (!sp || scan_all(cap, sp))
		goto out;
	for (i = 0; i < cap->npieces; i++)
		st->spans += sp[i].n;
	it = calloc(st->spans ? st->spans : 1, sizeof(*it));
	np = calloc(st->spans ? st->spans : 1, sizeof(*np));
	nf = calloc(st->spans ? st->spans : 1, sizeof(*nf));
	if (!it || !np || !nf)
		goto out;
	for (i = 0; i < cap->npieces; i++) {
		for (j = 0; j < sp[i].n; j++) {
			const struct ptflow_span *s = &sp[i].s[j];

			st->bytes += s->end - s->offset;
			if (s->kind != PTFLOW_OWNER_THREAD) {
				if ((size_t)s->kind < sizeof(st->why) / sizeof(st->why[0]))
					st->why[s->kind]++;
				continue;
			}
			it[nit++] = (struct item){ .piece = i, .span = j, .pid = s->pid,
				.tid = s->tid, .lo = s->lo,
				.level = cap->files[cap->pieces[i].file].level };
		}
	}
	qsort(it, nit, sizeof(*it), item_cmp);
	/* One file per level and thread, a piece per span. */
	for (i = 0; i < nit; i = j) {
		struct buf o = { 0 };
		struct p2p_file *f = &nf[nnf];

		for (j = i; j < nit && it[j].level == it[i].level && it[j].pid == it[i].pid &&
		     it[j].tid == it[i].tid; j++) {
			const struct p2p_piece *pc = &cap->pieces[it[j].piece];
			const uint8_t *b = cap->files[pc->file].data + pc->off;
			const struct ptflow_span *s = &sp[it[j].piece].s[it[j].span];
			size_t before = o.n;
			int ret = put_span(&o, b, pc->len, s, st);

			if (ret < 0) {
				free(o.b);
				goto out;
			}
			if (!ret)
				continue;
			st->kept++;
			st->kept_bytes += s->end - s->offset;
			np[nnp] = (struct p2p_piece){ .file = nnf, .off = before,
						      .len = o.n - before, .gen = s->gen };
			nnp++;
		}
		if (!o.n)
			continue;
		f->level = it[i].level;
		f->data = o.b;
		f->size = o.n;
		f->owned = true;
		f->pid = it[i].pid;
		f->tid = it[i].tid;
		f->cpu = UINT32_MAX;
		f->name = malloc(32);
		nnf++;
		if (!f->name)
			goto out;
		snprintf(f->name, 32, "tid%u", f->tid);
	}
	for (i = 0; i < nnp; i++)
		p2p_piece_scan(cap, nf[np[i].file].data, &np[i]);
	/* Queues: one per thread, numbered densely, shared by the levels. */
	for (i = 0; i < nnf; i++) {
		for (j = 0; j < i; j++)
			if (nf[j].pid == nf[i].pid && nf[j].tid == nf[i].tid)
				break;
		nf[i].queue = j < i ? nf[j].queue : (uint32_t)st->threads++;
	}
	if (!nnp) {
		err = 0;	/* nothing attributed: the caller says so */
		goto out;
	}
	p2p_files_free(cap->files, cap->nfiles);
	free(cap->pieces);
	cap->files = nf;
	cap->nfiles = nnf;
	cap->pieces = np;
	cap->npieces = nnp;
	cap->nqueues = (uint32_t)st->threads;
	cap->split = true;
	nf = NULL;
	np = NULL;
	nnf = 0;
	err = 0;
out:
	if (err)
		fprintf(stderr, "%s: out of memory\n", prog);
	for (i = 0; sp && i < nsp; i++)
		ptflow_spans_free(&sp[i]);
	free(sp);
	free(it);
	free(np);
	p2p_files_free(nf, nnf);
	return err;
}
