// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow --export=chrome: collect activations, sort, write JSON (see
 * ptflow_chrome.h).
 */
#include "tools/ptflow/ptflow_chrome.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct chrome_event {
	uint64_t begin, end;	/* ns */
	uint32_t pid, tid, depth;
	char *name;		/* "M" (metadata) events: the thread name */
	bool meta;
	size_t order;		/* insertion order, ties */
};

struct ptflow_chrome {
	struct chrome_event *ev;
	size_t n, cap;
};

struct ptflow_chrome *ptflow_chrome_alloc(void)
{
	return calloc(1, sizeof(struct ptflow_chrome));
}

void ptflow_chrome_free(struct ptflow_chrome *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->ev[i].name);
	free(c->ev);
	free(c);
}

static struct chrome_event *chrome_new(struct ptflow_chrome *c,
				       const char *name)
{
	struct chrome_event *e;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;

		e = realloc(c->ev, cap * sizeof(*e));
		if (!e)
			return NULL;
		c->ev = e;
		c->cap = cap;
	}
	e = &c->ev[c->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return NULL;
	e->order = c->n++;
	return e;
}

int ptflow_chrome_thread(struct ptflow_chrome *c, uint32_t pid, uint32_t tid,
			 const char *name)
{
	struct chrome_event *e = chrome_new(c, name);

	if (!e)
		return -1;
	e->pid = pid;
	e->tid = tid;
	e->meta = true;
	return 0;
}

int ptflow_chrome_add(struct ptflow_chrome *c, uint32_t pid, uint32_t tid,
		      const char *name, uint32_t depth, uint64_t begin,
		      uint64_t end)
{
	struct chrome_event *e = chrome_new(c, name);

	if (!e)
		return -1;
	e->pid = pid;
	e->tid = tid;
	e->depth = depth;
	e->begin = begin;
	e->end = end < begin ? begin : end;
	return 0;
}

/* Metadata first; then per thread by begin, outer (lower depth) first. */
static int chrome_cmp(const void *a, const void *b)
{
	const struct chrome_event *x = a, *y = b;

	if (x->meta != y->meta)
		return x->meta ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A JSON string (RFC 8259, section 7). */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* Nanoseconds as microseconds with three decimals: exact. */
static void json_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

int ptflow_chrome_write(struct ptflow_chrome *c, FILE *out)
{
	size_t i;

	/* No event at all (nothing selected): c->ev is NULL. */
	if (c->n)
		qsort(c->ev, c->n, sizeof(*c->ev), chrome_cmp);
	fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	for (i = 0; i < c->n; i++) {
		const struct chrome_event *e = &c->ev[i];

		fprintf(out, "%s\n{\"name\": ", i ? "," : "");
		if (e->meta) {
			fprintf(out, "\"thread_name\", \"ph\": \"M\", "
				"\"pid\": %" PRIu32 ", \"tid\": %" PRIu32
				", \"args\": {\"name\": ", e->pid, e->tid);
			json_string(out, e->name);
			fprintf(out, "}}");
			continue;
		}
		json_string(out, e->name);
		fprintf(out, ", \"cat\": \"call\", \"ph\": \"X\", \"ts\": ");
		json_us(out, e->begin);
		fprintf(out, ", \"dur\": ");
		json_us(out, e->end - e->begin);
		fprintf(out, ", \"pid\": %" PRIu32 ", \"tid\": %" PRIu32
			", \"args\": {\"depth\": %" PRIu32 "}}", e->pid,
			e->tid, e->depth);
	}
	fprintf(out, "\n]}\n");
	return ferror(out) ? -1 : 0;
}
