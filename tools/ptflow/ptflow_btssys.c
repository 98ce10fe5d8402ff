// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding a per-CPU BTS capture per process and thread (ptflow_btssys.h).
 */
#include "tools/ptflow/ptflow_btssys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/bts_decode.h>

#include "tools/ptflow/ptflow_buildid.h"
#include "tools/ptflow/ptflow_image.h"

/* One stretch of a CPU's records between two switches. */
struct bpiece {
	size_t trace;			/* index in the traces */
	uint64_t start, end;		/* byte positions in its file */
	uint64_t time;			/* its place in time (bs_cut()), or 0 */
	uint32_t pid, tid;		/* the thread that ran; 0/0 none */
	bool user;			/* a user thread (not idle, kthread) */
	bool known;			/* after a switch: the owner is known */
};

/* The image of one process (its last exec generation). */
struct bimage {
	size_t k;			/* entry of `processes` */
	struct pt_image *image;
	struct ptflow_sym *sym;
};

struct ptflow_btssys {
	struct pt_image *own_image;	/* the session's, put back at the end */
	struct ptflow_sym *own_sym;
	struct bimage *img;
	size_t nimg;
};

static void bs_error(const struct ptflow *pf, struct lpt_capsrc *src, int err)
{
	size_t line;
	const char *file = lpt_capsrc_where(src, &line);

	fprintf(pf->err, "%s: %s/%s", pf->prog, lpt_capsrc_path(src), file);
	if (line)
		fprintf(pf->err, ":%zu: %s\n", line, ptcap_dir_strerror(err));
	else
		fprintf(pf->err, ": %s%s%s\n", ptcap_dir_strerror(err),
			err == -PTCAP_E_IO ? ": " : "", err == -PTCAP_E_IO ? strerror(errno) : "");
}

/* The image of process @pid, loaded on first use; NULL if it has none. */
static struct bimage *bs_image(struct ptflow_btssys *bs, struct ptflow *pf,
			       struct lpt_capsrc *src, const struct ptcap_processes *ps,
			       uint32_t pid, const char **why)
{
	const struct ptcap_process *p;
	struct ptcap_maps maps;
	struct bimage *im, *n;
	size_t ngen, k, i;
	int err;

	p = ptcap_processes_find(ps, pid, &ngen);
	if (!p || !ngen) {
		*why = "its process is not in the processes file";
		return NULL;
	}
	k = (size_t)(p - ps->p) + ngen - 1;
	p = &ps->p[k];
	for (i = 0; i < bs->nimg; i++)
		if (bs->img[i].k == k)
			return bs->img[i].image ? &bs->img[i] : NULL;
	n = realloc(bs->img, (bs->nimg + 1) * sizeof(*n));
	if (!n) {
		*why = "out of memory";
		return NULL;
	}
	bs->img = n;
	im = &bs->img[bs->nimg++];
	memset(im, 0, sizeof(*im));
	im->k = k;
	*why = "its maps cannot be read";
	if (p->missing)
		return NULL;
	memset(&maps, 0, sizeof(maps));
	err = lpt_capsrc_process_maps(src, k, &maps);
	if (err) {
		bs_error(pf, src, err);
		pf->unreadable++;
		return NULL;
	}
	for (i = 0; i < maps.nmaps; i++)
		if (!ptflow_buildid_use(pf, &maps.map[i], maps.map[i].path))
			break;
	if (i < maps.nmaps) {
		pf->unreadable++;
		ptcap_maps_free(&maps);
		*why = "a file of its maps is another build";
		return NULL;
	}
	im->image = pt_image_alloc(p->maps);
	im->sym = ptflow_sym_alloc(pf->err, pf->prog);
	if (!im->image || !im->sym) {
		pt_image_free(im->image);
		im->image = NULL;
		ptcap_maps_free(&maps);
		*why = "out of memory";
		return NULL;
	}
	for (i = 0; i < maps.nmaps; i++) {
		const struct ptcap_map *m = &maps.map[i];

		err = ptflow_image_add_raw(im->image, pf->iscache, m->path, m->offset,
					   m->size, m->start);
		if (err < 0)
			fprintf(pf->err, "%s: warning: %s/%s: %s at 0x%" PRIx64 ": %s\n",
				pf->prog, lpt_capsrc_path(src), p->maps, m->path, m->start,
				ptflow_image_why(m->path, err));
		else
			(void)ptflow_sym_add_mapping(im->sym, m->path, m->start, m->offset);
	}
	ptcap_maps_free(&maps);
	return im;
}

