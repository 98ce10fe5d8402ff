// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data backend of a capture source (libpt/capsrc_internal.h,
 * include/lwpt/capture_src.h): a perf.data read in place. The reader
 * (libpt/perf_read.c) maps the file; the model (libpt/perf_model.c) gives
 * the capture in ptcap's terms; the traces are copied out of the mapping
 * when a tool loads one. Nothing is written anywhere
 * (Documentation/perf-data.rst "As a capture").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

#include "libpt/capsrc_internal.h"
#include "libpt/perf_model.h"

struct capperf {
	struct lpt_perf *p;
	struct lpt_perf_model mo;
	struct lpt_capsrc_trace *tr;	/* in version order of their names */
	size_t *tr_idx;			/* ... each one's reader index */
	size_t ntr;
	/* per process: */
	int ps_err;			/* 0, or the processes' first error */
	size_t ps_line;
	struct ptcap_processes ps;	/* by pid, then generation */
	size_t *gen_of;			/* ps.p[k]'s model generation */
	struct ptcap_switches sws;
};

struct progress {
	FILE *err;
	const char *prog;
	int last;
};

static void progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *pr = arg;
	int pct = total ? (int)(done * 100 / total) : -1;

	if (!pr->err || (total < (64u << 20) && total))
		return;
	if (pct >= 0 && pct / 10 == pr->last / 10)
		return;
	pr->last = pct;
	if (pct >= 0)
		fprintf(pr->err, "%s: reading perf.data: %d%%\n", pr->prog, pct);
	else
		fprintf(pr->err, "%s: copying perf.data from the pipe: %" PRIu64 " MiB\n",
			pr->prog, done >> 20);
}

static void perf_close(void *be)
{
	struct capperf *c = be;

	if (!c)
		return;
	ptcap_processes_free(&c->ps);
	ptcap_switches_free(&c->sws);
	free(c->gen_of);
	free(c->tr);
	free(c->tr_idx);
	lpt_perf_model_free(&c->mo);
	lpt_perf_close(c->p);
	free(c);
}

/* Look up the code of record @j (the model names what is missing). */
static void touch(struct lpt_perf_model *mo, size_t j, void *arg)
{
	size_t n;

	(void)arg;
	(void)lpt_perf_model_lines(mo, j, &n);
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct lpt_capsrc_trace *tr = arg;

	return strverscmp(tr[*(const size_t *)a].name, tr[*(const size_t *)b].name);
}

/* The traces, in the order a directory lists them (version order). */
static int make_traces(struct capperf *c)
{
	size_t n = lpt_perf_ntraces(c->p), i, k;
	struct lpt_capsrc_trace *all = calloc(n ? n : 1, sizeof(*all));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));

	c->tr = calloc(n ? n : 1, sizeof(*c->tr));
	c->tr_idx = calloc(n ? n : 1, sizeof(*c->tr_idx));
	if (!all || !idx || !c->tr || !c->tr_idx) {
		free(all);
		free(idx);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(c->p, i);

		all[i].name = t->name;
		all[i].per_cpu = t->per_cpu;
		all[i].cpu = t->per_cpu && t->cpu >= 0 ? (uint32_t)t->cpu : 0;
		all[i].has_thread = !t->per_cpu && t->tid >= 0 && t->pid >= 0;
		all[i].tid = all[i].has_thread ? (uint32_t)t->tid : 0;
		all[i].pid = all[i].has_thread ? (uint32_t)t->pid : 0;
		all[i].gaps = t->gaps;
		all[i].ngaps = t->ngaps;
		for (k = 1; k < t->ngaps; k++)
			if (t->gaps[k] <= t->gaps[k - 1])
				all[i].gaps_err = -PTCAP_E_SYNTAX;	/* as parsed */
		idx[i] = i;
	}
	if (n)
		qsort_r(idx, n, sizeof(*idx), cmp_name, all);
	for (i = 0; i < n; i++) {
		c->tr[i] = all[idx[i]];
		c->tr_idx[i] = idx[i];
	}
	c->ntr = n;
	free(all);
	free(idx);
	return 0;
}

