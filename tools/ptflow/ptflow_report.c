// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow --report: the per-function table (see ptflow_report.h), an open
 * addressing hash table keyed by function start address.
 */
#include "tools/ptflow/ptflow_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ptflow/ptflow_time.h"

struct report_func {
	uint64_t key;
	char *name;			/* NULL: free slot */
	uint64_t self_insns, total_insns;
	uint64_t self_ticks, total_ticks;
	uint64_t calls;
	uint64_t active;		/* activations open now */
};

struct ptflow_report {
	struct report_func *slot;
	size_t cap;			/* power of two */
	size_t used;
};

struct ptflow_report *ptflow_report_alloc(void)
{
	return calloc(1, sizeof(struct ptflow_report));
}

void ptflow_report_free(struct ptflow_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->cap; i++)
		free(r->slot[i].name);
	free(r->slot);
	free(r);
}

static size_t report_hash(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: function addresses share their low bits. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static struct report_func *report_probe(struct report_func *slot, size_t cap,
					uint64_t key)
{
	size_t i = report_hash(key, cap);

	while (slot[i].name && slot[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static int report_grow(struct ptflow_report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 64, i;
	struct report_func *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 0; i < r->cap; i++)
		if (r->slot[i].name)
			*report_probe(slot, cap, r->slot[i].key) = r->slot[i];
	free(r->slot);
	r->slot = slot;
	r->cap = cap;
	return 0;
}

bool ptflow_report_known(const struct ptflow_report *r, uint64_t key)
{
	return r->cap && report_probe(r->slot, r->cap, key)->name;
}

/* The entry of @key, created with @name if new; NULL when out of memory. */
static struct report_func *report_get(struct ptflow_report *r, uint64_t key,
				      const char *name)
{
	struct report_func *f;

	if ((r->used + 1) * 4 > r->cap * 3 && report_grow(r))
		return NULL;
	f = report_probe(r->slot, r->cap, key);
	if (!f->name) {
		f->name = strdup(name);
		if (!f->name)
			return NULL;
		f->key = key;
		r->used++;
	}
	return f;
}

int ptflow_report_self(struct ptflow_report *r, uint64_t key,
		       const char *name, uint64_t insns, uint64_t ticks)
{
	struct report_func *f = report_get(r, key, name);

	if (!f)
		return -1;
	f->self_insns += insns;
	f->self_ticks += ticks;
	return 0;
}

int ptflow_report_enter(struct ptflow_report *r, uint64_t key,
			const char *name, bool called)
{
	struct report_func *f = report_get(r, key, name);

	if (!f)
		return -1;
	f->active++;
	if (called)
		f->calls++;
	return 0;
}

void ptflow_report_leave(struct ptflow_report *r, uint64_t key,
			 uint64_t insns, uint64_t ticks)
{
	struct report_func *f;

	if (!r->cap)
		return;
	f = report_probe(r->slot, r->cap, key);
	if (!f->name || !f->active)
		return;
	if (--f->active)
		return;
	f->total_insns += insns;
	f->total_ticks += ticks;
}

int ptflow_report_merge(struct ptflow_report *into,
			const struct ptflow_report *from)
{
	size_t i;

	for (i = 0; i < from->cap; i++) {
		const struct report_func *s = &from->slot[i];
		struct report_func *d;

		if (!s->name)
			continue;
		d = report_get(into, s->key, s->name);
		if (!d)
			return -1;
		d->self_insns += s->self_insns;
		d->total_insns += s->total_insns;
		d->self_ticks += s->self_ticks;
		d->total_ticks += s->total_ticks;
		d->calls += s->calls;
	}
	return 0;
}

static int report_cmp(const void *a, const void *b)
{
	const struct report_func *x = *(const struct report_func *const *)a;
	const struct report_func *y = *(const struct report_func *const *)b;

	if (x->self_insns != y->self_insns)
		return x->self_insns < y->self_insns ? 1 : -1;
	if (x->total_insns != y->total_insns)
		return x->total_insns < y->total_insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static uint64_t report_time(uint64_t ticks, uint64_t hz)
{
	return hz ? ptflow_ticks_to_ns(ticks, hz) : ticks;
}

void ptflow_report_print(const struct ptflow_report *r, FILE *out,
			 const char *title, uint64_t hz)
{
	const struct report_func **row;
	uint64_t insns = 0, ticks = 0;
	size_t n = 0, i;
	bool timed;

	row = malloc((r->used ? r->used : 1) * sizeof(*row));
	if (!row) {
		fprintf(out, "[report %s: out of memory]\n", title);
		return;
	}
	for (i = 0; i < r->cap; i++) {
		if (!r->slot[i].name)
			continue;
		row[n++] = &r->slot[i];
		insns += r->slot[i].self_insns;
		ticks += r->slot[i].self_ticks;
	}
	qsort(row, n, sizeof(*row), report_cmp);
	timed = ticks != 0;

	fprintf(out, "[report %s: %" PRIu64 " instructions", title, insns);
	if (timed)
		fprintf(out, ", %" PRIu64 " %s", report_time(ticks, hz),
			hz ? "ns" : "TSC ticks");
	fprintf(out, "]\n");
	fprintf(out, "%12s %12s %7s %8s", "self-insns", "total-insns",
		"self-%", "calls");
	if (timed)
		fprintf(out, " %14s %14s", hz ? "self-ns" : "self-ticks",
			hz ? "total-ns" : "total-ticks");
	fprintf(out, "  function\n");
	for (i = 0; i < n; i++) {
		const struct report_func *f = row[i];
		uint64_t pm = insns ? f->self_insns * 10000 / insns : 0;

		fprintf(out, "%12" PRIu64 " %12" PRIu64 " %4" PRIu64 ".%02"
			PRIu64 " %8" PRIu64, f->self_insns, f->total_insns,
			pm / 100, pm % 100, f->calls);
		if (timed)
			fprintf(out, " %14" PRIu64 " %14" PRIu64,
				report_time(f->self_ticks, hz),
				report_time(f->total_ticks, hz));
		fprintf(out, "  %s\n", f->name);
	}
	free(row);
}
