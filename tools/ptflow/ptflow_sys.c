// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding a system-wide capture per process and thread (ptflow_sys.h).
 */
#include "tools/ptflow/ptflow_sys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ptflow/ptflow_buildid.h"
#include "tools/ptflow/ptflow_image.h"
#include "tools/ptflow/ptflow_split.h"

/* The image of one exec generation (one entry of `processes`). */
struct sys_image {
	bool tried;			/* loaded, or failed to */
	struct pt_image *image;		/* NULL if the maps were unusable */
	struct ptflow_sym *sym;
	struct ptcap_maps maps;		/* for the entry-IP check */
};

/* One thread's views state, swapped into pf->calls while it runs. */
struct sys_thread {
	uint32_t pid, tid;
	char label[48];			/* "comm pid/tid": report, flow */
	char id[24];			/* "pid/tid": --calls column, track */
	struct ptflow_calls calls;
};

/* Counters of the spans (pieces), by what became of them. */
struct sys_count {
	uint64_t decoded;		/* selected and decoded */
	uint64_t muted;			/* decoded without output */
	uint64_t why[PTFLOW_OWNER_EXEC + 1];	/* skipped, by owner kind */
	uint64_t not_mapped;		/* first IP outside its maps */
	uint64_t lost;			/* never reached: after a skip */
};

struct ptflow_sys {
	struct lpt_capsrc *src;		/* the capture (the caller's) */
	int64_t sel_pid, sel_tid;
	const struct ptcap_switches *sws;	/* the source's */
	const struct ptcap_processes *ps;
	struct sys_image *img;		/* parallel to ps.p */
	struct ptflow_spans *spans;	/* per trace */
	uint8_t **seen;			/* per trace, per span: reached */
	uint32_t *cpu;			/* per trace */
	size_t ntraces;
	struct sys_thread *thr;
	size_t nthr, cap;
	size_t cur_thr;			/* SIZE_MAX: none */
	struct ptflow_calls tmpl;	/* pf->calls as configured */
	bool have_tmpl;
	struct ptflow_sym *own_sym;	/* pf->sym of the session */
	size_t trace;			/* being decoded */
	size_t span;			/* current span, SIZE_MAX none */
	int action;			/* its enum ptflow_span_action */
	struct pt_image *image;		/* the image set there, or NULL */
	uint32_t printed_tid;		/* last thread labelled in the flow */
	bool printed;
	size_t last_decoded;		/* span decoded last, SIZE_MAX none */
	struct sys_count count;
};

/* A file of the capture that could not be read or parsed (said). */
static void sys_error(const struct ptflow *pf, struct lpt_capsrc *src, int err)
{
	size_t line;
	const char *file = lpt_capsrc_where(src, &line);
	bool dir = lpt_capsrc_kind(src) == LPT_CAPSRC_PTCAP_DIR;

	fprintf(pf->err, "%s: %s%s%s", pf->prog, lpt_capsrc_path(src), dir ? "/" : ": ",
		file);
	if (line)
		fprintf(pf->err, ":%zu: %s\n", line, ptcap_dir_strerror(err));
	else
		fprintf(pf->err, ": %s%s%s\n", ptcap_dir_strerror(err),
			err == -PTCAP_E_IO ? ": " : "", err == -PTCAP_E_IO ? strerror(errno) : "");
}

