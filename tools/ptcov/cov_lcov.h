/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Line, function and branch coverage as an lcov tracefile (the format of
 * geninfo(1): TN, SF, FN, FNDA, FNF, FNH, BRDA, BRF, BRH, DA, LF, LH,
 * end_of_record), from the edges, the instructions they imply
 * (cov_flow.h), the DWARF line tables and the symbol tables of the
 * modules' ELF files (elfutils libdw). The counting rules are those of
 * Documentation/ptcov.rst "lcov".
 */
#ifndef LWPT_TOOLS_PTCOV_LCOV_H
#define LWPT_TOOLS_PTCOV_LCOV_H

#include <stdio.h>

#include <lwpt/pt_cov.h>

#include "tools/ptcov/cov_flow.h"
#include "tools/ptcov/cov_merge.h"
#include "tools/ptcov/cov_module.h"

/*
 * What a run of several tracefiles (captures of several layouts, each its
 * own cov_lcov_write()) says once: the files without a line table, named
 * once a run, and their functions' coverage, summed over the run.
 */
struct cov_lcov_run;

/** cov_lcov_run_alloc() - an empty run; NULL with errno ENOMEM. */
struct cov_lcov_run *cov_lcov_run_alloc(void);

/**
 * cov_lcov_run_write() - the summary of the functions without a line
 * (those of a file without a line table, or outside its table): per file
 * ("Module 'PATH' (code without lines)") the functions executed of them,
 * one executed in any of the run's tracefiles counted once.
 * @run: the run.
 * @sum: where to write (the summary's stream).
 */
void cov_lcov_run_write(struct cov_lcov_run *run, FILE *sum);

/** cov_lcov_run_free() - release @run (NULL: nothing). */
void cov_lcov_run_free(struct cov_lcov_run *run);

/*
 * The tables of one set of modules that no trace changes (libdw's view of
 * the ELF files, their line tables and symbol tables, sorted; the source
 * lines and files in the tracefile's order), read at the first
 * cov_lcov_write() on that set and kept for the next ones: a ptcov run
 * merging many captures of one program reads them once. Another set of
 * modules (another layout) replaces them.
 */
struct cov_lcov_ctx;

/** cov_lcov_ctx_alloc() - an empty context; NULL with errno ENOMEM. */
struct cov_lcov_ctx *cov_lcov_ctx_alloc(void);

/** cov_lcov_ctx_free() - release @ctx and its tables (NULL: nothing). */
void cov_lcov_ctx_free(struct cov_lcov_ctx *ctx);

/**
 * cov_lcov_write() - the records of an lcov tracefile, added to a sum.
 * @out:   the sum (cov_merge.h) the records are added to, or NULL for
 *         none; cov_merge_write() writes the tracefile and the summary
 *         per source file (lines, functions, branches hit of total, as
 *         `gcov -n`).
 * @sum:   notes (a file without a line table, once), or NULL.
 * @prog:  prefix of notes.
 * @f:     instructions (cov_flow_build()); their @line fields are used.
 * @acc:   the summed edges, sorted: the sum @f was built from
 *         (cov_flow_build() with want_insns; f->e_src, f->e_dst).
 * @ms:    the modules: each ELF file's symbols and lines are read.
 * @img:   the code, for the conditional branches of functions not run.
 * @run:   the run this tracefile is part of: a file without a line table
 *         is named on @sum once a run, its functions' coverage is added
 *         to the run (cov_lcov_run_write() says it); NULL: both said here.
 * @ctx:   the modules' tables kept across calls (cov_lcov_ctx_alloc()):
 *         read when @ctx holds none or another set of modules' (the set
 *         compared by paths, addresses, biases and mappings, some
 *         hundreds of ns), else reused, only the counts cleared; NULL: a
 *         fresh context read and freed in this call. The output is the
 *         same either way.
 *
 * Return: 0, or -1 with errno ENOMEM.
 */
int cov_lcov_write(struct cov_merge *out, FILE *sum, const char *prog,
		   struct cov_flow *f, const struct cov_edges *acc,
		   const struct cov_modules *ms, const struct lpt_cov_image *img,
		   struct cov_lcov_run *run, struct cov_lcov_ctx *ctx);

#endif /* LWPT_TOOLS_PTCOV_LCOV_H */
