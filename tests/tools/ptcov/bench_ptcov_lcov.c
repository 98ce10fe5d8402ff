// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptcov_lcov (issue 35 "Targets"): what --format=lcov and drcov cost
 * beside --edges. Per trace, the fastest of many runs of
 *
 *   edges: one decode with LPT_COV_F_EDGES and lpt_cov_edges() (what
 *          `ptcov --edges` does per trace);
 *   lcov:  the same decode, then the edges summed, the blocks taken from
 *          the decoder's cache (lpt_cov_block_at()) and their instructions
 *          decoded once per distinct address (cov_flow_build()), the DWARF
 *          line tables and symbol tables read and one line lookup per
 *          distinct executed address (cov_lcov_write(), its records
 *          added to a cov_merge sum), the tracefile written once
 *          (cov_merge_write(), to /dev/null);
 *   drcov: the decode, cov_flow_build() without instructions (the
 *          decoder's blocks only) and the drcov file (to /dev/null);
 *
 * CPU time of the thread (a loaded host preempts, CPU time stays), cold
 * (a new decoder and a new lcov context each time: what one ptcov run on
 * one capture does) and warm (the decoder's cache kept, and lcov's
 * context, cov_lcov_ctx: the modules' DWARF line and symbol tables read
 * at the first call and reused, as one ptcov run reuses them for every
 * capture of the same modules), measured alternately in one run. The
 * target: lcov costs at most the edges decode plus the per-distinct-address
 * work, never work per execution: the bench prints lcov and drcov as a
 * ratio to edges, and lcov - edges divided by the distinct addresses,
 * which must stay flat from short traces to long ones (mruby executes
 * 6.3 M instructions over some 30 k distinct addresses).
 *
 * Traces: kAFL's four with their page caches (no ELF file: no DWARF) and
 * cov_prog (tests/tools/ptcov/progs, -O0 -g, static: DWARF lines and
 * symbols) traced by pt_step_trace (the bench makes the trace when absent).
 * Per trace the bench also checks that lcov's output (tracefile and
 * summary) with a kept context, at its first and second use, equals that
 * with a fresh one, and exits 1 if not.
 */
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>

#include "libpt/cov_internal.h"
#include "tools/ptcov/cov_drcov.h"
#include "tools/ptcov/cov_flow.h"
#include "tools/ptcov/cov_lcov.h"
#include "tools/ptcov/cov_merge.h"
#include "tools/ptcov/cov_module.h"

struct trace {
	const char *name, *pt, *pagecache, *elf;
	uint64_t start, end;	/* IP filter; 0: none */
	unsigned int runs;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum { EDGES, LCOV, DRCOV };

/* One run of @what; returns its time in s, *@ninsn the distinct
 * instructions (lcov, drcov). lcov's tables from @lctx (kept across
 * calls: warm), or read fresh (NULL: cold). */
static double one(int what, struct lpt_cov *cov, const struct lpt_cov_image *img,
		  const struct lpt_cov_config *cfg, const struct cov_modules *ms,
		  const uint8_t *buf, size_t len, FILE *null, size_t *ninsn,
		  struct cov_lcov_ctx *lctx)
{
	double t0 = now();
	const struct lpt_cov_edge *e;
	const struct cov_blk *const *dst;
	struct cov_edges acc = { 0 };
	struct cov_flow f;
	uint64_t gen;
	long n;

