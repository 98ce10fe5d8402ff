/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lcov tracefiles summed, as `lcov -a` does: the same source file's
 * function, branch and line counts added record by record. ptcov writes
 * every capture's coverage through it, so that one capture and many are
 * one path, and prints the summary per file (as `gcov -n`) from it.
 */
#ifndef LWPT_TOOLS_PTCOV_MERGE_H
#define LWPT_TOOLS_PTCOV_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cov_merge;

/** cov_merge_alloc() - an empty sum; NULL when out of memory. */
struct cov_merge *cov_merge_alloc(void);

/**
 * cov_merge_add() - add a tracefile's records.
 * @m:    the sum.
 * @text: the tracefile (TN, SF, FN, FNDA, BRDA, DA, end_of_record; the
 *        totals FNF, FNH, BRF, BRH, LF, LH are recomputed); @len bytes.
 *
 * Return: 0; -1 when out of memory; -2 for a line that does not parse
 * (nothing of that file after it is added).
 */
int cov_merge_add(struct cov_merge *m, const char *text, size_t len);

/**
 * cov_merge_write() - write the sum as one tracefile and/or the summary.
 * @m:   the sum.
 * @out: the tracefile, or NULL.
 * @sum: the summary (per file: lines, functions, branches executed of
 *       total), or NULL.
 * @tn:  the test name for TN:.
 * @all: false: leave a source file that cannot be read (a library's
 *       debug info without its sources) out of the tracefile, as genhtml
 *       fails on it; how many, and the first, are said on @sum.
 *
 * Return: 0, or -1 on a write error or out of memory.
 */
int cov_merge_write(struct cov_merge *m, FILE *out, FILE *sum, const char *tn,
		    bool all);

/** cov_merge_free() - release @m; NULL is ignored. */
void cov_merge_free(struct cov_merge *m);

#endif /* LWPT_TOOLS_PTCOV_MERGE_H */
