// SPDX-License-Identifier: GPL-2.0
/*
 * ptcov -j N (issue 34 point 3): the chunks of one trace (lwpt/pt_chunk.h)
 * on lpt_par_run()'s threads, one coverage decoder per thread. Each worker
 * adds its chunks into its own map and edge sum (addition modulo 256 and of
 * counts commutes, so the order the chunks are worked in does not matter);
 * the first error is taken in trace order when a chunk is emitted.
 * Why no edge is lost or doubled at a boundary: Documentation/ptcov.rst
 * "Every core".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_chunk.h>

#include "tools/ptcov/cov_par.h"

struct par_job {
	size_t off, len;
	int ret;
	bool nomem;
	struct lpt_cov_stats st;
};

struct par_ctx {
	const uint8_t *buf;
	size_t len, pos, chunk, map_size;
	bool edges;
	struct lpt_cov **cov;		/* per worker */
	uint8_t **map;			/* per worker; [0] the caller's */
	struct cov_edges *acc;		/* per worker */
	struct cov_par_result *res;
	bool nomem;
};

static int par_next(void *vctx, void *vjob)
{
	struct par_ctx *c = vctx;
	struct par_job *j = vjob;
	size_t end;

	if (c->pos >= c->len)
		return 0;
	end = lpt_chunk_next(c->buf, c->len, c->pos, c->chunk);
	j->off = c->pos;
	/* through the next chunk's PSB+ (LPT_COV_F_CHUNK) */
	j->len = lpt_chunk_psb_end(c->buf, c->len, end) - c->pos;
	c->pos = end;
	return 1;
}

static void par_work(void *vctx, unsigned int w, void *vjob)
{
	struct par_ctx *c = vctx;
	struct par_job *j = vjob;

	j->ret = lpt_cov_decode(c->cov[w], c->buf + j->off, j->len, c->map[w]);
	lpt_cov_stats(c->cov[w], &j->st);
	if (c->edges) {
		const struct lpt_cov_edge *e;
		long ne = lpt_cov_edges(c->cov[w], &e);

		if (ne < 0 || cov_edges_add(&c->acc[w], e, (size_t)ne))
			j->nomem = true;
	}
}

static int par_emit(void *vctx, void *vjob)
{
	struct par_ctx *c = vctx;
	struct par_job *j = vjob;
	struct cov_par_result *r = c->res;

	r->nchunk++;
	if (j->nomem)
		c->nomem = true;
	if (j->ret < 0 && !r->ret)
		r->ret = j->ret;
	r->st.branches += j->st.branches;
	r->st.tnt_bits += j->st.tnt_bits;
	r->st.path_hits += j->st.path_hits;
	r->st.insns += j->st.insns;
	r->st.errors += j->st.errors;
	return 0;
}

int cov_par_decode(const struct lpt_cov_config *cfg,
		   const struct lpt_cov_image *img, unsigned int jobs,
		   size_t chunk, const uint8_t *buf, size_t len, uint8_t *map,
		   struct cov_par_result *res)
{
	static const struct lpt_par_ops ops = {
		.next = par_next, .work = par_work, .emit = par_emit,
	};
	struct par_ctx c = {
		.buf = buf, .len = len, .chunk = chunk, .map_size = cfg->map_size,
		.edges = cfg->flags & LPT_COV_F_EDGES, .res = res,
	};
	struct lpt_cov_config ccfg;
	int ret = -1, r;

	memset(res, 0, sizeof(*res));
	c.cov = calloc(jobs, sizeof(*c.cov));
	c.map = calloc(jobs, sizeof(*c.map));
	c.acc = calloc(jobs, sizeof(*c.acc));
	if (!c.cov || !c.map || !c.acc)
		goto out;
	ccfg = *cfg;
	ccfg.flags |= LPT_COV_F_CHUNK;
	c.map[0] = map;
	for (unsigned int w = 0; w < jobs; w++) {
		c.cov[w] = lpt_cov_alloc(&ccfg, img);
		if (!w)
			continue;
		c.map[w] = calloc(1, cfg->map_size);
		if (!c.cov[w] || !c.map[w])
			goto out;
	}
	r = lpt_par_run(&ops, &c, jobs, sizeof(struct par_job), 0);
	if (r < 0) {
		errno = -r;
		goto out;
	}
	if (c.nomem) {
		errno = ENOMEM;
		goto out;
	}
	for (unsigned int w = 0; w < jobs; w++) {
		struct lpt_cov_stats st;

		if (w)
			for (size_t i = 0; i < cfg->map_size; i++)
				map[i] += c.map[w][i];
		if (c.edges && cov_edges_add(&res->edges, c.acc[w].e, c.acc[w].n))
			goto out;
		lpt_cov_stats(c.cov[w], &st);
		res->st.blocks += st.blocks;
		res->st.edges += st.edges;
		res->st.paths += st.paths;
		res->st.cache_bytes += st.cache_bytes;
		res->st.flushes += st.flushes;
	}
	if (c.edges && cov_edges_sort(&res->edges))
		goto out;
	ret = 0;
out:
	for (unsigned int w = 0; c.acc && w < jobs; w++)
		cov_edges_free(&c.acc[w]);
	for (unsigned int w = 0; c.cov && c.map && w < jobs; w++) {
		lpt_cov_free(c.cov[w]);
		if (w)
			free(c.map[w]);
	}
	free(c.acc);
	free(c.map);
	free(c.cov);
	if (ret)
		cov_edges_free(&res->edges);
	return ret;
}