	lpt_cov_decode(cov, buf, len, NULL);
	if (what == EDGES) {
		lpt_cov_edges(cov, &e);
		return now() - t0;
	}
	/* as ptcov: the edges with their destinations' blocks */
	n = cov_edges_dst(cov, &e, &dst, &gen);
	if (n < 0)
		return now() - t0;
	cov_edges_add_dst(&acc, e, (size_t)n, dst, cov, gen);
	cov_edges_sort(&acc);
	if (cov_flow_build(&f, img, cfg, &acc, NULL, 0, cov, what == LCOV))
		exit(1);
	if (what == LCOV)
		*ninsn = f.ninsn;
	if (what == DRCOV) {
		struct cov_drcov *d = cov_drcov_alloc();

		cov_drcov_add(d, &f, ms, "code");
		cov_drcov_write(d, null);
		cov_drcov_free(d);
	} else {
		struct cov_merge *m = cov_merge_alloc();

		cov_lcov_write(m, NULL, "bench", &f, &acc, ms, img, NULL, lctx);
		cov_merge_write(m, null, NULL, "", true);
		cov_merge_free(m);
	}
	cov_flow_free(&f);
	cov_edges_free(&acc);
	return now() - t0;
}

/* The instructions from the decoder's blocks and lengths equal those
 * decoded from the code (cov_flow_build() without a decoder): 0, or 1
 * said. */
static int same_insns(const struct lpt_cov_image *img, const struct lpt_cov_config *cfg,
		      const uint8_t *buf, size_t len)
{
	struct lpt_cov *c = lpt_cov_alloc(cfg, img);
	struct cov_edges acc = { 0 };
	const struct lpt_cov_edge *e;
	struct cov_flow a, b;
	long n;
	int bad = 1;

	lpt_cov_decode(c, buf, len, NULL);
	n = lpt_cov_edges(c, &e);
	cov_edges_add(&acc, e, n > 0 ? (size_t)n : 0);
	cov_edges_sort(&acc);
	if (!cov_flow_build(&a, img, cfg, &acc, NULL, 0, c, true)) {
		if (!cov_flow_build(&b, img, cfg, &acc, NULL, 0, NULL, true)) {
			bad = a.ninsn != b.ninsn ||
			      memcmp(a.insn, b.insn, a.ninsn * sizeof(*a.insn)) ||
			      memcmp(a.e_src, b.e_src, acc.n * sizeof(*a.e_src)) ||
			      memcmp(a.e_dst, b.e_dst, acc.n * sizeof(*a.e_dst));
			cov_flow_free(&b);
		}
		cov_flow_free(&a);
	}
	if (bad)
		fprintf(stderr, "bench_ptcov_lcov: the instructions from the decoder's "
			"blocks differ from those decoded\n");
	cov_edges_free(&acc);
	lpt_cov_free(c);
	return bad;
}

/* The tracefile and summary of one decode of @buf, lcov's tables from
 * @lctx (NULL: fresh), in *@text (malloc'd); 0 or -1. */
static int lcov_text(const struct lpt_cov_image *img, const struct lpt_cov_config *cfg,
		     const struct cov_modules *ms, const uint8_t *buf, size_t len,
		     struct cov_lcov_ctx *lctx, char **text)
{
	struct lpt_cov *c = lpt_cov_alloc(cfg, img);
	struct cov_merge *m = cov_merge_alloc();
	struct cov_edges acc = { 0 };
	const struct lpt_cov_edge *e;
	struct cov_flow f;
	size_t size;
	FILE *out = open_memstream(text, &size);
	int ret = -1;
	long n;

