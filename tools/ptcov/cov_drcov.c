// SPDX-License-Identifier: GPL-2.0
/* drcov version 2 output (cov_drcov.h). */
#include "tools/ptcov/cov_drcov.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct dr_mod {
	char *path;
	uint64_t base, end;	/* of the first capture that had it */
};

struct dr_bb {
	uint32_t start;
	uint16_t size, mod;
};

struct cov_drcov {
	struct dr_mod *m;
	size_t nm;
	struct dr_bb *bb;
	size_t nbb, cap;
};

struct cov_drcov *cov_drcov_alloc(void)
{
	return calloc(1, sizeof(struct cov_drcov));
}

void cov_drcov_free(struct cov_drcov *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nm; i++)
		free(d->m[i].path);
	free(d->m);
	free(d->bb);
	free(d);
}

/* The module named @path (added with @base and @end if new; blocks are
 * relative to this capture's @base), or -1. */
static long mod_id(struct cov_drcov *d, const char *path, uint64_t base,
		   uint64_t end, uint64_t *rbase)
{
	for (size_t i = 0; i < d->nm; i++) {
		if (strcmp(d->m[i].path, path))
			continue;
		*rbase = base;
		return (long)i;
	}
	struct dr_mod *n = realloc(d->m, (d->nm + 1) * sizeof(*n));

	if (!n)
		return -1;
	d->m = n;
	n[d->nm].path = strdup(path);
	if (!n[d->nm].path)
		return -1;
	n[d->nm].base = base;
	n[d->nm].end = end;
	*rbase = base;
	return (long)d->nm++;
}

static int add_bb(struct cov_drcov *d, uint64_t off, uint64_t size, long mod)
{
	for (uint64_t a = off; a < off + size; a += 0xffff) {
		if (d->nbb == d->cap) {
			size_t c = d->cap ? 2 * d->cap : 1024;
			struct dr_bb *n = realloc(d->bb, c * sizeof(*n));

			if (!n)
				return -1;
			d->bb = n;
			d->cap = c;
		}
		uint64_t sz = off + size - a > 0xffff ? 0xffff : off + size - a;

		d->bb[d->nbb++] = (struct dr_bb){ (uint32_t)a, (uint16_t)sz,
						  (uint16_t)mod };
	}
	return 0;
}

int cov_drcov_add(struct cov_drcov *d, const struct cov_flow *f,
		  const struct cov_modules *ms, const char *unknown)
{
	long run = -1;
	uint64_t run_base = 0;

	for (size_t i = 0; i < f->nblk; i++) {
		const struct cov_block *b = &f->blk[i];
		long k = cov_modules_find(ms, b->start);
		uint64_t base;
		long id;

		if (k >= 0 && b->end - ms->mod[k].start <= UINT32_MAX) {
			id = mod_id(d, ms->mod[k].path, ms->mod[k].start,
				    ms->mod[k].end, &base);
		} else {
			/* outside every module: runs of at most 4 GiB */
			if (run < 0 || b->end - run_base > UINT32_MAX) {
				char name[4096];

				run_base = b->start & ~(uint64_t)0xfff;
				snprintf(name, sizeof(name), "%s@0x%" PRIx64, unknown,
					 run_base);
				run = mod_id(d, name, run_base, b->end, &base);
				if (run < 0)
					return -1;
			}
			if (b->end > d->m[run].end)
				d->m[run].end = b->end;
			id = run;
			base = run_base;
		}
		if (id < 0 || id > 0xffff) {
			errno = id < 0 ? ENOMEM : EOVERFLOW;
			return -1;
		}
		if (add_bb(d, b->start - base, b->end - b->start, id))
			return -1;
	}
	return 0;
}

static int bb_cmp(const void *a, const void *b)
{
	const struct dr_bb *x = a, *y = b;

	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

int cov_drcov_write(struct cov_drcov *d, FILE *out)
{
	size_t o = 0;

	if (d->nbb)
		qsort(d->bb, d->nbb, sizeof(*d->bb), bb_cmp);
	for (size_t i = 0; i < d->nbb; i++)
		if (!o || bb_cmp(&d->bb[o - 1], &d->bb[i]))
			d->bb[o++] = d->bb[i];
	d->nbb = o;
	fprintf(out, "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov\n"
		"Module Table: version 2, count %zu\n"
		"Columns: id, base, end, entry, checksum, timestamp, path\n", d->nm);
	for (size_t i = 0; i < d->nm; i++)
		fprintf(out, "%3zu, 0x%016" PRIx64 ", 0x%016" PRIx64
			", 0x%016" PRIx64 ", 0x%08x, 0x%08x, %s\n",
			i, d->m[i].base, d->m[i].end, (uint64_t)0, 0u, 0u, d->m[i].path);
	fprintf(out, "BB Table: %zu bbs\n", d->nbb);
	for (size_t i = 0; i < d->nbb; i++) {
		uint32_t start = htole32(d->bb[i].start);
		uint16_t size = htole16(d->bb[i].size);
		uint16_t id = htole16(d->bb[i].mod);
		uint8_t rec[8];

		memcpy(rec, &start, 4);
		memcpy(rec + 4, &size, 2);
		memcpy(rec + 6, &id, 2);
		if (fwrite(rec, 1, 8, out) != 8)
			return -1;
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}