int ptflow_sys_open(struct ptflow *pf, struct lpt_capsrc *src, int64_t sel_pid,
		    int64_t sel_tid, struct ptflow_sys **out)
{
	const struct ptcap_processes *ps;
	const struct ptcap_switches *sws;
	struct ptflow_sys *sys;
	int err;

	err = lpt_capsrc_processes(src, &ps);
	if (err > 0)
		return 1;
	if (err) {
		sys_error(pf, src, err);
		return -1;
	}
	err = lpt_capsrc_switches(src, &sws);
	if (err) {
		sys_error(pf, src, err);
		return -1;
	}
	sys = calloc(1, sizeof(*sys));
	if (sys)
		sys->img = calloc(ps->n ? ps->n : 1, sizeof(*sys->img));
	if (!sys || !sys->img) {
		free(sys);
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	sys->src = src;
	sys->ps = ps;
	sys->sws = sws;
	sys->sel_pid = sel_pid;
	sys->sel_tid = sel_tid;
	sys->cur_thr = SIZE_MAX;
	sys->own_sym = pf->sym;
	*out = sys;
	return 0;
}

int ptflow_sys_scan(struct ptflow_sys *sys, struct ptflow *pf,
		    const struct lpt_capsrc_trace *tr, uint8_t **bufs, const size_t *lens,
		    size_t n)
{
	struct lpt_time_config tc;
	size_t i, j;

	memset(&tc, 0, sizeof(tc));
	tc.mtc_freq = pf->par.mtc_freq;
	tc.nom_freq = pf->par.nom_freq;
	tc.cpuid_0x15_eax = pf->par.cpuid_15_eax;
	tc.cpuid_0x15_ebx = pf->par.cpuid_15_ebx;
	sys->spans = calloc(n ? n : 1, sizeof(*sys->spans));
	sys->seen = calloc(n ? n : 1, sizeof(*sys->seen));
	sys->cpu = calloc(n ? n : 1, sizeof(*sys->cpu));
	if (!sys->spans || !sys->seen || !sys->cpu)
		goto nomem;
	sys->ntraces = n;
	for (i = 0; i < n; i++) {
		uint32_t tid = 0, pid = 0;
		bool thread = false;
		unsigned int v;
		char c;

		if (tr[i].per_cpu) {
			sys->cpu[i] = tr[i].cpu;
		} else {
			sys->cpu[i] = UINT32_MAX;	/* no switches: unknown */
			thread = sscanf(tr[i].name, "tid%u.p%c", &v, &c) == 2 &&
				 tr[i].has_thread && tr[i].pid;
			tid = tr[i].tid;
			pid = tr[i].pid;
		}
		if (ptflow_spans_scan(bufs[i], lens[i], &tc, &sys->spans[i]))
			goto nomem;
		sys->seen[i] = calloc(sys->spans[i].n ? sys->spans[i].n : 1, 1);
		if (!sys->seen[i])
			goto nomem;
		for (j = 0; j < sys->spans[i].n; j++) {
			struct ptflow_span *s = &sys->spans[i].s[j];

			if (!thread) {
				ptflow_split_owner(sys->sws, sys->cpu[i], s);
				continue;
			}
			s->kind = PTFLOW_OWNER_THREAD;
			s->pid = pid;
			s->tid = tid;
		}
	}
	if (ptflow_split_gens(sys->ps, sys->spans, n))
		goto nomem;
	return 0;
nomem:
	fprintf(pf->err, "%s: out of memory\n", pf->prog);
	return -1;
}

/* The image of process entry @k, loaded on first use; NULL if unusable. */
static struct sys_image *sys_image(struct ptflow_sys *sys, struct ptflow *pf, size_t k)
{
	struct sys_image *im = &sys->img[k];
	const struct ptcap_process *p = &sys->ps->p[k];
	size_t i;
	int err;

	if (im->tried)
		return im->image ? im : NULL;
	im->tried = true;
	err = lpt_capsrc_process_maps(sys->src, k, &im->maps);
	if (err) {
		sys_error(pf, sys->src, err);
		pf->unreadable++;
		return NULL;
	}
	/* a file of another build-id than recorded (said): the process's
	 * pieces are not decoded, unless --force (ptflow_buildid.h) */
	for (i = 0; i < im->maps.nmaps; i++)
		if (!ptflow_buildid_use(pf, &im->maps.map[i], im->maps.map[i].path))
			break;
	if (i < im->maps.nmaps) {
		pf->unreadable++;
		return NULL;
	}
	im->image = pt_image_alloc(p->maps);
	im->sym = ptflow_sym_alloc(pf->err, pf->prog);
	if (!im->image || !im->sym) {
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		pt_image_free(im->image);
		im->image = NULL;
		return NULL;
	}
	for (i = 0; i < im->maps.nmaps; i++) {
		const struct ptcap_map *m = &im->maps.map[i];
		const char *path = m->path;	/* ready to open */

		/* A file that is gone costs only that range (a warning). */
		err = ptflow_image_add_raw(im->image, pf->iscache, path, m->offset,
					   m->size, m->start);
		if (err < 0)
			fprintf(pf->err, "%s: warning: %s%s%s: %s at 0x%" PRIx64 ": %s\n",
				pf->prog, lpt_capsrc_path(sys->src),
				lpt_capsrc_kind(sys->src) == LPT_CAPSRC_PTCAP_DIR ? "/" : ": ",
				p->maps, path, m->start, ptflow_image_why(path, err));
		else
			(void)ptflow_sym_add_mapping(im->sym, path, m->start, m->offset);
	}
	return im;
}

static bool maps_cover(const struct ptcap_maps *maps, uint64_t ip)
{
	size_t i;

	for (i = 0; i < maps->nmaps; i++)
		if (ip >= maps->map[i].start && ip - maps->map[i].start < maps->map[i].size)
			return true;
	return false;
}

/* Make the thread of span @s current in pf->calls (views). */
static int sys_thread(struct ptflow_sys *sys, struct ptflow *pf, const struct ptflow_span *s,
		      const char *comm, struct ptflow_sym *sym)
{
	size_t t;

	for (t = 0; t < sys->nthr; t++)
		if (sys->thr[t].tid == s->tid && sys->thr[t].pid == s->pid)
			break;
	if (t == sys->cur_thr)
		goto syms;
	if (!sys->have_tmpl) {
		sys->tmpl = pf->calls;
		sys->have_tmpl = true;
	}
	if (sys->cur_thr != SIZE_MAX)
		sys->thr[sys->cur_thr].calls = pf->calls;
	if (t == sys->nthr) {
		if (sys->nthr == sys->cap) {
			size_t nc = sys->cap ? 2 * sys->cap : 16;
			struct sys_thread *nt = realloc(sys->thr, nc * sizeof(*nt));

			if (!nt)
				return -1;
			sys->thr = nt;
			sys->cap = nc;
		}
		memset(&sys->thr[t], 0, sizeof(sys->thr[t]));
		sys->thr[t].pid = s->pid;
		sys->thr[t].tid = s->tid;
		snprintf(sys->thr[t].label, sizeof(sys->thr[t].label), "%.15s %" PRIu32 "/%" PRIu32,
			 comm && *comm ? comm : "?", s->pid, s->tid);
		snprintf(sys->thr[t].id, sizeof(sys->thr[t].id), "%" PRIu32 "/%" PRIu32,
			 s->pid, s->tid);
		sys->nthr++;
		pf->calls = sys->tmpl;
		/* The --calls column is 10 wide: pid/tid there, comm in the
		 * [thread] lines and report titles. */
		pf->thread = sys->thr[t].id;
		pf->pid = s->pid;
		pf->tid = s->tid;
		if (ptflow_view_begin(pf))
			return -1;
	} else {
		pf->calls = sys->thr[t].calls;
	}
	sys->cur_thr = t;
	pf->thread = sys->thr[t].label;
syms:
	pf->calls.sym = sym;
	pf->calls.names = pf->opt.no_symbols ? NULL : sym;
	return 0;
}

static bool views(const struct ptflow *pf)
{
	return pf->opt.calls || pf->opt.report || pf->opt.export_chrome;
}

/* pf->span_cb: the decoder enters the span at @offset. */
static int sys_span(struct ptflow *pf, struct pt_insn_decoder *dec, uint64_t offset)
{
	struct ptflow_sys *sys = pf->span_ctx;
	struct ptflow_spans *sp = &sys->spans[sys->trace];
	const struct ptcap_process *p;
	struct ptflow_span *s;
	struct sys_image *im;
	size_t i = ptflow_spans_find(sp, offset);
	const char *why = NULL;
	bool selected;

	if (i == sys->span) {
		/* Maybe entered by another decoder now (ptflow_resume.h). */
		if (sys->image && pt_insn_set_image(dec, sys->image) < 0)
			return PTFLOW_SPAN_SKIP;
		return sys->action;
	}
	sys->span = i;
	sys->image = NULL;
	if (i == SIZE_MAX) {
		/* Tracing on where the packet pass saw no span: not known. */
		sys->count.why[PTFLOW_OWNER_NO_TIME]++;
		return sys->action = PTFLOW_SPAN_SKIP;
	}
	s = &sp->s[i];
	sys->seen[sys->trace][i] = 1;
	selected = (sys->sel_pid < 0 || s->pid == sys->sel_pid) &&
		   (sys->sel_tid < 0 || s->tid == sys->sel_tid);
	if (s->kind != PTFLOW_OWNER_THREAD) {
		sys->count.why[s->kind]++;
		why = ptflow_split_why(s->kind);
		goto skip;
	}
	p = ptcap_processes_find(sys->ps, s->pid, NULL) + s->gen;
	im = sys_image(sys, pf, (size_t)(p - sys->ps->p));
	if (!im) {
		sys->count.why[PTFLOW_OWNER_NO_MAPS]++;
		why = "its maps cannot be read";
		goto skip;
	}
	/* The exec race (ptcap-format.rst): never decode with wrong maps. A
	 * kernel address (the upper canonical half) outside the maps is a
	 * trace of user and kernel (perf's intel_pt//) without the kernel's
	 * code. */
	if (s->ip && !maps_cover(&im->maps, s->ip)) {
		sys->count.not_mapped++;
		why = (int64_t)s->ip < 0 ? "starts in the kernel, whose code is absent (for a "
			"perf.data: -k vmlinux, or perf record --kcore)" :
			"starts outside its process's maps (exec race)";
		goto skip;
	}
	if (pt_insn_set_image(dec, im->image) < 0) {
		why = "no image";
		goto skip;
	}
	sys->image = im->image;
	pf->sym = im->sym;
	if (!selected) {
		sys->count.muted++;
		pf->mute = true;
		return sys->action = PTFLOW_SPAN_MUTE;
	}
	pf->mute = false;
	sys->count.decoded++;
	if (views(pf)) {
		if (sys_thread(sys, pf, s, p->comm, im->sym)) {
			fprintf(pf->err, "%s: out of memory\n", pf->prog);
			why = "out of memory";
			goto skip;
		}
	} else if (!pf->opt.quiet && (!sys->printed || sys->printed_tid != s->tid ||
				      sys->last_decoded + 1 != i)) {
		/* A new thread, or the same after a span not shown. */
		ptflow_line_sync(pf);
		fprintf(pf->out, "[thread %" PRIu32 "/%" PRIu32 " %s]\n", s->pid, s->tid,
			p->comm);
		sys->printed = true;
		sys->printed_tid = s->tid;
	}
	sys->last_decoded = i;
	return sys->action = PTFLOW_SPAN_DECODE;
skip:
	pf->mute = true;
	if (selected && sys->sel_pid < 0 && sys->sel_tid < 0 && !views(pf) &&
	    !pf->opt.quiet) {
		ptflow_line_sync(pf);
		fprintf(pf->out, "[not decoded at offset 0x%" PRIx64 ": %s", s->offset, why);
		if (s->pid)
			fprintf(pf->out, ", thread %" PRIu32 "/%" PRIu32, s->pid, s->tid);
		fprintf(pf->out, "]\n");
		sys->printed = false;
	}
	return sys->action = PTFLOW_SPAN_SKIP;
}

int ptflow_sys_decode(struct ptflow_sys *sys, struct ptflow *pf, size_t i,
		      const char *name, uint8_t *buf, size_t len)
{
	int err;

	sys->trace = i;
	sys->span = SIZE_MAX;
	sys->action = PTFLOW_SPAN_DECODE;
	sys->printed = false;
	sys->last_decoded = SIZE_MAX;
	pf->span_cb = sys_span;
	pf->span_ctx = sys;
	pf->own_views = true;
	err = ptflow_decode_buffer(pf, buf, len, name);
	pf->mute = false;
	pf->span_cb = NULL;
	return err;
}

int ptflow_sys_finish(struct ptflow_sys *sys, struct ptflow *pf)
{
	struct sys_count *c = &sys->count;
	uint64_t total = 0, skipped = c->not_mapped;
	size_t i, j;
	int ret = 0;

	/* End every thread's views: their reports in thread order. */
	if (sys->cur_thr != SIZE_MAX)
		sys->thr[sys->cur_thr].calls = pf->calls;
	for (i = 0; i < sys->nthr; i++) {
		pf->calls = sys->thr[i].calls;
		pf->thread = sys->thr[i].label;
		if (ptflow_view_end(pf))
			ret = -1;
		ptflow_calls_fini(&pf->calls);
	}
	if (sys->have_tmpl)
		pf->calls = sys->tmpl;
	sys->cur_thr = SIZE_MAX;
	sys->nthr = 0;

	for (i = 0; i < sys->ntraces; i++) {
		for (j = 0; j < sys->spans[i].n; j++) {
			const struct ptflow_span *s = &sys->spans[i].s[j];
			bool sel = (sys->sel_pid < 0 || s->pid == sys->sel_pid) &&
				   (sys->sel_tid < 0 || s->tid == sys->sel_tid);

			total++;
			if (!sys->seen[i][j] && s->kind == PTFLOW_OWNER_THREAD && sel)
				c->lost++;
		}
	}
	for (i = 0; i <= PTFLOW_OWNER_EXEC; i++)
		skipped += c->why[i];
	fprintf(pf->err, "%s: %" PRIu64 " pieces (spans between context switches): %" PRIu64
		" decoded%s, %" PRIu64 " of other threads, %" PRIu64 " not decoded",
		pf->prog, total, c->decoded,
		sys->sel_pid >= 0 || sys->sel_tid >= 0 ? " (selected)" : "", c->muted, skipped);
	for (i = 0; i <= PTFLOW_OWNER_EXEC; i++)
		if (c->why[i])
			fprintf(pf->err, ", %" PRIu64 " %s", c->why[i],
				ptflow_split_why((enum ptflow_owner_kind)i));
	if (c->not_mapped)
		fprintf(pf->err, ", %" PRIu64 " starting outside their maps", c->not_mapped);
	fprintf(pf->err, "; %" PRIu64 " selected pieces lost after those (up to the next PSB)\n",
		c->lost);
	if (pf->opt.stat) {
		printf("pieces: %" PRIu64 "\n", total);
		printf("pieces-decoded: %" PRIu64 "\n", c->decoded);
		printf("pieces-not-decoded: %" PRIu64 "\n", skipped);
		printf("pieces-lost: %" PRIu64 "\n", c->lost);
	}
	return ret;
}

void ptflow_sys_free(struct ptflow_sys *sys, struct ptflow *pf)
{
	size_t i;

	if (!sys)
		return;
	pf->sym = sys->own_sym;
	for (i = 0; i < sys->nthr; i++)
		ptflow_calls_fini(&sys->thr[i].calls);
	free(sys->thr);
	for (i = 0; sys->img && i < sys->ps->n; i++) {
		pt_image_free(sys->img[i].image);
		ptflow_sym_free(sys->img[i].sym);
		ptcap_maps_free(&sys->img[i].maps);
	}
	free(sys->img);
	for (i = 0; i < sys->ntraces; i++) {
		ptflow_spans_free(&sys->spans[i]);
		free(sys->seen[i]);
	}
	free(sys->spans);
	free(sys->seen);
	free(sys->cpu);
	free(sys);
}
