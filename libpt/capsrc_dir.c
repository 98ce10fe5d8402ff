// SPDX-License-Identifier: GPL-2.0
/*
 * The ptcap directory backend of a capture source (libpt/capsrc_internal.h,
 * include/lwpt/capture_src.h): the files of Documentation/ptcap-format.rst
 * read with libpt/ptcap_dir.c, each once, on first use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "libpt/capsrc_internal.h"

struct capdir {
	char *dir;
	/* config: read once */
	bool cfg_done;
	int rd_err, rd_errno;	/* reading it */
	int cfg_err;		/* parsing it */
	size_t cfg_line;
	char *text;
	size_t len;
	struct ptcap_config cfg;
	struct ptcap_addr_range addr[PTCAP_ADDR_RANGES];
	/* traces */
	bool tr_done;
	int tr_err, tr_errno;
	char **names;
	struct lpt_capsrc_trace *tr;
	size_t ntr;
	/* system-wide: processes, switches */
	bool ps_done, sw_done;
	int ps_err, sw_err, ps_errno, sw_errno;
	size_t ps_line, sw_line;
	struct ptcap_processes ps;
	struct ptcap_switches sws;
};

int lpt_capsrc_dir_open(const char *path, void **be)
{
	struct capdir *d = calloc(1, sizeof(*d));

	if (!d || !(d->dir = strdup(path))) {
		free(d);
		return -PTCAP_E_NOMEM;
	}
	*be = d;
	return 0;
}

static void set_at(struct lpt_capsrc_at *at, const char *file, size_t line)
{
	snprintf(at->file, sizeof(at->file), "%s", file);
	at->line = line;
}

static void dir_close(void *be)
{
	struct capdir *d = be;
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->ntr; i++)
		free((void *)d->tr[i].gaps);
	free(d->tr);
	ptcap_dir_free_names(d->names, d->ntr);
	ptcap_processes_free(&d->ps);
	ptcap_switches_free(&d->sws);
	free(d->text);
	free(d->dir);
	free(d);
}

/* The config text, read and parsed once; the read's error (errno kept). */
static int read_config(struct capdir *d)
{
	if (!d->cfg_done) {
		d->cfg_done = true;
		d->rd_err = ptcap_dir_read_file(d->dir, PTCAP_CONFIG_FILE, &d->text, &d->len);
		d->rd_errno = errno;
		if (d->rd_err) {
			d->text = NULL;
		} else {
			d->cfg_err = ptcap_config_parse(d->text, d->len, &d->cfg, &d->cfg_line);
			if (!d->cfg_err) {
				d->cfg_err = ptcap_config_addr(d->text, d->len, d->addr);
				d->cfg_line = 0;
			}
		}
	}
	if (d->rd_err)
		errno = d->rd_errno;
	return d->rd_err;
}

static int dir_config(void *be, struct lpt_capsrc_at *at, const struct ptcap_config **cfg,
		      const struct ptcap_addr_range **addr)
{
	struct capdir *d = be;
	int err = read_config(d);

	*cfg = &d->cfg;
	*addr = d->addr;
	if (err) {
		set_at(at, PTCAP_CONFIG_FILE, 0);
		return err;
	}
	if (d->cfg_err)
		set_at(at, PTCAP_CONFIG_FILE, d->cfg_line);
	return d->cfg_err;
}

static const char *dir_config_text(void *be, size_t *len)
{
	struct capdir *d = be;

	*len = 0;
	if (read_config(d))
		return NULL;
	*len = d->len;
	return d->text;
}

/* Trace names sorted by strcmp(), for finding a config line's file. */
static int cmp_idx(const void *a, const void *b, void *arg)
{
	const struct lpt_capsrc_trace *tr = arg;

	return strcmp(tr[*(const size_t *)a].name, tr[*(const size_t *)b].name);
}

static size_t find_trace(const struct capdir *d, const size_t *by_name, const char *name,
			 size_t nlen)
{
	size_t lo = 0, hi = d->ntr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = d->tr[by_name[mid]].name;
		int c = strncmp(m, name, nlen);

		if (!c && m[nlen])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else if (c > 0)
			hi = mid;
		else
			return by_name[mid];
	}
	return SIZE_MAX;
}

/*
 * The "thread.<file>" and "gaps.<file>" lines of the config, the first of
 * each file (as ptcap_config_thread() and ptcap_config_gaps() take it), in
 * one pass over the text: each line's file found among the sorted names.
 */
