// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data in directory format (`perf record --threads`, perf 5.x+): a
 * directory holding `data`, a perf.data whose header has the
 * HEADER_DIR_FORMAT feature (u64 version, PERF_DIR_VERSION 1; util/header.c
 * write_dir_format()), and `data.N`, one per recording thread, each its
 * thread's records with no header (util/data.c perf_data__create_dir(),
 * builtin-record.c record__write() to the thread's file).
 *
 * perf reads every regular file named data.* of the directory (util/data.c
 * perf_data__open_dir(); empty ones skipped) after the data section of
 * `data`, and sorts the kernel records of all of them by time through its
 * ordered events (util/session.c __perf_session__process_dir_events()).
 * Here the files are mapped one after the other into one reserved address
 * range, so that every record and every AUXTRACE buffer keeps one offset
 * in p->map, and the sideband read from them is sorted by time afterwards
 * (stably: records of equal time keep the order of `data`, then data.0,
 * data.1, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "libpt/perf_internal.h"

/* util/data.h PERF_DIR_VERSION. */
#define PERF_DIR_VERSION	1

struct dir_file {
	char *path;
	unsigned long n;	/* the N of data.N (ULONG_MAX: not a number) */
	uint64_t size;
};

static int cmp_dir_file(const void *a, const void *b)
{
	const struct dir_file *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void free_files(struct dir_file *f, size_t n)
{
	while (n)
		free(f[--n].path);
	free(f);
}

/* The data.* regular files of @dir, by number. */
static int list_files(const char *dir, struct dir_file **out, size_t *nout)
{
	struct dir_file *f = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return lpt_perf_fail(LPT_PERF_E_IO, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dp))) {
		struct dir_file *e;
		struct stat st;
		char *path, *end;

		if (strncmp(d->d_name, "data.", 5))
			continue;
		if (asprintf(&path, "%s/%s", dir, d->d_name) < 0)
			goto nomem;
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (lpt_perf_grow(&f, &cap, n + 1, sizeof(*f))) {
			free(path);
			goto nomem;
		}
		e = &f[n++];
		e->path = path;
		e->size = (uint64_t)st.st_size;
		e->n = strtoul(d->d_name + 5, &end, 10);
		if (*end || end == d->d_name + 5)
			e->n = (unsigned long)-1;
	}
	closedir(dp);
	if (n)
		qsort(f, n, sizeof(*f), cmp_dir_file);
	*out = f;
	*nout = n;
	return 0;
nomem:
	closedir(dp);
	free_files(f, n);
	return lpt_perf_fail(LPT_PERF_E_NOMEM, "out of memory");
}

static uint64_t page_up(uint64_t v)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	return (v + pg - 1) / pg * pg;
}