	if (!c || !m || !out)
		goto out;
	lpt_cov_decode(c, buf, len, NULL);
	n = lpt_cov_edges(c, &e);
	cov_edges_add(&acc, e, n > 0 ? (size_t)n : 0);
	cov_edges_sort(&acc);
	if (!cov_flow_build(&f, img, cfg, &acc, NULL, 0, c, true)) {
		ret = cov_lcov_write(m, out, "bench", &f, &acc, ms, img, NULL, lctx);
		if (!ret)
			ret = cov_merge_write(m, out, out, "", true);
		cov_flow_free(&f);
	}
out:
	if (out)
		fclose(out);
	else
		*text = NULL;
	cov_merge_free(m);
	cov_edges_free(&acc);
	lpt_cov_free(c);
	return ret;
}

/* lcov's output with a fresh context equals that of a context kept
 * across calls (its first and second use): 0, or 1 said. */
static int same_lcov(const struct lpt_cov_image *img, const struct lpt_cov_config *cfg,
		     const struct cov_modules *ms, const uint8_t *buf, size_t len)
{
	struct cov_lcov_ctx *lctx = cov_lcov_ctx_alloc();
	char *t[3] = { NULL, NULL, NULL };
	int bad = !lctx || lcov_text(img, cfg, ms, buf, len, NULL, &t[0]) ||
		  lcov_text(img, cfg, ms, buf, len, lctx, &t[1]) ||
		  lcov_text(img, cfg, ms, buf, len, lctx, &t[2]) ||
		  strcmp(t[0], t[1]) || strcmp(t[0], t[2]);

	if (bad)
		fprintf(stderr, "bench_ptcov_lcov: lcov with a kept context differs from "
			"lcov with a fresh one\n");
	for (int i = 0; i < 3; i++)
		free(t[i]);
	cov_lcov_ctx_free(lctx);
	return bad;
}

static const Dwfl_Callbacks cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The reference: libdw's own lookup (dwfl_module_getsrc()) of every
 * distinct executed address of @f once; ns per lookup, the first round
 * (libdw reads and sorts the line table: a new Dwfl) in *@first, the
 * fastest of 5 later ones returned. */
static double dwarf_lookups(const char *elf, const struct cov_flow *f, double *first)
{
	Dwfl *dwfl = dwfl_begin(&cbs);
	Dwfl_Module *m;
	double best = 1e9, t_open = now();

	dwfl_report_begin(dwfl);
	m = dwfl_report_elf(dwfl, elf, elf, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	*first = 0;
	for (int r = 0; m && r < 6; r++) {
		double t0 = now();
		int lines = 0;

		for (size_t i = 0; i < f->ninsn; i++) {
			Dwfl_Line *l = dwfl_module_getsrc(m, f->insn[i].addr);
			int ln;

			if (l && dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL))
				lines++;
		}
		if (!r)
			*first = (now() - t_open) * 1e9 / (double)(f->ninsn ? f->ninsn : 1);
		else if (now() - t0 < best)
			best = now() - t0;
		(void)lines;
	}
	dwfl_end(dwfl);
	return f->ninsn ? best * 1e9 / (double)f->ninsn : 0;
}

/*
 * The reference lookup: libdw's line lookup of each distinct executed
 * address of cov_prog's trace (@elf, @pt) once, in ns per address, cold
 * (a new Dwfl: the line table read and sorted too) and warm. 0 when the
 * trace or the program is missing.
 */
static void lookup_ref(const char *elf, const char *pt, double *cold, double *warm)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_cov_config cfg;
	struct lpt_cov *c = NULL;
	struct cov_edges acc = { 0 };
	const struct lpt_cov_edge *e;
	struct cov_flow f;
	char *buf = NULL;
	size_t len;
	long n;

	*cold = *warm = 0;
	lpt_cov_config_init(&cfg);
	cfg.flags = LPT_COV_F_EDGES;
	if (!img || lpt_cov_image_add_elf(img, elf, 0) ||
	    ptcap_dir_read_file(NULL, pt, &buf, &len) || !(c = lpt_cov_alloc(&cfg, img)))
		goto out;
	lpt_cov_decode(c, (uint8_t *)buf, len, NULL);
	n = lpt_cov_edges(c, &e);
	cov_edges_add(&acc, e, n > 0 ? (size_t)n : 0);
	cov_edges_sort(&acc);
	if (!cov_flow_build(&f, img, &cfg, &acc, NULL, 0, c, true)) {
		*warm = dwarf_lookups(elf, &f, cold);
		cov_flow_free(&f);
	}
out:
	cov_edges_free(&acc);
	lpt_cov_free(c);
	lpt_cov_image_free(img);
	free(buf);
}