static int cmp_switch(const void *a, const void *b)
{
	const struct ptcap_switch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The model's switch lines as ptcap_switches_parse() gives them. */
static int make_switches(struct capperf *c)
{
	size_t i, n = c->mo.nsw;

	c->sws.sw = calloc(n ? n : 1, sizeof(*c->sws.sw));
	if (!c->sws.sw)
		return -1;
	for (i = 0; i < n; i++) {
		const struct lpt_perf_sw_line *l = &c->mo.sw[i];
		struct ptcap_switch *w = &c->sws.sw[i];

		w->tsc = l->tsc;
		w->cpu = (uint32_t)l->cpu;
		w->flags = (l->pp == 0 ? PTCAP_SW_PREV_IDLE : 0) |
			   (l->np == 0 ? PTCAP_SW_NEXT_IDLE : 0) |
			   (l->preempt ? PTCAP_SW_PREEMPT : 0);
		w->prev_pid = (uint32_t)l->pp;
		w->prev_tid = (uint32_t)l->pt;
		w->next_pid = (uint32_t)l->np;
		w->next_tid = (uint32_t)l->nt;
		w->order = i;
	}
	c->sws.n = n;
	if (n)
		qsort(c->sws.sw, n, sizeof(*c->sws.sw), cmp_switch);
	return 0;
}

static int cmp_proc(const void *a, const void *b, void *arg)
{
	const struct ptcap_process *all = arg;
	const struct ptcap_process *x = &all[*(const size_t *)a];
	const struct ptcap_process *y = &all[*(const size_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * The model's generations as ptcap_processes_parse() gives them: sorted
 * by pid and generation; the comm escaped (ptcap-format.rst "Strings")
 * without leading blanks. A generation whose last TSC is before its first
 * is an error of its line, as in a processes file (the model's order: the
 * magic and a comment line come first).
 */
static int make_processes(struct capperf *c)
{
	size_t i, n = c->mo.ng;
	struct ptcap_process *all = calloc(n ? n : 1, sizeof(*all));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	int err = 0;

	c->ps.p = calloc(n ? n : 1, sizeof(*c->ps.p));
	c->gen_of = idx;
	if (!all || !idx || !c->ps.p) {
		free(all);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct lpt_perf_gen *g = &c->mo.g[i];
		char comm[16 * 4 + 1], name[64];
		const char *cb = comm;

		lpt_perf_model_gen_tsc(&c->mo, i, &all[i].first_tsc, &all[i].last_tsc);
		if (all[i].last_tsc < all[i].first_tsc && !c->ps_err) {
			c->ps_err = -PTCAP_E_RANGE;
			c->ps_line = i + 3;
		}
		lpt_perf_model_escape(g->comm, comm, sizeof(comm));
		while (*cb == ' ')
			cb++;
		snprintf(name, sizeof(name), "maps.%d.%zu", g->pid, g->gen);
		all[i].pid = (uint32_t)g->pid;
		all[i].gen = (uint32_t)g->gen;
		all[i].maps = strdup(name);
		all[i].comm = strdup(cb);
		idx[i] = i;
		if (!all[i].maps || !all[i].comm)
			err = -1;
	}
	if (n)
		qsort_r(idx, n, sizeof(*idx), cmp_proc, all);
	for (i = 0; i < n; i++)
		c->ps.p[i] = all[idx[i]];
	c->ps.n = n;
	free(all);
	return err;
}

int lpt_capsrc_perf_open(const char *path, const struct lpt_capsrc_opts *o, void **be)
{
	struct progress pr = { o->err, o->prog, -10 };
	struct lpt_perf_code_opts co;
	struct lpt_perf_opts po;
	struct capperf *c;
	size_t i;
	int e;

	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	lpt_perf_opts_init(&po);
	po.progress = progress;
	po.progress_arg = &pr;
	po.max_decompressed = o->max_decompressed;
	e = lpt_perf_open(path, &po, &c->p);
	if (e) {
		if (o->err) {
			fprintf(o->err, "%s: %s: %s: %s\n", o->prog, path, lpt_perf_strerror(e),
				lpt_perf_last_error());
			if (e == -LPT_PERF_E_NO_AUX)
				fprintf(o->err, "%s: record Intel PT with perf record -e "
					"intel_pt// (or capture with ptcap)\n", o->prog);
		}
		free(c);
		return -1;
	}
	lpt_perf_code_opts_init(c->p, &co);
	co.symfs = o->symfs;
	co.vmlinux = o->vmlinux;
	co.any_build_id = o->flags & LPT_CAPSRC_ANY_BUILD_ID;
	if (lpt_perf_model_init(&c->mo, c->p, &co, o->err, o->prog))
		goto nomem;
	/* Every mapping's code looked up now, in the order a ptcap directory
	 * is written (its maps, then each process's): each missing file is
	 * named once, before any output, as ever. */
	if (!(o->flags & LPT_CAPSRC_NO_CODE)) {
		lpt_perf_model_top(&c->mo, touch, NULL);
		for (i = 0; i < c->mo.ng; i++)
			lpt_perf_model_gen(&c->mo, i, touch, NULL);
		lpt_perf_model_summary(&c->mo);
	}
	if (make_traces(c) || (c->mo.sys && (make_switches(c) || make_processes(c))))
		goto nomem;
	*be = c;
	return 0;
nomem:
	if (o->err)
		fprintf(o->err, "%s: %s: out of memory\n", o->prog, path);
	perf_close(c);
	return -1;
}

static int perf_config(void *be, struct lpt_capsrc_at *at, const struct ptcap_config **cfg,
		       const struct ptcap_addr_range **addr)
{
	struct capperf *c = be;

	(void)at;
	*cfg = lpt_perf_config(c->p);
	*addr = c->mo.addr;
	return 0;
}

static const char *perf_config_text(void *be, size_t *len)
{
	(void)be;
	*len = 0;
	return NULL;
}

static int perf_traces(void *be, struct lpt_capsrc_at *at, const struct lpt_capsrc_trace **t,
		       size_t *n)
{
	struct capperf *c = be;

	(void)at;
	*t = c->tr;
	*n = c->ntr;
	return 0;
}

static int perf_load(void *be, struct lpt_capsrc_at *at, size_t i, uint64_t max, size_t pad,
		     uint8_t **buf, size_t *len)
{
	struct capperf *c = be;
	const struct lpt_perf_trace *t;
	uint64_t off = 0;
	uint8_t *data;

	if (i >= c->ntr)
		return -PTCAP_E_INVAL;
	snprintf(at->file, sizeof(at->file), "%s", c->tr[i].name);
	t = lpt_perf_trace(c->p, c->tr_idx[i]);
	if ((max && t->size > max) || t->size > SIZE_MAX - pad)
		return -PTCAP_E_TOO_LARGE;
	data = calloc(1, (size_t)t->size + pad);
	if (!data)
		return -PTCAP_E_NOMEM;
	while (off < t->size) {
		int64_t r = lpt_perf_trace_read(c->p, c->tr_idx[i], off, data + off,
						(size_t)(t->size - off));

		if (r <= 0) {
			free(data);
			errno = EIO;
			return -PTCAP_E_IO;
		}
		off += (uint64_t)r;
	}
	*buf = data;
	*len = (size_t)t->size;
	return 0;
}

/* Collecting the lines of a maps file: copies, and the line of the first
 * one a maps file could not hold (its end wraps past 2^64). */
struct collect {
	struct ptcap_maps *maps;
	size_t cap;
	size_t first_line;	/* line of the first entry in the file */
	size_t bad_line;	/* 0: none */
	bool nomem;
};

static void collect(struct lpt_perf_model *mo, size_t j, void *arg)
{
	struct collect *cl = arg;
	size_t n, k;
	const struct ptcap_map *m = lpt_perf_model_lines(mo, j, &n);

	for (k = 0; k < n && !cl->nomem && !cl->bad_line; k++) {
		struct ptcap_map *e;

		if (m[k].start + m[k].size <= m[k].start) {
			cl->bad_line = cl->first_line + cl->maps->nmaps;
			break;
		}
		if (cl->maps->nmaps == cl->cap) {
			size_t ncap = cl->cap ? 2 * cl->cap : 32;

			e = realloc(cl->maps->map, ncap * sizeof(*e));
			if (!e) {
				cl->nomem = true;
				break;
			}
			cl->maps->map = e;
			cl->cap = ncap;
		}
		e = &cl->maps->map[cl->maps->nmaps];
		*e = m[k];
		e->path = strdup(m[k].path);
		if (!e->path) {
			cl->nomem = true;
			break;
		}
		cl->maps->nmaps++;
	}
}

static int collected(struct collect *cl, struct lpt_capsrc_at *at)
{
	if (cl->nomem || cl->bad_line)
		ptcap_maps_free(cl->maps);
	if (cl->nomem)
		return -PTCAP_E_NOMEM;
	if (cl->bad_line) {
		at->line = cl->bad_line;
		return -PTCAP_E_RANGE;	/* as ptcap_maps_parse(): end <= start */
	}
	return 0;
}

static int perf_maps(void *be, struct lpt_capsrc_at *at, struct ptcap_maps *maps)
{
	struct capperf *c = be;
	struct collect cl = { maps, 0, 3, 0, false };	/* magic, comment */

	maps->map = NULL;
	maps->nmaps = 0;
	snprintf(at->file, sizeof(at->file), "%s", PTCAP_MAPS_FILE);
	lpt_perf_model_top(&c->mo, collect, &cl);
	return collected(&cl, at);
}

static int perf_processes(void *be, struct lpt_capsrc_at *at,
			  const struct ptcap_processes **ps)
{
	struct capperf *c = be;

	*ps = &c->ps;
	if (!c->mo.sys)
		return 1;
	if (c->ps_err) {
		snprintf(at->file, sizeof(at->file), "%s", PTCAP_PROCESSES_FILE);
		at->line = c->ps_line;
	}
	return c->ps_err;
}

static int perf_switches(void *be, struct lpt_capsrc_at *at,
			 const struct ptcap_switches **sws)
{
	struct capperf *c = be;

	(void)at;
	*sws = &c->sws;
	return 0;
}

static int perf_process_maps(void *be, struct lpt_capsrc_at *at, size_t k,
			     struct ptcap_maps *maps)
{
	struct capperf *c = be;
	struct collect cl = { maps, 0, 2, 0, false };	/* magic */

	maps->map = NULL;
	maps->nmaps = 0;
	if (!c->mo.sys || k >= c->ps.n)
		return -PTCAP_E_INVAL;
	snprintf(at->file, sizeof(at->file), "%s", c->ps.p[k].maps);
	lpt_perf_model_gen(&c->mo, c->gen_of[k], collect, &cl);
	return collected(&cl, at);
}

const struct lpt_capsrc_be lpt_capsrc_perf_be = {
	.kind = LPT_CAPSRC_PERF_DATA,
	.close = perf_close,
	.config = perf_config,
	.config_text = perf_config_text,
	.traces = perf_traces,
	.load = perf_load,
	.maps = perf_maps,
	.processes = perf_processes,
	.switches = perf_switches,
	.process_maps = perf_process_maps,
};
