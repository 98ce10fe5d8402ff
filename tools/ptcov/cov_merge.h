/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lcov records summed, as `lcov -a` sums tracefiles: the same source
 * file's function, branch and line counts added record by record.
 * cov_lcov_write() adds every capture group's records here directly (no
 * tracefile text between them), so that one capture and many are one
 * path; the tracefile is written once, and the summary per file (as
 * `gcov -n`) from it.
 */
#ifndef LWPT_TOOLS_PTCOV_MERGE_H
#define LWPT_TOOLS_PTCOV_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cov_merge;

/** cov_merge_alloc() - an empty sum; NULL when out of memory. */
struct cov_merge *cov_merge_alloc(void);

/**
 * cov_merge_file() - the index of source file @path in @m (SF:), added
 * if new: a hash lookup, the same index for the same path in every
 * capture.
 *
 * Return: the index (>= 0), or -1 when out of memory (errno ENOMEM).
 */
long cov_merge_file(struct cov_merge *m, const char *path);

/**
 * cov_merge_fn() - add a function's record (FN: and FNDA:).
 * @m:     the sum.
 * @file:  cov_merge_file()'s index.
 * @line:  its line (FN:); over several records the largest is kept.
 * @name:  its name (copied); records of one name in one file are one
 *         function.
 * @count: its entries (FNDA:), added.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_merge_fn(struct cov_merge *m, long file, uint32_t line, const char *name,
		 uint64_t count);

/**
 * cov_merge_br() - add a branch outcome's record (BRDA:LINE,BLOCK,BRANCH,
 * COUNT).
 * @m:     the sum.
 * @file:  cov_merge_file()'s index.
 * @line:  the line, @block the block in it, @branch the outcome.
 * @count: the times taken, added.
 * @dash:  the branch's block never ran ("-"): written as "-" only while
 *         every record of it says so and the sum of counts is 0.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_merge_br(struct cov_merge *m, long file, uint32_t line, uint32_t block,
		 uint32_t branch, uint64_t count, bool dash);

/**
 * cov_merge_da() - add a line's record (DA:LINE,COUNT).
 * @m:     the sum.
 * @file:  cov_merge_file()'s index.
 * @line:  the line number; @count its executions, added.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_merge_da(struct cov_merge *m, long file, uint32_t line, uint64_t count);

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