/*
 * Cut trace @t (@len bytes of records) at its CPU's switches into
 * @*pv/@*np. With @timed (every switch has its TSC), a piece's time is
 * the TSC of the switch that ended it, or, for the last piece of the CPU,
 * of the one that began it: the pieces of one thread never overlap in
 * time, so comparing either end of one with either end of another orders
 * them. Returns 0, or -1 after a message (a switch off a record boundary;
 * out of memory).
 */
static int bs_cut(struct ptflow *pf, struct lpt_capsrc *src, const struct ptcap_switches *sws,
		  bool timed, const struct lpt_capsrc_trace *t, size_t ti, uint64_t len,
		  struct bpiece **pv, size_t *np)
{
	uint64_t pos = 0;
	const struct ptcap_switch *last = NULL;
	size_t i;
	bool clipped = false;

	for (i = 0; i <= sws->n; i++) {
		const struct ptcap_switch *s = i < sws->n ? &sws->sw[i] : NULL;
		uint64_t head = len;
		struct bpiece *p;

		if (s && s->cpu != t->cpu)
			continue;
		if (s) {
			head = s->tsc;
			if (head % LPT_BTS_RECORD_SIZE) {
				fprintf(pf->err, "%s: %s/switches: a switch of CPU %" PRIu32
					" at byte %" PRIu64 ", not a record boundary (a BTS "
					"capture's first column is the position in cpu%" PRIu32
					".bts, a multiple of 24)\n", pf->prog, lpt_capsrc_path(src),
					t->cpu, head, t->cpu);
				return -1;
			}
			if (head > len) {
				if (!clipped)
					fprintf(pf->err, "%s: warning: %s/%s: %" PRIu64 " bytes of "
						"records, a switch at byte %" PRIu64 ": the file is "
						"truncated; what it holds is decoded\n", pf->prog,
						lpt_capsrc_path(src), t->name, len, head);
				clipped = true;
				head = len;
			}
		}
		if (head > pos) {
			struct bpiece *nv = realloc(*pv, (*np + 1) * sizeof(*nv));

			if (!nv) {
				fprintf(pf->err, "%s: out of memory\n", pf->prog);
				return -1;
			}
			*pv = nv;
			p = &nv[(*np)++];
			memset(p, 0, sizeof(*p));
			p->trace = ti;
			p->start = pos;
			p->end = head;
			/* Before a switch: its prev; after the last: its next. */
			if (timed)
				p->time = s ? s->time : last ? last->time : 0;
			if (s) {
				p->known = true;
				p->pid = s->prev_pid;
				p->tid = s->prev_tid;
				p->user = !(s->flags & (PTCAP_SW_PREV_IDLE | PTCAP_SW_PREV_KTHREAD)) &&
					  s->prev_pid;
			} else if (last) {
				p->known = true;
				p->pid = last->next_pid;
				p->tid = last->next_tid;
				p->user = !(last->flags & (PTCAP_SW_NEXT_IDLE |
							   PTCAP_SW_NEXT_KTHREAD)) && last->next_pid;
			}
		}
		if (head > pos)
			pos = head;
		if (s)
			last = s;
	}
	return 0;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct bpiece *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	/* In time where the switches have it (0 all else: CPU order). */
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Decode the thread of pieces @p[0..n): joined, with its process's image. */
static int bs_thread(struct ptflow_btssys *bs, struct ptflow *pf, struct lpt_capsrc *src,
		     const struct ptcap_processes *ps, const struct bpiece *p, size_t n,
		     uint8_t *const *bufs, uint64_t *decoded, uint64_t *nomaps)
{
	const struct ptcap_process *proc;
	const char *why = NULL, *comm;
	struct bimage *im;
	char label[64], name[48];
	uint64_t total = 0, at = 0;
	uint8_t *buf;
	size_t i;
	int err;

	im = bs_image(bs, pf, src, ps, p[0].pid, &why);
	if (!im) {
		*nomaps += n;
		if (!pf->opt.quiet && !pf->opt.report)
			fprintf(pf->out, "[thread %" PRIu32 "/%" PRIu32 " not decoded: %s]\n",
				p[0].pid, p[0].tid, why);
		return strcmp(why, "out of memory") ? 0 : -1;
	}
	for (i = 0; i < n; i++)
		total += p[i].end - p[i].start;
	buf = malloc(total ? total : 1);
	if (!buf) {
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	for (i = 0; i < n; i++) {
		memcpy(buf + at, bufs[p[i].trace] + p[i].start, p[i].end - p[i].start);
		at += p[i].end - p[i].start;
	}
	proc = &ps->p[im->k];
	comm = proc->comm && *proc->comm ? proc->comm : "?";
	snprintf(label, sizeof(label), "%.15s %" PRIu32 "/%" PRIu32, comm, p[0].pid, p[0].tid);
	snprintf(name, sizeof(name), "%" PRIu32 "/%" PRIu32, p[0].pid, p[0].tid);
	if (!pf->opt.quiet && !pf->opt.report)
		fprintf(pf->out, "[thread %" PRIu32 "/%" PRIu32 " %s: %zu piece%s]\n", p[0].pid,
			p[0].tid, comm, n, n == 1 ? "" : "s");
	/* The engine reads the image it was set up with: a new one each. */
	if (pf->engine && pf->engine_free)
		pf->engine_free(pf->engine);
	pf->engine = NULL;
	pf->image = im->image;
	pf->sym = im->sym;
	pf->calls.sym = im->sym;
	pf->calls.names = pf->opt.no_symbols ? NULL : im->sym;
	pf->thread = label;
	pf->pid = p[0].pid;
	pf->tid = p[0].tid;
	pf->bts_start = 0;	/* where the thread was before: not recorded */
	err = ptflow_decode_buffer(pf, buf, (size_t)total, name);
	ptflow_line_sync(pf);
	free(buf);
	*decoded += n;
	return err;
}

int ptflow_btssys_decode(struct ptflow *pf, struct lpt_capsrc *src,
			 const struct lpt_capsrc_trace *tr, size_t n, int64_t sel_pid,
			 int64_t sel_tid, struct ptflow_btssys **out)
{
	const struct ptcap_processes *ps;
	const struct ptcap_switches *sws;
	struct ptflow_btssys *bs;
	struct bpiece *pv = NULL;
	uint8_t **bufs = NULL;
	uint64_t decoded = 0, other = 0, unknown = 0, kernel = 0, nomaps = 0;
	size_t np = 0, i, j, k, threads = 0;
	bool timed, told = false;
	int err, ret = 0;

	*out = NULL;
	err = lpt_capsrc_processes(src, &ps);
	if (err > 0)
		return 1;
	if (err) {
		bs_error(pf, src, err);
		return -1;
	}
	err = lpt_capsrc_switches(src, &sws);
	if (err) {
		bs_error(pf, src, err);
		return -1;
	}
	bs = calloc(1, sizeof(*bs));
	bufs = calloc(n ? n : 1, sizeof(*bufs));
	if (!bs || !bufs) {
		free(bs);
		free(bufs);
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	bs->own_image = pf->image;
	bs->own_sym = pf->sym;
	*out = bs;
	/* The pieces of different CPUs are ordered in time if all have it. */
	timed = sws->n > 0;
	for (i = 0; i < sws->n && timed; i++)
		timed = sws->sw[i].has_time;
	for (i = 0; i < n && !ret; i++) {
		size_t len;

		if (!tr[i].per_cpu) {
			fprintf(pf->err, "%s: warning: %s/%s: a per-thread trace in a per-CPU "
				"capture: not decoded\n", pf->prog, lpt_capsrc_path(src),
				tr[i].name);
			continue;
		}
		err = lpt_capsrc_load(src, i, 0, 0, &bufs[i], &len);
		if (err) {
			fprintf(pf->err, "%s: %s/%s: %s\n", pf->prog, lpt_capsrc_path(src),
				tr[i].name, err == -PTCAP_E_IO ? strerror(errno) :
				ptcap_dir_strerror(err));
			pf->unreadable++;
			continue;
		}
		if (len % LPT_BTS_RECORD_SIZE)
			fprintf(pf->err, "%s: warning: %s/%s: %zu bytes, not whole 24-byte "
				"records (truncated?): the last %zu bytes are ignored\n",
				pf->prog, lpt_capsrc_path(src), tr[i].name, len,
				len % LPT_BTS_RECORD_SIZE);
		len -= len % LPT_BTS_RECORD_SIZE;
		if (bs_cut(pf, src, sws, timed, &tr[i], i, len, &pv, &np))
			ret = -1;
	}
	if (!ret && np)
		qsort(pv, np, sizeof(*pv), cmp_piece);
	for (i = 0; !ret && i < np; i = j) {
		bool sel;

		for (j = i + 1; j < np && pv[j].pid == pv[i].pid && pv[j].tid == pv[i].tid &&
				pv[j].known == pv[i].known && pv[j].user == pv[i].user; j++)
			;
		if (!pv[i].known) {
			unknown += j - i;
			continue;
		}
		if (!pv[i].user) {
			kernel += j - i;
			continue;
		}
		sel = (sel_pid < 0 || pv[i].pid == sel_pid) &&
		      (sel_tid < 0 || pv[i].tid == sel_tid);
		if (!sel) {
			other += j - i;
			continue;
		}
		threads++;
		for (k = i + 1; !timed && !told && k < j; k++) {
			if (pv[k].trace == pv[i].trace)
				continue;
			fprintf(pf->err, "%s: warning: %s/switches: the switches have no time "
				"(tsc= words: ptcap with a module before ABI 1.10): the pieces "
				"of a thread that ran on several CPUs (%" PRIu32 "/%" PRIu32
				" first) are joined CPU by CPU, their order across CPUs is "
				"unknown\n", pf->prog, lpt_capsrc_path(src), pv[i].pid,
				pv[i].tid);
			told = true;
		}
		if (bs_thread(bs, pf, src, ps, &pv[i], j - i, bufs, &decoded, &nomaps))
			ret = -1;
	}
	fprintf(pf->err, "%s: %zu pieces (records between context switches): %" PRIu64
		" decoded%s in %zu thread%s, %" PRIu64 " of other threads, %" PRIu64
		" of the idle task or kernel threads, %" PRIu64 " on a CPU without "
		"switches (thread not known), %" PRIu64 " without maps\n", pf->prog, np,
		decoded, sel_pid >= 0 || sel_tid >= 0 ? " (selected)" : "", threads,
		threads == 1 ? "" : "s", other, kernel, unknown, nomaps);
	if (pf->opt.stat) {
		printf("pieces: %zu\n", np);
		printf("pieces-decoded: %" PRIu64 "\n", decoded);
		printf("pieces-not-decoded: %" PRIu64 "\n", kernel + unknown + nomaps);
	}
	if (!ret && !threads && (sel_pid >= 0 || sel_tid >= 0)) {
		fprintf(pf->err, "%s: %s: no piece of the selected %s\n", pf->prog,
			lpt_capsrc_path(src), sel_tid >= 0 ? "--tid" : "--pid");
		ret = -1;
	}
	for (i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(pv);
	return ret;
}

void ptflow_btssys_free(struct ptflow_btssys *bs, struct ptflow *pf)
{
	size_t i;

	if (!bs)
		return;
	/* The engine may hold a process's image: not beyond it. */
	if (pf->engine && pf->engine_free)
		pf->engine_free(pf->engine);
	pf->engine = NULL;
	pf->image = bs->own_image;
	pf->sym = bs->own_sym;
	for (i = 0; i < bs->nimg; i++) {
		pt_image_free(bs->img[i].image);
		ptflow_sym_free(bs->img[i].sym);
	}
	free(bs->img);
	free(bs);
}