int main(void)
{
	const char *shared = getenv("LWPT_SHARED");
	const char *o = getenv("O");
	const char *only = getenv("BENCH_TRACE");	/* one trace (profiling) */
	char dir[1024], prog[1024], ptf[1024], cmd[4096];
	struct trace tr[] = {
		{ "Unzip", "Unzip__trace.pt", "Unzip", NULL, 0x400000, 0x427000, 200 },
		{ "foo", "foo__trace.pt", "foo", NULL, 0x7ffff7819000, 0x7ffff79ca000, 200 },
		{ "mruby", "mruby__trace.pt", "mruby", NULL, 0x400000, 0x4b6000, 20 },
		{ "icelake_tip", "icelake_tip__ptlog.pt", "icelake_tip", NULL, 0x1000,
		  0xfffffffffffff000, 200 },
		{ "cov_prog", ptf, NULL, prog, 0, 0, 50 },
	};
	FILE *null = fopen("/dev/null", "w");

	snprintf(dir, sizeof(dir), "%s/testdata/pt/real/libxdc", shared ? shared : "../shared");
	snprintf(prog, sizeof(prog), "%s/vm-cov/cov_prog", o ? o : "build");
	snprintf(ptf, sizeof(ptf), "%s/bench/cov_prog.pt", o ? o : "build");
	snprintf(cmd, sizeof(cmd), "test -s %s || %s/tests/pt_step_trace %s %s abc12 >/dev/null",
		 ptf, o ? o : "build", ptf, prog);
	if (system(cmd))
		fprintf(stderr, "bench_ptcov_lcov: no cov_prog trace (make %s and pt_step_trace)\n",
			prog);
	/* the target: lcov costs no more than the edges decode plus one
	 * DWARF lookup per distinct executed address (libdw's, measured
	 * here; the kAFL traces have no DWARF: cov_prog's figure) */
	double look[2];

	lookup_ref(prog, ptf, &look[0], &look[1]);
	printf("dwfl_module_getsrc() once per distinct address of cov_prog: %.0f ns/address "
	       "with a new Dwfl (cold), %.0f ns warm\n", look[0], look[1]);
	printf("target = edges + that lookup per distinct address; lcov/tgt <= 1.00 meets it\n");
	printf("%-12s %6s %9s %9s %9s %9s %9s %9s %8s %7s %11s\n", "trace", "insns", "edges ms",
	       "lcov ms", "drcov ms", "target ms", "lcov/edg", "drcov/edg", "lcov/tgt", "cold",
	       "ns/address");
	for (size_t i = 0; i < sizeof(tr) / sizeof(tr[0]); i++) {
		const struct trace *t = &tr[i];
		struct lpt_cov_image *img = lpt_cov_image_alloc();
		struct cov_modules ms = { 0 };
		struct lpt_cov_config cfg;
		char path[8192];
		char *buf;
		size_t len, ninsn = 0;
		double best[3][2];

		if (only && strcmp(only, t->name))
			continue;
		if (t->elf) {
			if (lpt_cov_image_add_elf(img, t->elf, 0) ||
			    cov_modules_add_elf(&ms, t->elf, 0) < 0)
				goto skip;
			snprintf(path, sizeof(path), "%s", t->pt);
		} else {
			snprintf(path, sizeof(path), "%s/pagecache/%s", dir, t->pagecache);
			if (lpt_cov_image_add_pagecache(img, path) < 0)
				goto skip;
			snprintf(path, sizeof(path), "%s/%s", dir, t->pt);
		}
		if (ptcap_dir_read_file(NULL, path, &buf, &len))
			goto skip;
		lpt_cov_config_init(&cfg);
		cfg.flags = LPT_COV_F_EDGES;
		if (t->end) {
			cfg.nfilter = 1;
			cfg.filter[0] = (struct lpt_cov_range){ t->start, t->end };
		}
		if (!t->elf) {
			cfg.cpu.vendor = 1;
			cfg.cpu.family = 6;
			cfg.cpu.model = strcmp(t->name, "icelake_tip") ? 94 : 126;
			cfg.cpu.stepping = strcmp(t->name, "icelake_tip") ? 3 : 5;
		}
		for (int w = 0; w < 3; w++)
			best[w][0] = best[w][1] = 1e9;
		/* alternating, the fastest of each; lcov's decoder keeps the
		 * blocks' instruction lengths (LPT_COV_F_LENS), as ptcov's */
		struct lpt_cov_config wcfg[3] = { cfg, cfg, cfg };
		struct lpt_cov *warm[3];
		struct cov_lcov_ctx *lctx = cov_lcov_ctx_alloc();	/* warm's */

		wcfg[LCOV].flags |= LPT_COV_F_LENS;
		for (int w = 0; w < 3; w++)
			warm[w] = lpt_cov_alloc(&wcfg[w], img);
		for (unsigned int r = 0; r < t->runs; r++) {
			for (int w = 0; w < 3; w++) {
				struct lpt_cov *cold = lpt_cov_alloc(&wcfg[w], img);
				double dc = one(w, cold, img, &cfg, &ms, (uint8_t *)buf, len,
						null, &ninsn, NULL);
				double dw = one(w, warm[w], img, &cfg, &ms, (uint8_t *)buf, len,
						null, &ninsn, lctx);

				lpt_cov_free(cold);
				if (dc < best[w][0])
					best[w][0] = dc;
				if (dw < best[w][1])
					best[w][1] = dw;
			}
		}
		for (int w = 0; w < 3; w++)
			lpt_cov_free(warm[w]);
		cov_lcov_ctx_free(lctx);
		if (same_insns(img, &wcfg[LCOV], (uint8_t *)buf, len) ||
		    same_lcov(img, &wcfg[LCOV], &ms, (uint8_t *)buf, len))
			return 1;
		if (t->elf) {
			/* a merged 100-capture run (one layout): 100 decodes,
			 * their edges summed, one lcov; against 100 decodes */
			double d0 = now(), d1, d2;
			struct cov_edges acc = { 0 };
			size_t ni = 0;

			for (int k = 0; k < 100; k++) {
				struct lpt_cov *c = lpt_cov_alloc(&cfg, img);
				const struct lpt_cov_edge *e;
				long n;

				lpt_cov_decode(c, (uint8_t *)buf, len, NULL);
				n = lpt_cov_edges(c, &e);
				lpt_cov_free(c);
				(void)n;
			}
			d1 = now();
			for (int k = 0; k < 100; k++) {
				struct lpt_cov *c = lpt_cov_alloc(&cfg, img);
				const struct lpt_cov_edge *e;
				long n;

				lpt_cov_decode(c, (uint8_t *)buf, len, NULL);
				n = lpt_cov_edges(c, &e);
				cov_edges_add(&acc, e, n > 0 ? (size_t)n : 0);
				lpt_cov_free(c);
			}
			struct lpt_cov *c = lpt_cov_alloc(&cfg, img);

			cov_edges_sort(&acc);
			struct cov_flow f;

			if (!cov_flow_build(&f, img, &cfg, &acc, NULL, 0, NULL, true)) {
				struct cov_merge *m = cov_merge_alloc();

				ni = f.ninsn;
				cov_lcov_write(m, NULL, "bench", &f, &acc, &ms, img, NULL,
					       NULL);
				cov_merge_write(m, null, NULL, "", true);
				cov_merge_free(m);
				cov_flow_free(&f);
			}
			lpt_cov_free(c);
			cov_edges_free(&acc);
			d2 = now();
			printf("%-12s 100 captures merged (one layout, cold): decodes %.3f ms, "
			       "lcov of all %.3f ms (%.2fx; %zu addresses)\n", t->name,
			       (d1 - d0) * 1e3, (d2 - d1) * 1e3, (d2 - d1) / (d1 - d0), ni);
		}
		for (int c = 1; c >= 0; c--) {
			double tgt = best[EDGES][c] + (double)ninsn * look[c ? 1 : 0] * 1e-9;

			printf("%-12s %6zu %9.3f %9.3f %9.3f %9.3f %9.2f %9.2f %8.2f %7s %11.0f\n",
			       t->name, ninsn, best[EDGES][c] * 1e3, best[LCOV][c] * 1e3,
			       best[DRCOV][c] * 1e3, tgt * 1e3, best[LCOV][c] / best[EDGES][c],
			       best[DRCOV][c] / best[EDGES][c], best[LCOV][c] / tgt,
			       c ? "warm" : "cold",
			       ninsn ? (best[LCOV][c] - best[EDGES][c]) * 1e9 / (double)ninsn : 0);
		}
		free(buf);
skip:
		cov_modules_free(&ms);
		lpt_cov_image_free(img);
	}
	fclose(null);
	return 0;
}
