// SPDX-License-Identifier: GPL-2.0
/* lcov records summed (cov_merge.h). */
#include "tools/ptcov/cov_merge.h"
#include "tools/ptcov/cov_strtab.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { R_FN = 0, R_BR = 1, R_DA = 2 };

struct rec {
	uint32_t file;
	uint8_t type;		/* R_* */
	bool dash;		/* BRDA "-": the branch's block never ran */
	uint32_t line, block, branch;	/* FN: its line */
	uint32_t name;		/* FN: the function, in cov_merge.names */
	uint64_t count;
};

struct cov_merge {
	struct cov_strtab files;
	struct cov_strtab names;	/* function names */
	struct rec *r;
	size_t n, cap;
};

struct cov_merge *cov_merge_alloc(void)
{
	return calloc(1, sizeof(struct cov_merge));
}

void cov_merge_free(struct cov_merge *m)
{
	if (!m)
		return;
	cov_strtab_free(&m->files);
	cov_strtab_free(&m->names);
	free(m->r);
	free(m);
}

static struct rec *add(struct cov_merge *m, long file, uint8_t type)
{
	struct rec *r;

	if (m->n == m->cap) {
		size_t c = m->cap ? 2 * m->cap : 1024;

		r = realloc(m->r, c * sizeof(*r));
		if (!r)
			return NULL;
		m->r = r;
		m->cap = c;
	}
	r = &m->r[m->n++];
	memset(r, 0, sizeof(*r));
	r->file = (uint32_t)file;
	r->type = type;
	return r;
}

long cov_merge_file(struct cov_merge *m, const char *path)
{
	long i = cov_strtab_id(&m->files, path);

	if (i < 0)
		errno = ENOMEM;
	return i;
}

int cov_merge_fn(struct cov_merge *m, long file, uint32_t line, const char *name,
		 uint64_t count)
{
	long id = cov_strtab_id(&m->names, name);
	struct rec *r = id < 0 ? NULL : add(m, file, R_FN);

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	r->line = line;
	r->name = (uint32_t)id;
	r->count = count;
	return 0;
}

int cov_merge_br(struct cov_merge *m, long file, uint32_t line, uint32_t block,
		 uint32_t branch, uint64_t count, bool dash)
{
	struct rec *r = add(m, file, R_BR);

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	r->line = line;
	r->block = block;
	r->branch = branch;
	r->count = count;
	r->dash = dash;
	return 0;
}

int cov_merge_da(struct cov_merge *m, long file, uint32_t line, uint64_t count)
{
	struct rec *r = add(m, file, R_DA);

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	r->line = line;
	r->count = count;
	return 0;
}

/* Records by file (in the order of the paths: @ctx, the files' ranks),
 * type, then function or (line, block, branch). Functions are grouped
 * by name, in no particular order: they are written by line. */
static int rec_cmp(const void *a, const void *b, void *ctx)
{
	const struct rec *x = a, *y = b;
	const uint32_t *rank = ctx;

	if (x->file != y->file)
		return rank[x->file] < rank[y->file] ? -1 : 1;
	if (x->type != y->type)
		return x->type - y->type;
	if (x->type == R_FN)
		return x->name < y->name ? -1 : x->name > y->name;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->branch < y->branch ? -1 : x->branch > y->branch;
}

/* rec_cmp() but for the order of one file's functions (equal here). */
static int rec_cmp_runs(const struct rec *x, const struct rec *y, uint32_t *rank)
{
	if (x->file == y->file && x->type == R_FN && y->type == R_FN)
		return 0;
	return rec_cmp(x, y, rank);
}

static int path_cmp(const void *a, const void *b, void *ctx)
{
	char *const *s = ctx;

	return strcmp(s[*(const uint32_t *)a], s[*(const uint32_t *)b]);
}

static bool same(const struct rec *x, const struct rec *y)
{
	if (x->file != y->file || x->type != y->type)
		return false;
	if (x->type == R_FN)
		return x->name == y->name;
	return x->line == y->line && x->block == y->block && x->branch == y->branch;
}