static int index_config(struct capdir *d)
{
	const char *p, *end;
	size_t *by_name, i;
	bool *seen;

	if (!d->ntr || read_config(d))
		return 0;
	by_name = malloc(d->ntr * sizeof(*by_name));
	seen = calloc(2 * d->ntr, sizeof(*seen));
	if (!by_name || !seen) {
		free(by_name);
		free(seen);
		return -PTCAP_E_NOMEM;
	}
	for (i = 0; i < d->ntr; i++)
		by_name[i] = i;
	qsort_r(by_name, d->ntr, sizeof(*by_name), cmp_idx, d->tr);
	for (p = d->text, end = d->text + d->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *kb = p, *ke;
		size_t klen, k;
		int gaps;

		p = nl ? nl + 1 : end;
		while (kb < le && (*kb == ' ' || *kb == '\t'))
			kb++;
		for (ke = kb; ke < le && *ke != ' ' && *ke != '\t'; ke++)
			;
		if (le > kb && le[-1] == '\r' && ke == le)
			ke--;
		klen = (size_t)(ke - kb);
		if (klen > 7 && !memcmp(kb, "thread.", 7))
			gaps = 0;
		else if (klen > 5 && !memcmp(kb, "gaps.", 5))
			gaps = 1;
		else
			continue;
		k = find_trace(d, by_name, kb + (gaps ? 5 : 7), klen - (gaps ? 5 : 7));
		if (k == SIZE_MAX || seen[2 * k + gaps])
			continue;
		seen[2 * k + gaps] = true;
		if (!gaps) {
			d->tr[k].has_thread =
				!ptcap_config_thread(kb, (size_t)(le - kb), d->tr[k].name,
						     &d->tr[k].tid, &d->tr[k].pid);
		} else {
			uint64_t *g = NULL;

			d->tr[k].gaps_err = ptcap_config_gaps(kb, (size_t)(le - kb), d->tr[k].name,
							     &g, &d->tr[k].ngaps);
			d->tr[k].gaps = g;
			if (d->tr[k].gaps_err == -PTCAP_E_NOMEM) {
				free(by_name);
				free(seen);
				return -PTCAP_E_NOMEM;
			}
		}
	}
	free(by_name);
	free(seen);
	return 0;
}

static int dir_traces(void *be, struct lpt_capsrc_at *at, const struct lpt_capsrc_trace **t,
		      size_t *n)
{
	struct capdir *d = be;
	size_t i, count = 0;

	*t = NULL;
	*n = 0;
	if (!d->tr_done) {
		d->tr_done = true;
		d->tr_err = ptcap_dir_list_traces(d->dir, &d->names, &count);
		d->tr_errno = errno;
		if (!d->tr_err) {
			d->tr = calloc(count ? count : 1, sizeof(*d->tr));
			if (!d->tr) {
				ptcap_dir_free_names(d->names, count);
				d->names = NULL;
				d->tr_err = -PTCAP_E_NOMEM;
			}
		}
		if (!d->tr_err) {
			d->ntr = count;
			for (i = 0; i < count; i++) {
				struct lpt_capsrc_trace *tr = &d->tr[i];
				unsigned int v;
				char c;

				tr->name = d->names[i];
				/* cpu<N>.pt, cpu<N>.p<k>.pt, cpu<N>.bts */
				if (sscanf(tr->name, "cpu%u.%c", &v, &c) == 2 &&
				    (c == 'p' || c == 'b')) {
					tr->per_cpu = true;
					tr->cpu = v;
				}
			}
			d->tr_err = index_config(d);
		}
	}
	if (d->tr_err) {
		set_at(at, "", 0);
		errno = d->tr_errno;
		return d->tr_err;
	}
	*t = d->tr;
	*n = d->ntr;
	return 0;
}

