// SPDX-License-Identifier: GPL-2.0
/* lcov tracefiles summed (cov_merge.h). */
#include "tools/ptcov/cov_merge.h"

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
	uint32_t line, block, branch;	/* FN: line 0 from an FNDA */
	const char *name;	/* FN: the function */
	uint64_t count;
};

struct cov_merge {
	char **files;
	size_t nfiles;
	char **names;		/* function names, owned */
	size_t nnames;
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
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->files);
	free(m->names);
	free(m->r);
	free(m);
}

static char *keep(char ***arr, size_t *n, const char *s, size_t len, bool find)
{
	if (find)
		for (size_t i = *n; i-- > 0;)
			if (strlen((*arr)[i]) == len && !memcmp((*arr)[i], s, len))
				return (*arr)[i];
	char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return NULL;
	*arr = a;
	a[*n] = strndup(s, len);
	if (!a[*n])
		return NULL;
	return a[(*n)++];
}

static struct rec *add(struct cov_merge *m)
{
	if (m->n == m->cap) {
		size_t c = m->cap ? 2 * m->cap : 1024;
		struct rec *r = realloc(m->r, c * sizeof(*r));

		if (!r)
			return NULL;
		m->r = r;
		m->cap = c;
	}
	memset(&m->r[m->n], 0, sizeof(m->r[0]));
	return &m->r[m->n++];
}

static const char *name_of(struct cov_merge *m, const char *s, size_t len)
{
	return keep(&m->names, &m->nnames, s, len, true);
}

int cov_merge_add(struct cov_merge *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	long file = -1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char buf[64];
		struct rec *r;
		unsigned long long a, b, c;
		int used = 0;

		if (ll && p[ll - 1] == '\r')
			ll--;
		if (ll > 3 && !memcmp(p, "SF:", 3)) {
			size_t i;

			for (i = 0; i < m->nfiles; i++)
				if (strlen(m->files[i]) == ll - 3 &&
				    !memcmp(m->files[i], p + 3, ll - 3))
					break;
			if (i == m->nfiles && !keep(&m->files, &m->nfiles, p + 3, ll - 3,
						    false))
				return -1;
			file = (long)i;
		} else if (ll >= 3 && !memcmp(p, "FN:", 3) && file >= 0) {
			const char *comma = memchr(p + 3, ',', ll - 3);

			if (!comma || sscanf(p + 3, "%llu", &a) != 1)
				return -2;
			if (!(r = add(m)))
				return -1;
			r->file = (uint32_t)file;
			r->type = R_FN;
			r->line = (uint32_t)a;
			r->name = name_of(m, comma + 1, (size_t)(p + ll - comma - 1));
			if (!r->name)
				return -1;
		} else if (ll >= 5 && !memcmp(p, "FNDA:", 5) && file >= 0) {
			const char *comma = memchr(p + 5, ',', ll - 5);

			if (!comma || sscanf(p + 5, "%llu", &a) != 1)
				return -2;
			if (!(r = add(m)))
				return -1;
			r->file = (uint32_t)file;
			r->type = R_FN;
			r->count = a;
			r->name = name_of(m, comma + 1, (size_t)(p + ll - comma - 1));
			if (!r->name)
				return -1;
		} else if (ll >= 5 && !memcmp(p, "BRDA:", 5) && file >= 0) {
			size_t k = ll - 5 < sizeof(buf) - 1 ? ll - 5 : sizeof(buf) - 1;

			memcpy(buf, p + 5, k);
			buf[k] = '\0';
			if (sscanf(buf, "%llu,%llu,%llu,%n", &a, &b, &c, &used) != 3 || !used)
				return -2;
			if (!(r = add(m)))
				return -1;
			r->file = (uint32_t)file;
			r->type = R_BR;
			r->line = (uint32_t)a;
			r->block = (uint32_t)b;
			r->branch = (uint32_t)c;
			if (buf[used] == '-')
				r->dash = true;
			else
				r->count = strtoull(buf + used, NULL, 10);
		} else if (ll >= 3 && !memcmp(p, "DA:", 3) && file >= 0) {
			size_t k = ll - 3 < sizeof(buf) - 1 ? ll - 3 : sizeof(buf) - 1;

			memcpy(buf, p + 3, k);
			buf[k] = '\0';
			if (sscanf(buf, "%llu,%llu", &a, &b) != 2)
				return -2;
			if (!(r = add(m)))
				return -1;
			r->file = (uint32_t)file;
			r->type = R_DA;
			r->line = (uint32_t)a;
			r->count = b;
		} else if (ll >= 13 && !memcmp(p, "end_of_record", 13)) {
			file = -1;
		}
		p += ll + 1;
		if (nl)
			p = nl + 1;
	}
	return 0;
}

static int rec_cmp(const void *a, const void *b, void *ctx)
{
	const struct rec *x = a, *y = b;
	char **files = ctx;
	int c;

	if (x->file != y->file && (c = strcmp(files[x->file], files[y->file])))
		return c;
	if (x->type != y->type)
		return x->type - y->type;
	if (x->type == R_FN)
		return strcmp(x->name, y->name);
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->branch < y->branch ? -1 : x->branch > y->branch;
}

static bool same(const struct rec *x, const struct rec *y)
{
	if (x->file != y->file || x->type != y->type)
		return false;
	if (x->type == R_FN)
		return x->name == y->name;
	return x->line == y->line && x->block == y->block && x->branch == y->branch;
}

static int fn_line_cmp(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a;
	const struct rec *y = *(const struct rec *const *)b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
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

	if (m->n)
		qsort_r(m->r, m->n, sizeof(*m->r), rec_cmp, m->files);
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
	if (!fns)
		return -1;
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
		if (!all && access(m->files[f], R_OK)) {
			if (!missing++)
				first_missing = m->files[f];
			i = j;
			continue;
		}
		if (out) {
			fprintf(out, "TN:%s\nSF:%s\n", tn, m->files[f]);
			qsort(fns, nf, sizeof(*fns), fn_line_cmp);
			for (size_t k = 0; k < nf; k++)
				fprintf(out, "FN:%u,%s\n", fns[k]->line, fns[k]->name);
			for (size_t k = 0; k < nf; k++)
				fprintf(out, "FNDA:%" PRIu64 ",%s\n", fns[k]->count, fns[k]->name);
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
				m->files[f], pct(lh, lf), lf, pct(fnh, nf), nf,
				pct(brh, brf), brf);
		i = j;
	}
	free(fns);
	if (missing && sum)
		fprintf(sum, "%zu source files not found (%s%s): left out (--all-sources keeps them)\n",
			missing, first_missing, missing > 1 ? ", ..." : "");
	return out && (fflush(out) || ferror(out)) ? -1 : 0;
}
