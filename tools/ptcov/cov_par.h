/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptcov -j N: one trace cut at PSBs (lwpt/pt_chunk.h) and decoded by N
 * coverage decoders at once; the map and the edges are the sums of the
 * chunks', the same as one lpt_cov_decode() of the whole trace
 * (Documentation/ptcov.rst "Every core").
 */
#ifndef PTCOV_COV_PAR_H
#define PTCOV_COV_PAR_H

#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>

#include "tools/ptcov/cov_flow.h"

/* What a chunked decode gives besides the map. */
struct cov_par_result {
	int ret;		/* the first error in trace order, or 0; on
				 * an error the caller decodes the trace
				 * whole (a chunk of a corrupt trace need
				 * not start where the whole decode is) */
	struct cov_edges edges;	/* sorted, summed (LPT_COV_F_EDGES) */
	struct lpt_cov_stats st;	/* the chunks' figures summed */
	size_t nchunk;		/* chunks decoded */
};

/**
 * cov_par_decode() - lpt_cov_decode() of one trace on @jobs threads.
 * @cfg:    the decoders' configuration; each of the @jobs decoders gets
 *          it with LPT_COV_F_CHUNK added.
 * @img:    the code; read by every worker at once (read-only).
 * @jobs:   threads, >= 2 (lpt_par_jobs()).
 * @chunk:  target chunk size in bytes (lpt_chunk_next()).
 * @buf:    the trace; @len bytes.
 * @map:    cfg->map_size bytes the caller zeroed: the summed map.
 * @res:    receives the rest; free res->edges with cov_edges_free().
 *
 * Return: 0, or -1 with errno ENOMEM or EAGAIN (no memory, no thread).
 */
int cov_par_decode(const struct lpt_cov_config *cfg,
		   const struct lpt_cov_image *img, unsigned int jobs,
		   size_t chunk, const uint8_t *buf, size_t len, uint8_t *map,
		   struct cov_par_result *res);

#endif /* PTCOV_COV_PAR_H */