static int dir_load(void *be, struct lpt_capsrc_at *at, size_t i, uint64_t max, size_t pad,
		    uint8_t **buf, size_t *len)
{
	struct capdir *d = be;
	uint64_t size;
	uint8_t *data;
	size_t done = 0;
	int fd;

	if (i >= d->ntr)
		return -PTCAP_E_INVAL;
	set_at(at, d->tr[i].name, 0);
	/* never blocks on a FIFO or device; a sparse file is no trace */
	fd = ptcap_file_open(d->dir, d->tr[i].name, max, PTCAP_FILE_NOT_SPARSE, &size);
	if (fd < 0)
		return fd;
	if (size > SIZE_MAX - pad) {
		close(fd);
		return -PTCAP_E_TOO_LARGE;
	}
	data = calloc(1, (size_t)size + pad);
	if (!data) {
		close(fd);
		return -PTCAP_E_NOMEM;
	}
	while (done < size) {
		ssize_t r = pread(fd, data + done, (size_t)size - done, (off_t)done);

		if (r <= 0) {
			int e = r < 0 ? errno : EIO;	/* EIO: the file shrank */

			free(data);
			close(fd);
			errno = e;
			return -PTCAP_E_IO;
		}
		done += (size_t)r;
	}
	close(fd);
	*buf = data;
	*len = (size_t)size;
	return 0;
}

/* Read and parse the maps file @name, its relative paths joined to the
 * directory. */
static int read_maps(struct capdir *d, struct lpt_capsrc_at *at, const char *name,
		     struct ptcap_maps *maps)
{
	size_t len, line = 0, i;
	char *text;
	int err;

	maps->map = NULL;
	maps->nmaps = 0;
	set_at(at, name, 0);
	err = ptcap_dir_read_file(d->dir, name, &text, &len);
	if (err)
		return err;
	err = ptcap_maps_parse(text, len, maps, &line);
	free(text);
	if (err) {
		at->line = line;
		return err;
	}
	for (i = 0; i < maps->nmaps; i++) {
		char *p;

		if (maps->map[i].path[0] == '/')
			continue;
		if (asprintf(&p, "%s/%s", d->dir, maps->map[i].path) < 0) {
			ptcap_maps_free(maps);
			return -PTCAP_E_NOMEM;
		}
		free(maps->map[i].path);
		maps->map[i].path = p;
	}
	return 0;
}

static int dir_maps(void *be, struct lpt_capsrc_at *at, struct ptcap_maps *maps)
{
	return read_maps(be, at, PTCAP_MAPS_FILE, maps);
}

static int dir_processes(void *be, struct lpt_capsrc_at *at,
			 const struct ptcap_processes **ps)
{
	struct capdir *d = be;

	*ps = &d->ps;
	if (!d->ps_done) {
		char *text;
		size_t len;

		d->ps_done = true;
		d->ps_err = ptcap_dir_read_file(d->dir, PTCAP_PROCESSES_FILE, &text, &len);
		d->ps_errno = errno;
		if (d->ps_err == -PTCAP_E_IO && d->ps_errno == ENOENT) {
			d->ps_err = 1;
		} else if (!d->ps_err) {
			d->ps_err = ptcap_processes_parse(text, len, &d->ps, &d->ps_line);
			free(text);
		}
	}
	if (d->ps_err < 0) {
		set_at(at, PTCAP_PROCESSES_FILE, d->ps_line);
		errno = d->ps_errno;
	}
	return d->ps_err;
}

static int dir_switches(void *be, struct lpt_capsrc_at *at,
			const struct ptcap_switches **sws)
{
	struct capdir *d = be;

	*sws = &d->sws;
	if (!d->sw_done) {
		char *text;
		size_t len;

		d->sw_done = true;
		d->sw_err = ptcap_dir_read_file(d->dir, PTCAP_SWITCHES_FILE, &text, &len);
		d->sw_errno = errno;
		if (!d->sw_err) {
			d->sw_err = ptcap_switches_parse(text, len, &d->sws, &d->sw_line);
			free(text);
		}
	}
	if (d->sw_err) {
		set_at(at, PTCAP_SWITCHES_FILE, d->sw_line);
		errno = d->sw_errno;
	}
	return d->sw_err;
}

static int dir_process_maps(void *be, struct lpt_capsrc_at *at, size_t k,
			    struct ptcap_maps *maps)
{
	struct capdir *d = be;

	maps->map = NULL;
	maps->nmaps = 0;
	if (!d->ps_done || d->ps_err || k >= d->ps.n || !d->ps.p[k].maps)
		return -PTCAP_E_INVAL;
	return read_maps(d, at, d->ps.p[k].maps, maps);
}

const struct lpt_capsrc_be lpt_capsrc_dir_be = {
	.kind = LPT_CAPSRC_PTCAP_DIR,
	.close = dir_close,
	.config = dir_config,
	.config_text = dir_config_text,
	.traces = dir_traces,
	.load = dir_load,
	.maps = dir_maps,
	.processes = dir_processes,
	.switches = dir_switches,
	.process_maps = dir_process_maps,
};