/* Map @len bytes of @path at @at (inside the reserved range). */
static int map_at(uint8_t *at, const char *path, uint64_t len)
{
	/* a regular file only (never a FIFO or a device) */
	int fd = ptcap_file_open(NULL, path, 0, 0, NULL), e;
	void *m;

	if (fd == -PTCAP_E_NOT_REGULAR)
		return lpt_perf_fail(LPT_PERF_E_IO, "%s: not a regular file", path);
	if (fd < 0)
		return lpt_perf_fail(LPT_PERF_E_IO, "%s: %s", path, strerror(errno));
	m = mmap(at, (size_t)len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	e = errno;
	close(fd);
	if (m == MAP_FAILED)
		return lpt_perf_fail(LPT_PERF_E_IO, "cannot map %s: %s", path, strerror(e));
	return 0;
}

int lpt_perf_dir_format(struct lpt_perf *p, const uint8_t *b, uint64_t len)
{
	uint64_t v;

	if (len < 8)
		return lpt_perf_fail(LPT_PERF_E_CORRUPT, "HEADER_DIR_FORMAT: %" PRIu64
				     " bytes, not a u64", len);
	memcpy(&v, b, 8);
	if (v != PERF_DIR_VERSION)
		return lpt_perf_fail(LPT_PERF_E_VERSION, "HEADER_DIR_FORMAT version %" PRIu64
				     " (perf 6.1 knows %d): a newer perf wrote this "
				     "directory", v, PERF_DIR_VERSION);
	p->dir_version = v;
	return 0;
}

int lpt_perf_dir_map(struct lpt_perf *p, const char *dir)
{
	struct dir_file *f = NULL;
	size_t n = 0, i, k;
	uint64_t total, off;
	uint8_t *region;
	char *head;
	int err;

	err = list_files(dir, &f, &n);
	if (err)
		return err;
	if (asprintf(&head, "%s/data", dir) < 0) {
		free_files(f, n);
		return lpt_perf_fail(LPT_PERF_E_NOMEM, "out of memory");
	}
	total = page_up(p->len);
	for (i = 0; i < n; i++)
		total += page_up(f[i].size);
	if (total > SIZE_MAX) {
		err = lpt_perf_fail(LPT_PERF_E_NOMEM, "%s: too large to map", dir);
		goto out;
	}
	region = mmap(NULL, (size_t)total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		err = lpt_perf_fail(LPT_PERF_E_NOMEM, "cannot reserve %" PRIu64
				    " bytes of address space for %s", total, dir);
		goto out;
	}
	err = map_at(region, head, p->len);
	if (!err) {
		err = lpt_perf_grow(&p->parts, &p->cap_parts, n, sizeof(*p->parts));
		if (err)
			err = lpt_perf_fail(LPT_PERF_E_NOMEM, "out of memory");
	}
	off = page_up(p->len);
	for (i = k = 0; i < n && !err; i++) {
		if (!f[i].size)
			continue;	/* perf skips empty files too */
		err = map_at(region + off, f[i].path, f[i].size);
		p->parts[k].off = off;
		p->parts[k].size = f[i].size;
		p->parts[k].path = lpt_perf_strndup(p, f[i].path, strlen(f[i].path));
		if (!err && !p->parts[k].path)
			err = lpt_perf_fail(LPT_PERF_E_NOMEM, "out of memory");
		off += page_up(f[i].size);
		k++;
	}
	if (err) {
		munmap(region, (size_t)total);
		goto out;
	}
	munmap((void *)p->map, (size_t)p->len);
	p->map = region;
	p->len = total;
	p->nparts = k;
	p->info.dir_files = (uint32_t)k;
out:
	free(head);
	free_files(f, n);
	return err;
}

/* ---- The sideband in time order ---- */

struct order {
	uint64_t time;
	size_t i;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort @n entries of @elem bytes at @v by the u64 at @time_off, stably. */
static int sort_by_time(void *v, size_t n, size_t elem, size_t time_off)
{
	struct order *o;
	uint8_t *copy, *a = v;
	size_t i;

	if (n < 2)
		return 0;
	o = malloc(n * sizeof(*o));
	copy = malloc(n * elem);
	if (!o || !copy) {
		free(o);
		free(copy);
		return lpt_perf_fail(LPT_PERF_E_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		memcpy(&o[i].time, a + i * elem + time_off, sizeof(o[i].time));
		o[i].i = i;
	}
	qsort(o, n, sizeof(*o), cmp_order);
	memcpy(copy, a, n * elem);
	for (i = 0; i < n; i++)
		memcpy(a + i * elem, copy + o[i].i * elem, elem);
	free(copy);
	free(o);
	return 0;
}

int lpt_perf_dir_sort(struct lpt_perf *p)
{
	int err = sort_by_time(p->maps, p->nmaps, sizeof(*p->maps),
			       offsetof(struct lpt_perf_map, time));

	if (!err)
		err = sort_by_time(p->tasks, p->ntasks, sizeof(*p->tasks),
				   offsetof(struct lpt_perf_task, time));
	if (!err)
		err = sort_by_time(p->sws, p->nsws, sizeof(*p->sws),
				   offsetof(struct lpt_perf_switch, time));
	return err;
}