static int fn_line_cmp(const void *a, const void *b, void *ctx)
{
	const struct rec *x = *(const struct rec *const *)a;
	const struct rec *y = *(const struct rec *const *)b;
	char *const *names = ctx;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(names[x->name], names[y->name]);
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

int cov_merge_write(struct cov_merge *m, FILE *out, FILE *sum, const char *tn,
		    bool all)
{
	size_t o = 0, missing = 0;
	const char *first_missing = NULL;
	const struct rec **fns = NULL;
	char **files = m->files.s, **names = m->names.s;
	uint32_t *rank = malloc((m->files.n + 1) * sizeof(*rank));
	uint32_t *byname = malloc((m->files.n + 1) * sizeof(*byname));
	bool sorted = true;

	if (!rank || !byname) {
		free(rank);
		free(byname);
		errno = ENOMEM;
		return -1;
	}
	/* the files by path once, then records by the files' ranks */
	for (uint32_t i = 0; i < m->files.n; i++)
		byname[i] = i;
	qsort_r(byname, m->files.n, sizeof(*byname), path_cmp, files);
	for (uint32_t i = 0; i < m->files.n; i++)
		rank[byname[i]] = i;
	free(byname);
	/* one capture group's records come in order but for each file's
	 * functions (by address, not name): only those are sorted then */
	for (size_t i = 1; i < m->n && sorted; i++)
		sorted = rec_cmp_runs(&m->r[i - 1], &m->r[i], rank) <= 0;
	if (!sorted)
		qsort_r(m->r, m->n, sizeof(*m->r), rec_cmp, rank);
	for (size_t i = 0, j; sorted && i < m->n; i = j) {
		bool run_sorted = true;

		for (j = i + 1; j < m->n && m->r[j].type == R_FN && m->r[i].type == R_FN &&
		     m->r[j].file == m->r[i].file; j++)
			run_sorted = run_sorted && m->r[j - 1].name <= m->r[j].name;
		if (!run_sorted)
			qsort_r(&m->r[i], j - i, sizeof(*m->r), rec_cmp, rank);
	}
	free(rank);
	for (size_t i = 0; i < m->n; i++) {
		struct rec *x = &m->r[i];

		if (o && same(&m->r[o - 1], x)) {
			struct rec *y = &m->r[o - 1];

			y->count += x->count;
			if (x->line > y->line && x->type == R_FN)
				y->line = x->line;
			y->dash = y->dash && x->dash;
		} else {
			m->r[o++] = *x;
		}
	}
	m->n = o;
	fns = malloc((m->n + 1) * sizeof(*fns));
	if (!fns) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < m->n;) {
		uint32_t f = m->r[i].file;
		size_t j, nf = 0, fnh = 0, brf = 0, brh = 0, lf = 0, lh = 0;

		for (j = i; j < m->n && m->r[j].file == f; j++) {
			const struct rec *x = &m->r[j];

			if (x->type == R_FN) {
				fns[nf++] = x;
				fnh += x->count > 0;
			} else if (x->type == R_BR) {
				brf++;
				brh += x->count > 0;
			} else {
				lf++;
				lh += x->count > 0;
			}
		}
		if (!all && access(files[f], R_OK)) {
			if (!missing++)
				first_missing = files[f];
			i = j;
			continue;
		}
		if (out) {
			fprintf(out, "TN:%s\nSF:%s\n", tn, files[f]);
			qsort_r(fns, nf, sizeof(*fns), fn_line_cmp, names);
			for (size_t k = 0; k < nf; k++)
				fprintf(out, "FN:%u,%s\n", fns[k]->line, names[fns[k]->name]);
			for (size_t k = 0; k < nf; k++)
				fprintf(out, "FNDA:%" PRIu64 ",%s\n", fns[k]->count,
					names[fns[k]->name]);
			fprintf(out, "FNF:%zu\nFNH:%zu\n", nf, fnh);
			for (size_t k = i; k < j; k++) {
				const struct rec *x = &m->r[k];

				if (x->type != R_BR)
					continue;
				if (x->dash && !x->count)
					fprintf(out, "BRDA:%u,%u,%u,-\n", x->line, x->block,
						x->branch);
				else
					fprintf(out, "BRDA:%u,%u,%u,%" PRIu64 "\n", x->line,
						x->block, x->branch, x->count);
			}
			fprintf(out, "BRF:%zu\nBRH:%zu\n", brf, brh);
			for (size_t k = i; k < j; k++)
				if (m->r[k].type == R_DA)
					fprintf(out, "DA:%u,%" PRIu64 "\n", m->r[k].line,
						m->r[k].count);
			fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", lf, lh);
		}
		if (sum)
			fprintf(sum, "File '%s'\nLines executed:%.2f%% of %zu\n"
				"Functions executed:%.2f%% of %zu\n"
				"Branches taken at least once:%.2f%% of %zu\n\n",
				files[f], pct(lh, lf), lf, pct(fnh, nf), nf,
				pct(brh, brf), brf);
		i = j;
	}
	free(fns);
	if (missing && sum)
		fprintf(sum, "%zu source files not found (%s%s): left out (--all-sources keeps them)\n",
			missing, first_missing, missing > 1 ? ", ..." : "");
	return out && (fflush(out) || ferror(out)) ? -1 : 0;
}
