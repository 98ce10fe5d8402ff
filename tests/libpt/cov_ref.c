// SPDX-License-Identifier: GPL-2.0
/*
 * The libipt-derived edge reference (cov_ref.h). Source of the semantics:
 * libipt 2.0.5 intel-pt.h (struct pt_insn, struct pt_event) and
 * Documentation/ptcov.rst.
 */
#include "tests/libpt/cov_ref.h"

#include <errno.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

uint8_t *cov_ref_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		errno = EIO;
		return NULL;
	}
	b = malloc((size_t)n + 64);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
		errno = EIO;
	}
	if (b)
		memset(b + n, 0, 64);	/* libipt's PSB search reads on */
	fclose(f);
	*len = (size_t)n;
	return b;
}

int cov_ref_load_pages(struct cov_ref_pages *pc, const char *prefix)
{
	char path[4096];
	uint8_t *a, *d;
	size_t alen, dlen;
	int err;

	snprintf(path, sizeof(path), "%s.addr", prefix);
	a = cov_ref_slurp(path, &alen);
	if (!a)
		return -errno;
	snprintf(path, sizeof(path), "%s.dump", prefix);
	d = cov_ref_slurp(path, &dlen);
	if (!d) {
		err = -errno;
		free(a);
		return err;
	}
	pc->n = alen / 8 < dlen / PAGE ? alen / 8 : dlen / PAGE;
	pc->addr = (uint64_t *)(void *)a;
	pc->data = d;
	return 0;
}

void cov_ref_free_pages(struct cov_ref_pages *pc)
{
	free(pc->addr);
	free(pc->data);
	memset(pc, 0, sizeof(*pc));
}

static const uint8_t *page_of(const struct cov_ref_pages *pc, uint64_t page)
{
	for (size_t i = 0; i < pc->n; i++) {
		uint64_t a;

		memcpy(&a, &pc->addr[i], sizeof(a));
		if (a == page)
			return pc->data + i * PAGE;
	}
	return NULL;
}

int cov_ref_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		 uint64_t ip, void *ctx)
{
	const struct cov_ref_pages *pc = ctx;
	size_t done = 0;

	(void)asid;
	while (done < size) {
		const uint8_t *p = page_of(pc, (ip + done) & ~(uint64_t)(PAGE - 1));
		size_t off = (ip + done) & (PAGE - 1), n = PAGE - off;

		if (!p)
			break;
		if (n > size - done)
			n = size - done;
		memcpy(buf + done, p + off, n);
		done += n;
	}
	return done ? (int)done : -pte_nomap;
}

struct eset {
	struct cov_ref_edge *e;
	size_t n, cap;
};

static void add_edge(struct eset *s, uint64_t src, uint64_t dst)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		if (!s->e)
			abort();
	}
	s->e[s->n++] = (struct cov_ref_edge){ src, dst, 1 };
}

static int cmp_edge(const void *a, const void *b)
{
	const struct cov_ref_edge *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

static int is_branch(enum pt_insn_class c)
{
	switch (c) {
	case ptic_call: case ptic_return: case ptic_jump: case ptic_cond_jump:
	case ptic_far_call: case ptic_far_return: case ptic_far_jump:
		return 1;
	default:
		return 0;
	}
}

int cov_ref_config(struct pt_config *cfg, const uint8_t *trace, size_t len,
		   uint64_t fstart, uint64_t fend, int family, int model, int stepping)
{
	pt_config_init(cfg);
	cfg->begin = (uint8_t *)trace;
	cfg->end = (uint8_t *)trace + len;
	if (family) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)family;
		cfg->cpu.model = (uint8_t)model;
		cfg->cpu.stepping = (uint8_t)stepping;
		int st = pt_cpu_errata(&cfg->errata, &cfg->cpu);

		if (st < 0)
			return st;
	}
	if (fstart || fend) {
		cfg->addr_filter.config.ctl.addr0_cfg = 1; /* FilterEn (SDM Table 33-6) */
		cfg->addr_filter.addr0_a = fstart;
		cfg->addr_filter.addr0_b = fend - 1;
	}
	return 0;
}

int cov_ref_edges(const uint8_t *trace, size_t len, const struct cov_ref_pages *pc,
		  uint64_t fstart, uint64_t fend, int family, int model, int stepping,
		  struct cov_ref_edge **out, size_t *nout, uint64_t *ninsn)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	struct pt_image *img;
	struct eset s = { 0 };
	uint64_t pend = 0, n_insn = 0;
	int have = 0, st;

	st = cov_ref_config(&cfg, trace, len, fstart, fend, family, model, stepping);
	if (st < 0)
		return st;
	d = pt_insn_alloc_decoder(&cfg);
	if (!d)
		return -pte_nomem;
	img = pt_image_alloc("cov_ref");
	pt_image_set_callback(img, cov_ref_read, (void *)pc);
	pt_insn_set_image(d, img);

	for (;;) {
		st = pt_insn_sync_forward(d);
		if (st < 0)
			break;
		have = 0;
		for (;;) {
			struct pt_insn insn;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
				switch (ev.type) {
				case ptev_disabled:
					if (have && !ev.ip_suppressed)
						add_edge(&s, pend, ev.variant.disabled.ip);
					have = 0;
					break;
				case ptev_async_disabled:
					if (have)
						add_edge(&s, pend, ev.variant.async_disabled.at);
					have = 0;
					break;
				case ptev_async_branch:
					if (have)
						add_edge(&s, pend, ev.variant.async_branch.from);
					have = 0;
					break;
				case ptev_tsx:
					if (ev.variant.tsx.aborted && have && !ev.ip_suppressed)
						add_edge(&s, pend, ev.variant.tsx.ip);
					if (ev.variant.tsx.aborted)
						have = 0;
					break;
				case ptev_overflow:
				case ptev_enabled:
					have = 0;
					break;
				default:
					break;
				}
			}
			if (st < 0 || (st & pts_eos))
				break;
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0)
				break;
			n_insn++;
			if (have)
				add_edge(&s, pend, insn.ip);
			have = is_branch(insn.iclass);
			pend = insn.ip;
		}
	}
	pt_insn_free_decoder(d);
	pt_image_free(img);

	if (s.n)	/* qsort(NULL, 0) is undefined */
		qsort(s.e, s.n, sizeof(*s.e), cmp_edge);
	size_t w = 0;

	for (size_t i = 0; i < s.n; i++) {
		if (w && s.e[w - 1].src == s.e[i].src && s.e[w - 1].dst == s.e[i].dst)
			s.e[w - 1].count++;
		else
			s.e[w++] = s.e[i];
	}
	*out = s.e;
	*nout = w;
	if (ninsn)
		*ninsn = n_insn;
	return 0;
}
